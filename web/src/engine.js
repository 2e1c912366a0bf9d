// Engine calls: loading the WASM engine and a bundle, and opening the
// bundle's snapshots (head, base) as knowledge bases.

import { loadEngine, checkBundle } from "../../wasm/index.js";
import { state, request, listAll, normalisePaths, showError } from "./state.js";

export function base64ToBytes(b64) {
  const bin = atob(String(b64).replace(/\s+/g, ""));
  const out = new Uint8Array(bin.length);
  for (let k = 0; k < bin.length; k++) out[k] = bin.charCodeAt(k);
  return out;
}

export async function startEngine() {
  if (typeof window.__KONTEXT_WASM_GZ_B64__ === "string" && window.__KONTEXT_WASM_GZ_B64__ !== "") {
    return loadEngine({ wasm: base64ToBytes(window.__KONTEXT_WASM_GZ_B64__) });
  }
  return loadEngine({ wasm: new URL("./engine/kontext.wasm", location.href) });
}

export async function initialBundle() {
  if (window.__KONTEXT_BUNDLE__) {
    const b = window.__KONTEXT_BUNDLE__;
    return typeof b === "string" ? JSON.parse(b) : b;
  }
  const param = new URLSearchParams(location.search).get("bundle");
  const url = param ? new URL(param, location.href) : new URL("./bundle.json", location.href);
  let res;
  try {
    res = await fetch(url, { cache: "no-store" });
  } catch (err) {
    throw new Error(`could not fetch the bundle ${url.pathname}: ${err.message}. Drop a bundle file on the page or choose one.`);
  }
  if (!res.ok) throw new Error(`no bundle at ${url.pathname} (HTTP ${res.status}). Drop a bundle file on the page or choose one.`);
  return res.json();
}

export function openBundle(bundle) {
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
  let base = null;
  if (bundle.base_files && typeof bundle.base_files === "object") {
    const bfiles = { ...bundle.base_files };
    if (bundle.config && typeof bundle.config.path === "string" && typeof bundle.config.text === "string" && !(bundle.config.path in bfiles)) {
      bfiles[bundle.config.path] = bundle.config.text;
    }
    // The head's snapshot serves the base too: each stored parse is used
    // only where the base file's content is the one it was parsed from
    // (most of a review's files are unchanged), the rest is parsed.
    base = state.engine.open({ files: bfiles, revision: repo.base || null, snapshot, immutable: true });
  }
  if (state.head) state.head.close();
  if (state.base) state.base.close();
  state.bundle = bundle;
  state.head = head;
  state.base = base;
  state.history = bundle.history && typeof bundle.history === "object" ? bundle.history : {};
  state.drift = Array.isArray(bundle.drift) ? bundle.drift : [];
  const listed = listAll(head);
  state.entries = listed.entries;
  state.diagnostics = listed.diagnostics;
  state.byId = new Map(state.entries.map((e) => [e.id, e]));
  state.baseById = base ? new Map(listAll(base).entries.map((e) => [e.id, e])) : new Map();
  state.status = request(head, "status", {});
  state.paths = normalisePaths(Array.isArray(bundle.changed_paths) ? bundle.changed_paths : []);
  state.changes = computeChanges();
  computeGoverning();
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
