// loadEngine's tiering budget in Node (see compileLate in index.js, host.compile in node.js): the
// package compiles its module with a larger V8 --wasm-tiering-budget than
// V8's default, sets the flag only around that compile, and leaves it
// alone when the process sets V8's tiering flags itself. What V8 does with
// the flag is observed, not timed: each child process prints V8's trace of
// the functions it recompiled with its optimising compiler (TurboFan)
// while the engine answered the same requests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { loadEngine } from "../node.js";
import { demoFiles, NOW, repoRoot } from "./helpers.mjs";

const work = `
import { loadEngine } from ${JSON.stringify(pathToFileURL(join(repoRoot, "wasm", "node.js")).href)};
import { readFileSync } from "node:fs";
const options = JSON.parse(process.env.KONTEXT_TEST_LOAD);
const engine = await loadEngine(options);
const files = JSON.parse(readFileSync(process.env.KONTEXT_TEST_FILES, "utf8"));
const kb = engine.open({ files, now: ${JSON.stringify(NOW)} });
for (let i = 0; i < 150; i++) {
  for (const op of ["entries.governing", "entries.list", "entries.search"]) {
    const input = op === "entries.search" ? { query: "money cents" } : op === "entries.list" ? {} : { paths: ["src/billing/tax/vat.go", "cmd/export/main.go"] };
    const env = kb.request(op, input);
    if (!env.ok) throw new Error(JSON.stringify(env.error));
  }
}
// V8 prints a recompilation when it is done, on another thread.
await new Promise((resolve) => setTimeout(resolve, 1500));
console.log("done");
`;

const dir = mkdtempSync(join(tmpdir(), "kontext-tiering-"));
const script = join(dir, "work.mjs");
writeFileSync(script, work);
const filesPath = join(dir, "files.json");
writeFileSync(filesPath, JSON.stringify(demoFiles()));

// turbofan runs the work in a new Node process with nodeFlags and the
// load options, and returns how many functions V8 recompiled with
// TurboFan.
function turbofan(load, nodeFlags = []) {
  const r = spawnSync(process.execPath, ["--trace-wasm-compilation-times", ...nodeFlags, script], {
    encoding: "utf8",
    env: { ...process.env, KONTEXT_TEST_LOAD: JSON.stringify(load), KONTEXT_TEST_FILES: filesPath },
    maxBuffer: 64 << 20,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^done$/m);
  assert.match(r.stdout, /using Liftoff/, "V8 printed no compilation trace: the test cannot see the tiers");
  return (r.stdout.match(/using TurboFan/g) ?? []).length;
}

test("the module is compiled with the package's budget, and V8's own is left to the rest", (t) => {
  const v8Default = turbofan({ tieringBudget: null });
  const late = turbofan({});
  assert.ok(v8Default > 0, "V8's default budget recompiled nothing: the work is too small to tell the budgets apart");
  assert.ok(late < v8Default, `with the package's budget V8 recompiled ${late} functions, with its default ${v8Default}`);
  // A budget the process sets itself wins (and stays: the package would
  // have put V8's default back).
  const own = turbofan({}, ["--wasm-tiering-budget=2000000000"]);
  t.diagnostic(`functions recompiled: ${v8Default} at V8's budget, ${late} at the package's, ${own} at ten times the package's`);
  assert.ok(own < late, `with the process's own budget, ten times the package's, V8 recompiled ${own} functions, with the package's ${late}`);
  // A module the caller compiled is instantiated as it is.
  const precompiledScript = work.replace("const engine = await loadEngine(options);",
    "const engine = await loadEngine({ wasm: await WebAssembly.compile(readFileSync(new URL('kontext.wasm', " +
      JSON.stringify(pathToFileURL(join(repoRoot, "wasm", "/")).href) + "))) });");
  writeFileSync(script, precompiledScript);
  try {
    assert.ok(turbofan({}) > late, "a module compiled by the caller got the package's budget");
  } finally {
    writeFileSync(script, work);
  }
});

test("tieringBudget: the same answers, and only a positive integer or null", async () => {
  const files = demoFiles();
  const answers = [];
  for (const tieringBudget of [undefined, null, 1_800_000, 50_000_000]) {
    const engine = await loadEngine({ tieringBudget });
    const kb = engine.open({ files, now: NOW });
    answers.push(JSON.stringify(kb.request("entries.governing", { paths: ["src/billing/tax/vat.go"] })));
    kb.close();
  }
  assert.ok(answers.every((a) => a === answers[0]));
  assert.match(answers[0], /"ok":true/);
  for (const bad of [0, -1, 1.5, "20000000", 2 ** 31, NaN]) {
    await assert.rejects(loadEngine({ tieringBudget: bad }), TypeError, String(bad));
  }
});
