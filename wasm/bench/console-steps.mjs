// The review console's open sequence (web/src/engine.js openBundle) in
// Node, timed step by step: load the engine, parse the bundle, open head
// and base (both with the bundle's compiled snapshot; a second argument
// opens the base without it), list both, status, changed, governing.
// Prints one "step milliseconds" line per step.
//
//   node wasm/bench/console-steps.mjs bundle.json [--base-without-snapshot]
import { readFileSync } from "node:fs";
import { loadEngine } from "../node.js";
const t = [performance.now()];
const mark = (n) => { const x = performance.now(); console.log(n, Math.round(x - t[t.length - 1])); t.push(x); };
const engine = await loadEngine(); mark("load");
const bundle = JSON.parse(readFileSync(process.argv[2], "utf8")); mark("parse");
const snapshot = bundle.snapshot;
const head = engine.open({ files: { ...bundle.files }, revision: bundle.repository.head, snapshot, immutable: true }); mark("open head");
const base = engine.open({ files: { ...bundle.base_files }, revision: bundle.repository.base, snapshot: process.argv[3] ? null : snapshot, immutable: true }); mark("open base");
const listAll = (kb) => { const out = []; let offset = 0; for (;;) { const r = kb.request("entries.list", { limit: 500, offset }).result; out.push(...r.entries); if (r.next_offset == null || r.entries.length === 0) return out; offset = r.next_offset; } };
listAll(head); mark("list head");
listAll(base); mark("list base");
head.request("status", {}); mark("status");
const ch = engine.changed(base, head); mark("changed " + (ch.ok ? ch.result.changes.length : JSON.stringify(ch.error)));
const g = head.request("entries.governing", { paths: bundle.changed_paths }); mark("governing " + g.result.entries.length);
listAll(head); mark("list head again");
const r1 = head.request("entries.list", { limit: 500, offset: 0 }); mark("list 500 again");
console.log("bytes of one page", JSON.stringify(r1).length);
