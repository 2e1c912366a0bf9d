// The governing workload in WASM: a warm entries.governing request with
// 1,000 paths over the corpus written by the engine's BenchmarkGoverningOp
// (KONTEXT_BENCH_CORPUS), through the package's public API. Prints one JSON
// line {open_ms, first_ms, warm_ms} (warm = median of 5).
//
//   node wasm/bench/governing.mjs corpus.json
import { readFileSync } from "node:fs";

import { loadEngine } from "../node.js";

const { files, paths } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const engine = await loadEngine();
let t = performance.now();
const kb = engine.open({ files });
const openMs = performance.now() - t;
t = performance.now();
const first = kb.request("entries.governing", { paths });
const firstMs = performance.now() - t;
if (!first.ok) throw new Error(JSON.stringify(first.error));
const times = [];
for (let i = 0; i < 5; i++) {
  t = performance.now();
  kb.request("entries.governing", { paths });
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
const r = (x) => Math.round(x * 100) / 100;
console.log(JSON.stringify({ open_ms: r(openMs), first_ms: r(firstMs), warm_ms: r(times[2]) }));
