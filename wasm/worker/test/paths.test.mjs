// One path rule on every surface: the CLI (`kontext api`), the MCP server
// (`kontext mcp` over stdio), the WASM engine (the npm package) and the edge
// worker (`kontext edge serve` under workerd) answer a relative path and its
// "./" spelling byte for byte alike; an absolute path inside the root
// resolves natively (CLI, MCP) and is invalid_input in WASM and on the edge;
// a path climbing out with ".." or lying outside the root gets the same
// error code everywhere. (The Go surface is engine's and package kontext's
// Go tests.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { loadEngine } from "../../node.js";
import { demoRepo, nativeBin, nativeEnv } from "../../test/helpers.mjs";
import { serveEdge } from "./serve.mjs";

const work = mkdtempSync(join(tmpdir(), "kontext-paths-test-"));
const bin = nativeBin();
const repo = demoRepo();
const env = { ...nativeEnv, WRANGLER_SEND_METRICS: "false" };
for (const k of ["KONTEXT_TOKEN", "KONTEXT_CORS_ORIGINS", "KONTEXT_STORE_REPOS", "KONTEXT_WORKERD"]) delete env[k];
const bundleFile = join(work, "demo.json");
execFileSync(bin, ["-C", repo, "bundle", "-o", bundleFile], { env, stdio: "ignore" });

const path = "src/billing/tax/vat.go";
const spellings = [path, "./" + path, "src/billing/./tax/vat.go", "src//billing/tax/vat.go"];
const climbing = ["../outside.go", "src/../../outside.go", "./../outside.go"];
const outside = ["/etc/passwd"];

let edge;
let wasm;

before(async () => {
  const engine = await loadEngine();
  wasm = engine.openBundle(readFileSync(bundleFile, "utf8"));
  edge = await serveEdge(bin, env, ["--bundle", `demo=${bundleFile}`]);
});

after(async () => {
  if (edge && edge.proc.exitCode === null) {
    edge.proc.kill("SIGINT");
    await new Promise((resolve) => edge.proc.on("exit", resolve));
  }
  rmSync(work, { recursive: true, force: true });
});

// Each surface takes a list of paths and returns the envelope's text for
// each (one request per path).
function cli(paths) {
  return paths.map((p) => {
    const r = spawnSync(bin, ["-C", repo, "api", "entries.governing", JSON.stringify({ paths: [p] })], { env, encoding: "utf8" });
    return r.stdout.trim();
  });
}

// mcp runs one `kontext mcp` process: initialize, then one ctx_governing
// call per path; stdin stays open until every answer has arrived.
async function mcp(paths) {
  const proc = spawn(bin, ["-C", repo, "mcp"], { env, stdio: ["pipe", "pipe", "pipe"] });
  const pending = new Map();
  let buf = "";
  proc.stdout.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      pending.get(msg.id)?.(msg);
    }
  });
  const send = (msg) => proc.stdin.write(JSON.stringify(msg) + "\n");
  const ask = (id, method, params) => new Promise((resolve) => {
    pending.set(id, resolve);
    send({ jsonrpc: "2.0", id, method, params });
  });
  await ask(0, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "paths-test", version: "1" } });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const out = [];
  for (const [i, p] of paths.entries()) {
    const res = await ask(i + 1, "tools/call", { name: "ctx_governing", arguments: { paths: [p] } });
    assert.ok(res.result, `ctx_governing ${p}: ${JSON.stringify(res)}`);
    out.push(JSON.stringify(res.result.structuredContent));
  }
  proc.stdin.end();
  await new Promise((resolve) => proc.on("exit", resolve));
  return out;
}

function inWasm(paths) {
  return paths.map((p) => JSON.stringify(wasm.request("entries.governing", { paths: [p] })));
}

async function onEdge(paths) {
  const out = [];
  for (const p of paths) {
    const res = await fetch(edge.url + "v1/governing", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ paths: [p] }) });
    out.push(await res.text());
  }
  return out;
}

const surfaces = {
  cli: async (paths) => cli(paths),
  mcp,
  wasm: async (paths) => inWasm(paths),
  edge: onEdge,
};

const code = (text) => {
  const env = JSON.parse(text);
  return env.ok ? "ok" : env.error.code;
};

for (const [name, ask] of Object.entries(surfaces)) {
  test(`${name}: every spelling of a relative path answers byte for byte alike`, async () => {
    const answers = await ask(spellings);
    assert.equal(code(answers[0]), "ok", answers[0]);
    assert.ok(JSON.parse(answers[0]).result.entries?.length > 0 || JSON.parse(answers[0]).result.items?.length > 0, `nothing governs ${path}: ${answers[0]}`);
    for (const [i, a] of answers.entries()) assert.equal(a, answers[0], `${spellings[i]} differs from ${path}`);
  });
}

test("climbing out and outside the root: the same error code on every surface", async () => {
  const codes = {};
  for (const [name, ask] of Object.entries(surfaces)) {
    codes[name] = (await ask([...climbing, ...outside])).map(code);
  }
  for (const [name, got] of Object.entries(codes)) {
    assert.deepEqual(got, [...climbing, ...outside].map(() => "invalid_input"), `${name}: ${got}`);
  }
});

test("an absolute path inside the root: native surfaces resolve it, WASM and the edge refuse it", async () => {
  const abs = join(repo, path);
  const [relCLI, absCLI] = cli([path, abs]);
  assert.equal(absCLI, relCLI);
  const [relMCP, absMCP] = await mcp([path, abs]);
  assert.equal(absMCP, relMCP);
  assert.equal(code(inWasm([abs])[0]), "invalid_input");
  assert.equal(code((await onEdge([abs]))[0]), "invalid_input");
});
