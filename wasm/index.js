// @kontext/engine — kontext's knowledge engine as WebAssembly.
//
//   import { loadEngine } from "@kontext/engine";
//   const engine = await loadEngine();                 // the package's kontext.wasm
//   const kb = engine.open({ files: { ".ai/decisions/x.md": "…" } });
//   kb.request("entries.governing", { paths: ["src/a.go"] }); // the CLI's envelope, parsed
//
// Every call is synchronous once the engine is loaded. Works in browsers,
// Node >= 20 and workerd; no bundler needed.

import "./wasm_exec.js"; // Go's runtime glue: defines globalThis.Go

const GLOBAL = "__kontext_v1";

const isNode = typeof process !== "undefined" && process.versions != null && process.versions.node != null;

/** Error thrown by open() and update() when the engine refuses the input. */
export class KontextError extends Error {
  constructor(error) {
    super(error && error.message ? error.message : String(error));
    this.name = "KontextError";
    this.code = error && error.code ? error.code : "operation_failed";
    this.error = error;
  }
}

/**
 * Loads the engine. `wasm` may be a WebAssembly.Module, the bytes
 * (ArrayBuffer or a typed array, optionally gzip-compressed), a URL (string
 * or URL; file: URLs and plain paths are read from disk in Node), a Response
 * or a promise of one. Without `wasm` the package's own kontext.wasm is used.
 */
export async function loadEngine(options = {}) {
  const source = options.wasm !== undefined ? options.wasm : new URL("./kontext.wasm", import.meta.url);
  const go = new globalThis.Go();
  const instance = await instantiate(await source, go.importObject);
  // run() executes Go's main until it blocks (select {}); its promise only
  // settles when the Go program exits, so it is not awaited.
  const done = go.run(instance);
  done.catch(() => {});
  const api = globalThis[GLOBAL];
  if (!api || typeof api.abi !== "function") {
    throw new Error(`kontext.wasm did not register globalThis.${GLOBAL}`);
  }
  return new Engine(api, go);
}

async function instantiate(src, imports) {
  if (src instanceof WebAssembly.Module) {
    return WebAssembly.instantiate(src, imports);
  }
  if (src instanceof ArrayBuffer || ArrayBuffer.isView(src)) {
    return (await WebAssembly.instantiate(await gunzipIfNeeded(src), imports)).instance;
  }
  if (typeof Response !== "undefined" && src instanceof Response) {
    return instantiate(await src.arrayBuffer(), imports);
  }
  if (typeof src === "string" || src instanceof URL) {
    return instantiate(await fetchBytes(src), imports);
  }
  throw new TypeError("loadEngine: wasm must be a WebAssembly.Module, bytes, a URL or a Response");
}

async function fetchBytes(src) {
  let url = null;
  if (src instanceof URL) {
    url = src;
  } else if (/^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(src) && !/^[a-zA-Z]:[\\/]/.test(src)) {
    url = new URL(src);
  }
  if (isNode && (url === null || url.protocol === "file:")) {
    const { readFile } = await import("node:fs/promises");
    return readFile(url === null ? src : url);
  }
  const res = await fetch(url === null ? src : url);
  if (!res.ok) {
    throw new Error(`loadEngine: fetching ${src} answered ${res.status}`);
  }
  return res.arrayBuffer();
}

async function gunzipIfNeeded(bytes) {
  const u8 = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (u8.length < 2 || u8[0] !== 0x1f || u8[1] !== 0x8b) {
    return u8;
  }
  const stream = new Blob([u8]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const decoder = new TextDecoder();

function fileSet(files) {
  if (files == null) {
    return {};
  }
  const out = {};
  const entries = files instanceof Map ? files.entries() : Object.entries(files);
  for (const [name, value] of entries) {
    out[name] = typeof value === "string" ? value : decoder.decode(value);
  }
  return out;
}

function unwrap(raw) {
  const env = JSON.parse(raw);
  if (!env.ok) {
    throw new KontextError(env.error);
  }
  return env.result;
}

class Engine {
  #api;
  #go;

  constructor(api, go) {
    this.#api = api;
    this.#go = go;
  }

  /** True when the Go runtime has exited (every call then fails). */
  get exited() {
    return this.#go.exited === true;
  }

  /** The memory of the wasm instance (for diagnostics and tests). */
  get memory() {
    return this.#go.mem;
  }

  /** {abi, version, operations, functions} */
  abi() {
    return unwrap(this.#api.abi());
  }

  /** Opens an in-memory knowledge base over {files, revision?, now?}. */
  open({ files, revision, now } = {}) {
    const input = { files: fileSet(files) };
    if (revision != null) input.revision = revision;
    if (now != null) input.now = now instanceof Date ? now.toISOString().replace(/\.\d{3}Z$/, "Z") : now;
    const { handle } = unwrap(this.#api.open(JSON.stringify(input)));
    return new KnowledgeBase(this.#api, handle);
  }

  /** entries.changed between two open knowledge bases: the parsed envelope. */
  changed(base, head) {
    return JSON.parse(this.#api.changed(handleOf(base), handleOf(head)));
  }

  /**
   * Renders Markdown (an entry's body) to safe HTML: {html, plain}. Raw HTML
   * is dropped, dangerous link targets are removed, [[id]] becomes
   * <a class="wikilink" data-entry-id="id">. Throws KontextError when
   * markdown is not a string.
   */
  render(markdown) {
    return unwrap(this.#api.render(markdown));
  }

  /** KnowledgePolicy.inspect of one file's text: the parsed envelope. */
  inspect(path, text, { config = null, storage = null } = {}) {
    return JSON.parse(this.#api.inspect(path, text, config, storage));
  }
}

function handleOf(kb) {
  if (!(kb instanceof KnowledgeBase)) {
    throw new TypeError("expected a knowledge base returned by engine.open()");
  }
  return kb.handle;
}

class KnowledgeBase {
  #api;
  #handle;

  constructor(api, handle) {
    this.#api = api;
    this.#handle = handle;
  }

  /** The handle in the engine's table. */
  get handle() {
    return this.#handle;
  }

  /** Runs one operation; returns the parsed envelope (the CLI's JSON). */
  request(operation, input = {}) {
    const doc = typeof input === "string" ? input : JSON.stringify(input ?? {});
    return JSON.parse(this.#api.request(this.#handle, operation, doc));
  }

  /** Writes and removes files: {files?, remove?, revision?}. */
  update({ files, remove, revision } = {}) {
    const input = { files: fileSet(files), remove: remove ?? [] };
    if (revision != null) input.revision = revision;
    return unwrap(this.#api.update(this.#handle, JSON.stringify(input)));
  }

  /** The current snapshot id (status.snapshot). */
  get snapshot() {
    const env = this.request("status", {});
    if (!env.ok) {
      throw new KontextError(env.error);
    }
    return env.result.snapshot;
  }

  /** Drops the knowledge base; later calls answer not_found. Idempotent. */
  close() {
    if (this.#handle !== 0) {
      this.#api.close(this.#handle);
      this.#handle = 0;
    }
  }
}
