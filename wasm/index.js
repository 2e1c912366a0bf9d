// @kontext/engine — kontext's knowledge engine as WebAssembly.
//
//   import { loadEngine } from "@kontext/engine";
//   const engine = await loadEngine();                 // the package's kontext.wasm
//   const kb = engine.open({ files: { ".ai/decisions/x.md": "…" } });
//   kb.request("entries.governing", { paths: ["src/a.go"] }); // the CLI's envelope, parsed
//
// Every call is synchronous once the engine is loaded. Works in browsers,
// Node >= 20 and workerd; no bundler needed.
//
// This file is the package's browser (and default) entry: it imports
// nothing of Node's, so bundlers (esbuild --platform=browser, Vite) take
// it as it is. Under Node the package's "node" export condition selects
// ./node.js instead, which adds what only Node can do (reading the wasm
// from disk, the tiering budget, openDirectory) through HOST.

import "./wasm_exec.js"; // Go's runtime glue: defines globalThis.Go

const GLOBAL = "__kontext_v1";

/** The bundle format major version this package reads (kontext.bundle/v1). */
export const BUNDLE_MAJOR = 1;

const isNode = typeof process !== "undefined" && process.versions != null && process.versions.node != null;

// HOST: the option key under which ./node.js hands loadEngine what only
// Node can do: {read(url, src), compile(bytes, budget), decodeBase64(text,
// buf), openDirectory(engine, dir, options)}. Without it (browsers,
// workers) the engine fetches, compiles as the runtime does and has no
// openDirectory.
const HOST = Symbol.for("@kontext/engine.host");
const NO_HOST = Object.freeze({});

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
 * or a promise of one (compiled while it downloads when served as
 * application/wasm). Without `wasm` the package's own kontext.wasm is used.
 * In Node a
 * module given as bytes, a path or a file: URL is compiled with
 * `tieringBudget` (default 200,000,000; null leaves V8 as it is): see
 * compileLate.
 */
export async function loadEngine(options = {}) {
  const source = options.wasm !== undefined ? options.wasm : new URL("./kontext.wasm", import.meta.url);
  const budget = options.tieringBudget === undefined ? TIERING_BUDGET : options.tieringBudget;
  if (budget !== null && !(Number.isInteger(budget) && budget > 0 && budget < 2 ** 31)) {
    throw new TypeError("loadEngine: tieringBudget must be a positive integer below 2^31, or null");
  }
  const host = options[HOST] ?? NO_HOST;
  const go = new globalThis.Go();
  const instance = await instantiate(await source, go.importObject, budget, host);
  // run() executes Go's main until it blocks (select {}); its promise only
  // settles when the Go program exits, so it is not awaited.
  const done = go.run(instance);
  done.catch(() => {});
  const api = globalThis[GLOBAL];
  if (!api || typeof api.abi !== "function") {
    throw new Error(`kontext.wasm did not register globalThis.${GLOBAL}`);
  }
  return new Engine(api, go, host);
}

async function instantiate(src, imports, budget = null, host = NO_HOST) {
  if (src instanceof WebAssembly.Module) {
    return WebAssembly.instantiate(src, imports);
  }
  if (src instanceof ArrayBuffer || ArrayBuffer.isView(src)) {
    const bytes = await gunzipIfNeeded(src);
    const compiled = await compileLate(bytes, budget, host);
    return compiled !== null ? WebAssembly.instantiate(compiled, imports) : (await WebAssembly.instantiate(bytes, imports)).instance;
  }
  if (typeof src === "string" || src instanceof URL) {
    const got = await fetchSource(src, host);
    return ArrayBuffer.isView(got) ? instantiate(got, imports, budget, host) : instantiateResponse(got, imports);
  }
  // Checked last: in Node the first touch of the global Response loads
  // the fetch implementation (tens of milliseconds on a cold process).
  if (typeof Response !== "undefined" && src instanceof Response) {
    return instantiateResponse(src, imports);
  }
  throw new TypeError("loadEngine: wasm must be a WebAssembly.Module, bytes, a URL or a Response");
}

// fetchSource reads a file: URL or path from disk in Node (the bytes,
// through host.read) and fetches anything else (the Response).
async function fetchSource(src, host) {
  let url = null;
  if (src instanceof URL) {
    url = src;
  } else if (/^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(src) && !/^[a-zA-Z]:[\\/]/.test(src)) {
    url = new URL(src);
  }
  if (url === null || url.protocol === "file:") {
    if (host.read) {
      return host.read(url, src);
    }
    if (isNode) {
      throw new Error(`loadEngine: reading ${src} from disk needs the package's Node entry (import "@kontext/engine" under Node selects it); or pass the bytes`);
    }
  }
  const res = await fetch(url === null ? src : url);
  if (!res.ok) {
    throw new Error(`loadEngine: fetching ${src} answered ${res.status}`);
  }
  return res;
}

