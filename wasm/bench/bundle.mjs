// A bundle opened the way the review console and the edge worker open it:
// load the engine, read and openBundle the bundle (its compiled snapshot
// used when present), first entries.governing answer for one path. Prints
// one JSON line {load_ms, open_ms, first_ms, total_ms, cpu_ms, faults}
// (cpu_ms: the process's user + system CPU time, which a loaded machine
// does not inflate as much as the wall time; faults: its minor page faults
// from load to the answer).
//
//   node wasm/bench/bundle.mjs bundle.json <path> [--no-snapshot]
import { readFileSync } from "node:fs";

import { loadEngine } from "../node.js";

const [file, path, flag] = process.argv.slice(2);
if (flag !== undefined && flag !== "--no-snapshot") throw new Error(`unknown flag ${flag}`);
const f0 = process.resourceUsage().minorPageFault;
const t0 = performance.now();
const engine = await loadEngine();
const t1 = performance.now();
// The bundle's bytes, as the package's README reads one in Node; without
// the snapshot, the same bytes parsed here and the snapshot dropped.
const bytes = readFileSync(file);
let doc = bytes;
if (flag === "--no-snapshot") {
  doc = JSON.parse(bytes.toString());
  delete doc.snapshot;
}
const kb = engine.openBundle(doc, { immutable: true });
const t2 = performance.now();
const first = kb.request("entries.governing", { paths: [path] });
const t3 = performance.now();
if (!first.ok) throw new Error(JSON.stringify(first.error));
if (first.result.entries.length === 0) throw new Error(`nothing governs ${path}: the corpus is not the one expected`);
const r = (x) => Math.round(x * 100) / 100;
const cpu = process.cpuUsage();
const faults = process.resourceUsage().minorPageFault - f0;
console.log(JSON.stringify({ load_ms: r(t1 - t0), open_ms: r(t2 - t1), first_ms: r(t3 - t2), total_ms: r(t3 - t0), cpu_ms: r((cpu.user + cpu.system) / 1000), faults }));
