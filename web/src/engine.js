// Engine calls: loading the WASM engine and a bundle, and opening the
// bundle's snapshots (head, base) as knowledge bases.

import { loadEngine, checkBundle } from "../../wasm/index.js";
import { state, request, normalisePaths, showError } from "./state.js";

export function base64ToBytes(b64) {
  const text = String(b64).replace(/\s+/g, "");
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let k = 0; k < bin.length; k++) out[k] = bin.charCodeAt(k);
  return out;
}

// startEngine loads the engine (kontext.wasm). Served, index.html's early
// script compiled it while app.js loaded; in the one-file page, from the
// inlined gzip, compiled while it is decompressed.
export async function startEngine() {
  const early = window.__KONTEXT_EARLY__;
  const compiled = !inlinedEngine() && early && early.engine ? await early.engine : null;
  if (compiled instanceof WebAssembly.Module) {
    // not a module this page can run: loaded again the usual way
    full ??= loadEngine({ wasm: compiled }).catch(() => loadFull());
  }
  return fullEngine();
}

function inlinedEngine() {
  const b64 = window.__KONTEXT_WASM_GZ_B64__;
  return typeof b64 === "string" && b64 !== "";
}

let full = null;

/** The engine (kontext.wasm), loaded once. */
export function fullEngine() {
  full ??= loadFull().catch((err) => {
    full = null; // asked again by the next caller
    throw err;
  });
  return full;
}

async function loadFull() {
  if (inlinedEngine()) {
    const gz = base64ToBytes(window.__KONTEXT_WASM_GZ_B64__);
    if (typeof DecompressionStream === "function" && typeof WebAssembly.instantiateStreaming === "function") {
      const wasm = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
      return loadEngine({ wasm: new Response(wasm, { headers: { "content-type": "application/wasm" } }) });
    }
    return loadEngine({ wasm: gz });
  }
  return loadServed(new URL("./engine/kontext.wasm", location.href));
}

// loadServed loads a served engine as index.html's early script compiles
// it: its gzip file (url + ".gz") inflated in the page while it compiles,
// else the .wasm itself.
async function loadServed(url) {
  if (typeof DecompressionStream === "function") {
    try {
      const res = await fetch(url.href + ".gz");
      if (res.ok && res.body) {
        const body = res.headers.get("content-encoding") ? res.body : res.body.pipeThrough(new DecompressionStream("gzip"));
        return await loadEngine({ wasm: new Response(body, { headers: { "content-type": "application/wasm" } }) });
      }
    } catch {
      // the .wasm below
    }
  }
  return loadEngine({ wasm: url });
}

export async function initialBundle() {
  if (window.__KONTEXT_BUNDLE__) {
    const b = window.__KONTEXT_BUNDLE__;
    return typeof b === "string" ? JSON.parse(b) : b;
  }
  const param = new URLSearchParams(location.search).get("bundle");
  const url = param ? new URL(param, location.href) : new URL("./bundle.json", location.href);
  // index.html's early script has usually started this very request.
  const early = window.__KONTEXT_EARLY__;
  const got = early && early.bundle && early.bundleURL === url.href
    ? await early.bundle
    : await fetch(url, { cache: "no-store" }).then((res) => ({ res }), (err) => ({ err }));
  if (got.err) {
    throw new Error(`could not fetch the bundle ${url.pathname}: ${got.err.message}. Drop a bundle file on the page or choose one.`);
  }
  const res = got.res;
  if (!res.ok) throw new Error(`no bundle at ${url.pathname} (HTTP ${res.status}). Drop a bundle file on the page or choose one.`);
  if (got.parseError) throw got.parseError;
  return "doc" in got ? got.doc : res.json();
}

// Opening a bundle is two steps, so the governing results are on screen
// before the rest is computed: openBundle opens the head (a refused bundle
// leaves the open one) and asks for the governing entries of the changed
// paths, all a first view of the changed files needs; finishOpen then
// lists every entry, asks for status, opens the base and asks for the
// changed entries, pausing between engine calls so the page paints and
// answers input. Listing the entries is what makes the engine decode every
// entry of the snapshot, the largest part of an open.

/** Entries per entries.list request of finishOpen: one pause apart. */
const LIST_PAGE = 100;

// openBundle opens bundle's head with the engine (see openWith).
export async function openBundle(bundle) {
  return openWith(bundle);
}

