// The worker module in Node, where the Go runtime can be watched: one engine
// per isolate (concurrent first requests share one boot), and a new engine
// when the Go program has exited. workerd runs the same module in
// edge.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import "../../index.js"; // defines globalThis.Go (wasm_exec.js)
import { createWorker } from "../worker.js";
import { demoFiles, repoRoot } from "../../test/helpers.mjs";

// Every Go instance the engine loader runs.
const instances = [];
const run = globalThis.Go.prototype.run;
globalThis.Go.prototype.run = function (instance) {
  instances.push(this);
  return run.call(this, instance);
};

const wasm = await WebAssembly.compile(readFileSync(join(repoRoot, "wasm", "kontext.wasm")));
const bundle = JSON.stringify({ schema: "kontext.bundle/v1", repository: { name: "demo" }, files: demoFiles() });
const worker = createWorker({ wasm, repos: [{ name: "demo", bundle }] });
const get = (path) => worker.fetch(new Request("http://worker" + path), {});

test("one engine per isolate: concurrent first requests share one boot", async () => {
  const answers = await Promise.all([get("/v1/status"), get("/v1/governing?path=src/billing/tax/vat.go"), get("/v1/repos")]);
  assert.deepEqual(answers.map((r) => r.status), [200, 200, 200]);
  assert.equal(instances.length, 1);
  for (let i = 0; i < 5; i++) assert.equal((await get("/v1/status")).status, 200);
  assert.equal(instances.length, 1);
});

test("a Go program that exited is booted again, and the repositories opened again", async () => {
  const before = await (await get("/v1/governing?path=src/billing/tax/vat.go")).text();
  instances[0].exited = true; // what wasm_exec.js sets when the program ends
  const after = await get("/v1/governing?path=src/billing/tax/vat.go");
  assert.equal(after.status, 200);
  assert.equal(await after.text(), before);
  assert.equal(instances.length, 2);
});