// instantiateResponse compiles a response served as application/wasm
// while its bytes arrive (the download and the compilation overlap);
// any other response (a gzip file, a server without the wasm type) is
// read whole and instantiated from its bytes, as is a wasm response that
// does not compile as it came (gzip bytes without Content-Encoding).
async function instantiateResponse(res, imports) {
  const type = (res.headers.get("content-type") || "").split(";")[0].trim().toLowerCase();
  if (type === "application/wasm" && typeof WebAssembly.instantiateStreaming === "function") {
    const copy = res.clone();
    try {
      return (await WebAssembly.instantiateStreaming(res, imports)).instance;
    } catch (err) {
      if (!(err instanceof WebAssembly.CompileError)) throw err;
      return instantiate(await copy.arrayBuffer(), imports);
    }
  }
  return instantiate(await res.arrayBuffer(), imports);
}

// V8 recompiles a WebAssembly function with its optimising compiler once
// the function has used up a budget of work, and counts a Go function's
// every backward jump as its whole size: the large functions Go emits ask
// for that recompilation within their first few hundred loop turns, and in
// a short process (a hook, a CLI) the background compiles and the memory
// they fault in cost more than the faster code gains before it exits. The
// full engine's start-up alone (goldmark's and yaml's regular expressions,
// compiled at package initialisation) used up a budget twenty times V8's
// in the regexp compiler's largest functions, whose recompilations took
// over half a second of CPU on a 2-CPU machine while the first answer
// waited.
// In Node, loadEngine therefore compiles the module (host.compile, in
// ./node.js) with a budget about
// 110 times V8's default (1,800,000): a long-running process still gets
// the optimised code for its hot functions (over a sustained load the
// same steady-state time as at V8's default). The flag is V8's, read when
// a module is compiled; it is set only around this synchronous compile (no
// other module can be compiled meanwhile) and put back.
// Left alone when the process sets V8's tiering flags itself (on node's
// command line), outside Node, or with tieringBudget: null.
const TIERING_BUDGET = 200_000_000;
const V8_TIERING_BUDGET = 1_800_000;

