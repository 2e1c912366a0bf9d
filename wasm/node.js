// @kontext/engine under Node: the package's "node" export condition
// selects this entry; browsers, workers and bundlers for them get
// ./index.js, which imports nothing of Node's. It is index.js's API, the
// same classes, with what only Node can do: a wasm given as a path or a
// file: URL (the package's own kontext.wasm included) read from disk, the
// module compiled with the tiering budget (see index.js), openDirectory.
// Node's modules are imported when first needed, as before.

import { loadEngine as loadWith } from "./index.js";

export { BUNDLE_MAJOR, KontextError, checkBundle } from "./index.js";

const HOST = Symbol.for("@kontext/engine.host"); // index.js's option key

/** loadEngine of index.js, with Node's host (see index.d.ts). */
export function loadEngine(options = {}) {
  return loadWith({ ...options, [HOST]: host });
}

let v8Flags; // node:v8's setFlagsFromString, null where it is not usable

const host = Object.freeze({
  // read: a path or a file: URL (url null: src is a path) → the bytes.
  async read(url, src) {
    const { readFile } = await import("node:fs/promises");
    return readFile(url === null ? src : url);
  },

  // compile: the module compiled under V8's tiering budget (null: left
  // to the runtime); v8Default is V8's own budget, put back after.
  async compile(bytes, budget, v8Default) {
    if (v8Flags === undefined) {
      v8Flags = null;
      const own = (process.execArgv ?? []).join(" "); // NODE_OPTIONS may not carry V8's wasm flags
      if (!/wasm[-_](tiering[-_]budget|dynamic[-_]tiering|tier[-_]up|lazy)|liftoff|jitless/.test(own)) {
        try {
          const v8 = await import("node:v8");
          v8Flags = typeof v8.setFlagsFromString === "function" ? v8.setFlagsFromString : null;
        } catch {
          // a runtime without node:v8 compiles as it always does
        }
      }
    }
    if (v8Flags === null) {
      return null;
    }
    try {
      v8Flags(`--wasm-tiering-budget=${budget}`);
    } catch {
      return null;
    }
    try {
      return new WebAssembly.Module(bytes);
    } finally {
      v8Flags(`--wasm-tiering-budget=${v8Default}`);
    }
  },

  decodeBase64(text, buf) {
    return Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).write(text, "base64");
  },

  // openDirectory: engine.openDirectory(dir, {revision, now}) (index.d.ts).
  async openDirectory(engine, dir, { revision, now } = {}) {
    const { readFile, readdir, stat } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const readText = async (rel) => {
      try {
        return await readFile(join(dir, rel), "utf8");
      } catch (e) {
        if (e.code === "ENOENT" || e.code === "ENOTDIR" || e.code === "EISDIR") return null;
        throw e;
      }
    };
    const info = await stat(dir); // a missing directory throws ENOENT here
    if (!info.isDirectory()) {
      throw new Error(`openDirectory: ${dir} is not a directory`);
    }
    const files = {};
    let config = null;
    for (const name of engine.layout().config_candidates) {
      config = await readText(name);
      if (config !== null) {
        files[name] = config;
        break;
      }
    }
    const lay = engine.layout(config);
    const found = new Set();
    const walk = async (rel) => {
      let ents;
      try {
        ents = await readdir(join(dir, rel), { withFileTypes: true });
      } catch (e) {
        if (e.code === "ENOTDIR") return void found.add(rel); // a source naming one file
        if (e.code === "ENOENT") return;
        throw e;
      }
      for (const ent of ents) {
        if (ent.name === ".git" || ent.name === "node_modules") continue;
        const child = rel === "." ? ent.name : `${rel}/${ent.name}`;
        let isDir = ent.isDirectory();
        if (ent.isSymbolicLink()) {
          const target = await stat(join(dir, child)).catch(() => null);
          if (target === null) continue;
          isDir = target.isDirectory();
        }
        if (isDir) await walk(child);
        else found.add(child);
      }
    };
    for (const src of lay.sources) await walk(src.dir);
    for (const rel of engine.layout(config, [...found].sort()).reads) {
      const text = await readText(rel);
      if (text !== null) files[rel] = text;
    }
    for (const rel of [lay.overlay, lay.ledger]) {
      const text = await readText(rel);
      if (text !== null) files[rel] = text;
    }
    return engine.open({ files, revision, now });
  },
});
