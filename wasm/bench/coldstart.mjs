// Cold start of the engine in Node: read + compile + instantiate + Go's
// main up to the registered table (ready = the first abi() answer).
// Prints one JSON line {cold_ms, faults} (faults: the process's minor page
// faults over the same span). Run it in a fresh process per sample.
//
//   node wasm/bench/coldstart.mjs [--reader]   # --reader: kontext-reader.wasm
import { readFileSync } from "node:fs";

const f0 = process.resourceUsage().minorPageFault;
const t0 = performance.now();
const { loadEngine } = await import("../index.js");
const bytes = readFileSync(new URL(process.argv.includes("--reader") ? "../kontext-reader.wasm" : "../kontext.wasm", import.meta.url));
const engine = await loadEngine({ wasm: bytes });
engine.abi();
const coldMs = performance.now() - t0;
const faults = process.resourceUsage().minorPageFault - f0;
console.log(JSON.stringify({ cold_ms: Math.round(coldMs * 100) / 100, faults }));