async function compileLate(bytes, budget, host) {
  if (budget === null || !host.compile || budget === V8_TIERING_BUDGET) {
    return null;
  }
  return host.compile(bytes, budget, V8_TIERING_BUDGET);
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

// utf8Text decodes UTF-8 bytes (an ArrayBuffer or a view of one), invalid
// sequences as U+FFFD, as a fetched response's text() does.
function utf8Text(bytes) {
  return decoder.decode(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes);
}

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

const encoder = new TextEncoder();

const nonASCII = /[^\x00-\x7f]/;

// packFiles packs a file set for open: per file a little-endian u32 path
// length and u32 text length, then the path's and the text's UTF-8 bytes.
// One buffer instead of JSON: decoding megabytes of JSON strings is the
// slowest part of opening a bundle in WASM. alloc(n) gives the buffer (n:
// an upper bound); returns the bytes written.
// extra ([path, text] or null) is packed after files (a bundle's config,
// so the bundle's files are not copied into a new object to add it).
function packFiles(files, extra, alloc) {
  const names = files == null ? [] : files instanceof Map ? [...files.keys()] : Object.keys(files);
  const texts = new Array(names.length);
  let max = 0;
  for (let i = 0; i < names.length; i++) {
    const value = files instanceof Map ? files.get(names[i]) : files[names[i]];
    // bytes are read as UTF-8 text (invalid sequences become U+FFFD), as update() reads them
    texts[i] = typeof value === "string" ? value : decoder.decode(value);
    max += 8 + utf8Max(names[i]) + utf8Max(texts[i]);
  }
  if (extra != null) {
    names.push(extra[0]);
    texts.push(extra[1]);
    max += 8 + utf8Max(extra[0]) + utf8Max(extra[1]);
  }
  const buf = alloc(max);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let at = 0;
  for (let i = 0; i < names.length; i++) {
    const head = at;
    at += 8;
    const p = encoder.encodeInto(names[i], buf.subarray(at)).written;
    at += p;
    const t = encoder.encodeInto(texts[i], buf.subarray(at)).written;
    at += t;
    view.setUint32(head, p, true);
    view.setUint32(head + 4, t, true);
  }
  return at;
}

// utf8Max bounds the UTF-8 size of s: exact for ASCII (nearly every file).
function utf8Max(s) {
  return nonASCII.test(s) ? s.length * 3 : s.length;
}

// base64Into decodes a bundle's snapshot into alloc(n) (n: an upper bound)
// and returns the bytes written; text that is not base64 gives -1 (the
// files are then parsed, as without a snapshot).
function base64Into(text, alloc, host) {
  if (typeof text !== "string") return -1;
  try {
    const buf = alloc(Math.ceil(text.length / 4) * 3);
    if (typeof buf.setFromBase64 === "function") return buf.setFromBase64(text).written;
    if (host.decodeBase64) return host.decodeBase64(text, buf);
    const bin = atob(text);
    for (let i = 0; i < bin.length; i++) buf[i] = bin.charCodeAt(i);
    return bin.length;
  } catch {
    return -1;
  }
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
  #host;

  constructor(api, go, host) {
    this.#api = api;
    this.#go = go;
    this.#host = host;
  }

  // #stage allocates n bytes in the engine's memory for the next open.
  #stage(n) {
    return unwrap(this.#api.stage(n)).address;
  }

  // #staged is the Uint8Array over n bytes at address; valid until the
  // next call into the engine (the memory may grow and move).
  #staged(address, n) {
    return new Uint8Array(this.#go._inst.exports.mem.buffer, address, n);
  }

  /** True when the Go runtime has exited (every call then fails). */
  get exited() {
    return this.#go.exited === true;
  }

  /** The memory of the wasm instance (for diagnostics and tests). */
  get memory() {
    return this.#go.mem;
  }

  /**
   * The engine's heap: {heap_objects, heap_live, total, limit, gc_percent,
   * open} in bytes (open: knowledge bases). A positive limitBytes first
   * sets the Go runtime's soft memory limit, a gcPercent the collector's
   * pacing (debug.SetGCPercent; -1: it runs only near the limit). Engines
   * without it answer null.
   */
  memoryStats(limitBytes = 0, gcPercent = undefined) {
    if (typeof this.#api.memory !== "function") return null;
    return unwrap(this.#api.memory(limitBytes, gcPercent));
  }

  /** {abi, version, operations, functions, parser} */
  abi() {
    return unwrap(this.#api.abi());
  }

  /** Always true: the engine parses files (kept for callers that check it). */
  get parser() {
    return this.abi().parser;
  }

  /**
   * Opens an in-memory knowledge base over {files, revision?, now?,
   * immutable?, snapshot?}. immutable: requests answer the first read's
   * snapshot without listing or stating the files again (update() is the
   * only way it changes). snapshot: a bundle's compiled snapshot (base64),
   * used wherever the files are the ones it was built from.
   */
  open({ files, revision, now, immutable, snapshot } = {}) {
    return this.#open(files, null, { revision, now, immutable, snapshot });
  }

  // #open is open() with extra, a file packed after files (see packFiles).
  #open(files, extra, { revision, now, immutable, snapshot }) {
    const input = {};
    if (revision != null) input.revision = revision;
    if (immutable) input.immutable = true;
    if (now != null) input.now = now instanceof Date ? now.toISOString().replace(/\.\d{3}Z$/, "Z") : now;
    // The snapshot and the files are written straight into the engine's
    // memory (stage), not into JS buffers the engine would copy.
    let snap = null;
    if (snapshot != null) {
      let address = 0;
      const n = base64Into(snapshot, (max) => this.#staged((address = this.#stage(max)), max), this.#host);
      if (n >= 0) snap = [address, n];
    }
    let address = 0;
    const n = packFiles(files, extra, (max) => this.#staged((address = this.#stage(max)), max));
    const { handle, bytes } = unwrap(this.#api.open(JSON.stringify(input), snap, [address, n]));
    return new KnowledgeBase(this.#api, handle, bytes);
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

  /**
   * Where a knowledge base keeps its files under a config (null = the
   * defaults): {config_candidates, storage, sources, overlay, ledger, reads};
   * with paths, `reads` lists those the config reads as entry files.
   */
  layout(config = null, paths = null) {
    return unwrap(this.#api.layout(config, paths == null ? null : JSON.stringify(paths)));
  }

  /**
   * Opens a knowledge base from a directory on disk (Node only): the
   * committed config (the first of layout().config_candidates), every entry
   * file of its sources (the same source resolution as the CLI; .git and
   * node_modules are not entered), the path overlay and the ledger. The
   * working tree as it is: uncommitted edits included.
   */
  async openDirectory(dir, options = {}) {
    if (!this.#host.openDirectory) {
      throw new Error("openDirectory needs Node; in a browser or worker open({files}) or openBundle(bundle)");
    }
    return this.#host.openDirectory(this, dir, options);
  }

  /**
   * Opens the head of a kontext bundle (`kontext bundle`, kontext.bundle/v1;
   * an object, its JSON text, or the JSON's UTF-8 bytes as a Uint8Array or
   * ArrayBuffer, such as a file's bytes from readFileSync(path)). A
   * bundle of a newer major format is
   * refused with a KontextError (code unsupported_bundle) naming both
   * versions; minor versions only add fields. The head's compiled snapshot
   * (format 1.2, `snapshot`) is used when it matches the files, so no
   * Markdown or YAML is parsed; immutable as in open().
   */
  openBundle(bundle, { now, base = false, immutable = false } = {}) {
    const doc = typeof bundle === "string" ? JSON.parse(bundle)
      : bundle instanceof ArrayBuffer || ArrayBuffer.isView(bundle) ? JSON.parse(utf8Text(bundle))
      : bundle;
    checkBundle(doc);
    const files = (base ? doc.base_files : doc.files) ?? {};
    if (base && doc.base_files == null) {
      throw new KontextError({ code: "invalid_input", message: "the bundle has no base files (it was built without a base)" });
    }
    let extra = null;
    if (doc.config && typeof doc.config.path === "string" && typeof doc.config.text === "string" && !Object.hasOwn(files, doc.config.path)) {
      extra = [doc.config.path, doc.config.text];
    }
    const repo = doc.repository ?? {};
    const snapshot = !base && typeof doc.snapshot === "string" ? doc.snapshot : null;
    return this.#open(files, extra, { revision: (base ? repo.base : repo.head) ?? null, now, immutable, snapshot });
  }

  /** KnowledgePolicy.inspect of one file's text: the parsed envelope. */
  inspect(path, text, { config = null, storage = null } = {}) {
    return JSON.parse(this.#api.inspect(path, text, config, storage));
  }
}

/**
 * Throws a KontextError unless doc is a kontext bundle this package reads:
 * schema kontext.bundle/v<major> with major <= BUNDLE_MAJOR.
 */
export function checkBundle(doc) {
  const m = doc && typeof doc.schema === "string" ? /^kontext\.bundle\/v(\d+)$/.exec(doc.schema) : null;
  if (m === null) {
    throw new KontextError({ code: "invalid_input", message: `not a kontext bundle (schema ${JSON.stringify(doc && doc.schema)}; want kontext.bundle/v${BUNDLE_MAJOR})` });
  }
  const major = Number(m[1]);
  if (major > BUNDLE_MAJOR) {
    throw new KontextError({
      code: "unsupported_bundle",
      message: `this bundle is format v${major} (${doc.format_version ?? doc.schema}), newer than this reader understands (v${BUNDLE_MAJOR}): upgrade @kontext/engine or build the bundle with a matching kontext`,
    });
  }
  if (!doc.files || typeof doc.files !== "object") {
    throw new KontextError({ code: "invalid_input", message: "the bundle has no files" });
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
  #bytes;

  constructor(api, handle, bytes) {
    this.#api = api;
    this.#handle = handle;
    this.#bytes = bytes ?? 0;
  }

  /** The handle in the engine's table. */
  get handle() {
    return this.#handle;
  }

  /**
   * What the engine holds for this knowledge base as it was opened, by its
   * own accounting (the snapshot, the file texts and the file table, in
   * bytes); entries decoded later add to it.
   */
  get bytes() {
    return this.#bytes;
  }

  /** Runs one operation; returns the parsed envelope (the CLI's JSON). */
  request(operation, input = {}) {
    return JSON.parse(this.requestText(operation, input));
  }

  /**
   * request() without parsing the answer: the envelope's JSON text as the
   * engine wrote it, for a server that passes the answer on (parsing and
   * writing a large answer again cost as much as making it).
   */
  requestText(operation, input = {}) {
    const doc = typeof input === "string" ? input : JSON.stringify(input ?? {});
    return this.#api.request(this.#handle, operation, doc);
  }

  /**
   * Answers one MCP JSON-RPC message (a string) over this knowledge base,
   * statelessly, with the tools the CLI's MCP server offers for what this
   * engine serves: the response's JSON text, byte for byte what `kontext
   * mcp` answers, or "" for a notification.
   */
  mcp(message) {
    const out = this.#api.mcp(this.#handle, String(message));
    if (out.startsWith('{"schema_version"')) unwrap(out); // the engine refused the call
    return out;
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