function openWith(bundle) {
  if (!bundle || typeof bundle !== "object") throw new Error("the bundle is not a JSON object");
  // kontext.bundle/v1 of any minor version; a newer major is refused with
  // a message naming both versions (the package's one check).
  checkBundle(bundle);
  const repo = bundle.repository || {};
  const files = { ...bundle.files };
  if (bundle.config && typeof bundle.config.path === "string" && typeof bundle.config.text === "string" && !(bundle.config.path in files)) {
    files[bundle.config.path] = bundle.config.text;
  }
  // The bundle's compiled snapshot (format 1.2) spares parsing every file;
  // the engine ignores it where it does not match the files.
  const snapshot = typeof bundle.snapshot === "string" ? bundle.snapshot : null;
  const head = state.engine.open({ files, revision: repo.head || null, snapshot, immutable: true });
  performance.mark("kontext:head-opened");
  let governing;
  try {
    const paths = normalisePaths(Array.isArray(bundle.changed_paths) ? bundle.changed_paths : []);
    governing = paths.length ? request(head, "entries.governing", { paths }).entries : [];
  } catch (err) {
    head.close();
    throw err;
  }
  // The base is opened by finishOpen, after the governing results are on
  // screen: only the changed entries need it.
  let pendingBase = null;
  if (bundle.base_files && typeof bundle.base_files === "object") {
    const bfiles = { ...bundle.base_files };
    // A base without a configuration is read with head's (spec 04; a
    // bundle of format 1.3 already holds it in base_files, with a warning).
    if (bundle.config && typeof bundle.config.path === "string" && typeof bundle.config.text === "string" && !state.engine.layout().config_candidates.some((p) => p in bfiles)) {
      bfiles[bundle.config.path] = bundle.config.text;
    }
    pendingBase = { files: bfiles, revision: repo.base || null, snapshot };
  }
  if (state.head) state.head.close();
  if (state.base) state.base.close();
  state.generation++;
  state.bundle = bundle;
  state.head = head;
  state.headArgs = { files, revision: repo.head || null, snapshot };
  state.base = null;
  state.pendingBase = pendingBase;
  state.hasBase = pendingBase !== null;
  state.history = bundle.history && typeof bundle.history === "object" ? bundle.history : {};
  state.drift = Array.isArray(bundle.drift) ? bundle.drift : [];
  state.entries = [];
  state.diagnostics = [];
  state.byId = new Map();
  state.baseById = new Map();
  state.status = null;
  state.changes = [];
  state.paths = normalisePaths(Array.isArray(bundle.changed_paths) ? bundle.changed_paths : []);
  state.governing = governing;
  performance.mark("kontext:governing");
}

/**
 * The rest of an open (see openBundle): every entry of the head, status,
 * the changed entries and their base entries. pause() is awaited between
 * engine calls; false when another bundle was opened meanwhile (this one's
 * results are then dropped).
 */
export async function finishOpen(pause) {
  const gen = state.generation;
  const head = state.head;
  const paused = async () => (await pause(), state.generation === gen);
  if (!(await paused())) return false;
  const entries = [];
  let diagnostics = [];
  for (let offset = 0; ;) {
    const r = request(head, "entries.list", { limit: LIST_PAGE, offset });
    entries.push(...r.entries);
    if (!(await paused())) return false;
    if (r.next_offset == null || r.entries.length === 0) {
      diagnostics = r.diagnostics || [];
      break;
    }
    offset = r.next_offset;
  }
  performance.mark("kontext:listed");
  state.entries = entries;
  state.diagnostics = diagnostics;
  state.byId = new Map(entries.map((e) => [e.id, e]));
  state.status = request(head, "status", {});
  if (!(await paused())) return false;
  openBase();
  performance.mark("kontext:base-opened");
  if (!(await paused())) return false;
  const changes = computeChanges();
  performance.mark("kontext:changed");
  if (!(await paused())) return false;
  state.changes = changes;
  // The base entries the changed entries' diffs read (their file), asked
  // one by one instead of listing the base. entries.get also resolves a
  // file path or an id prefix: only the entry of that exact id counts.
  const baseById = new Map();
  if (state.base) {
    for (const c of changes) {
      const env = state.base.request("entries.get", { id: c.id });
      if (env && env.ok && env.result && env.result.id === c.id) baseById.set(c.id, env.result);
    }
  }
  state.baseById = baseById;
  return true;
}

// openBase opens the pending base files of the open bundle. The head's
// snapshot serves the base too: each stored parse is used only where the
// base file's content is the one it was parsed from (most of a review's
// files are unchanged), the rest is parsed. A base the engine refuses
// leaves the head open, with the error shown: the changed entries are
// then the entries whose own file changed, as for a bundle without base
// files.
function openBase() {
  const p = state.pendingBase;
  state.pendingBase = null;
  if (!p) return;
  try {
    state.base = state.engine.open({ files: p.files, revision: p.revision, snapshot: p.snapshot, immutable: true });
  } catch (err) {
    state.hasBase = false;
    showError(`Could not open the bundle's base files: ${err.message}. The changed entries shown are the entries whose own file changed.`);
  }
}

export function computeChanges() {
  if (state.base) {
    const env = state.engine.changed(state.base, state.head);
    if (env && env.ok) return env.result.changes || [];
    showError(`entries.changed: ${env && env.error ? env.error.message : "failed"}`);
    return [];
  }
  // Without base files: the entries whose own file the change touches.
  const touched = new Set(state.paths);
  return state.entries.filter((e) => touched.has(e.file)).map((e) => ({ ...e, change: "revised", unknown_base: true }));
}

export function computeGoverning() {
  state.governing = state.paths.length ? request(state.head, "entries.governing", { paths: state.paths }).entries : [];
}
