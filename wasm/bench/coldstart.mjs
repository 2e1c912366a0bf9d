// Cold start of the engine in Node: import the package, read the module,
// compile + instantiate + Go's main up to the registered table (ready = the
// first abi() answer). Prints one JSON line {cold_ms, ready_ms, faults}:
// cold_ms from the import, ready_ms from the bytes in hand (compile +
// instantiate + ready, the budget's definition), faults the process's minor
// page faults over cold_ms. Run it in a fresh process per sample.
//
//   node wasm/bench/coldstart.mjs
import { readFileSync } from "node:fs";

const f0 = process.resourceUsage().minorPageFault;
const t0 = performance.now();
const { loadEngine } = await import("../node.js");
const bytes = readFileSync(new URL("../kontext.wasm", import.meta.url));
const t1 = performance.now();
const engine = await loadEngine({ wasm: bytes });
engine.abi();
const t2 = performance.now();
const faults = process.resourceUsage().minorPageFault - f0;
const r = (x) => Math.round(x * 100) / 100;
console.log(JSON.stringify({ cold_ms: r(t2 - t0), ready_ms: r(t2 - t1), faults }));
