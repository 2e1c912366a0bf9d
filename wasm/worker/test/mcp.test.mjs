// MCP on the edge worker under a real workerd (`kontext edge serve`):
// initialize, ping, tools/list and tools/call answer byte for byte what
// `kontext mcp` (the CLI's server on the SDK) answers on the same
// repository (the demo and a 1,000-entry one); bad input (a foreign
// Origin, a missing or wrong token, a body over the limit, a malformed
// frame, a batch, a stale session id, a GET) each gets its status and
// the worker keeps serving.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { demoRepo, nativeBin, nativeEnv, normalise, repoRoot } from "../../test/helpers.mjs";
import { serveEdge } from "./serve.mjs";

const work = mkdtempSync(join(tmpdir(), "kontext-edge-mcp-"));
const bin = nativeBin();
const env = { ...nativeEnv, WRANGLER_SEND_METRICS: "false", KONTEXT_ASSETS: process.env.KONTEXT_ASSETS ?? repoRoot };
for (const k of ["KONTEXT_TOKEN", "KONTEXT_CORS_ORIGINS", "KONTEXT_STORE_REPOS", "KONTEXT_DEBUG"]) delete env[k];

const repos = { demo: demoRepo(), big: join(work, "big") };
const bigPaths = JSON.parse(execFileSync("go", ["run", "./build/benchrepo", repos.big, "1000"], { cwd: repoRoot, env, encoding: "utf8" })).paths;
const bundles = {};
for (const [name, dir] of Object.entries(repos)) {
  bundles[name] = join(work, `${name}.json`);
  execFileSync(bin, ["-C", dir, "bundle", "-o", bundles[name]], { env, stdio: "ignore" });
}

// serve starts `kontext edge serve` with this file's environment.
export function serve(args, extraEnv = {}) {
  return serveEdge(bin, env, args, extraEnv);
}

let open; // no auth: demo (default) and big
let locked; // KONTEXT_TOKEN and KONTEXT_CORS_ORIGINS set

before(async () => {
  [open, locked] = await Promise.all([
    serve(["--bundle", `demo=${bundles.demo}`, "--bundle", `big=${bundles.big}`]),
    serve(["--bundle", `demo=${bundles.demo}`], { KONTEXT_TOKEN: "s3cret-token", KONTEXT_CORS_ORIGINS: "https://console.example.com" }),
  ]);
});

after(async () => {
  for (const s of [open, locked]) {
    if (s && s.proc.exitCode === null) {
      s.proc.kill("SIGINT");
      await new Promise((resolve) => s.proc.on("exit", resolve));
    }
  }
  rmSync(work, { recursive: true, force: true });
});

const INIT = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "0" } } };

// cli answers each message with `kontext mcp` on dir (one session:
// initialize first), as the response lines, by id.
function cli(dir, messages) {
  const lines = [INIT, { jsonrpc: "2.0", method: "notifications/initialized" }, ...messages].map((m) => JSON.stringify(m)).join("\n") + "\n";
  const r = spawnSync(bin, ["-C", dir, "mcp"], { env, input: lines, encoding: "utf8", maxBuffer: 64 << 20 });
  const byId = new Map();
  for (const l of r.stdout.split("\n")) if (l !== "") byId.set(JSON.stringify(JSON.parse(l).id), l);
  return byId;
}

async function rpc(server, path, body, headers = {}) {
  const res = await fetch(server.url + path.replace(/^\//, ""), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const call = (id, name, args) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

test("initialize, ping and tools/call answer byte for byte as kontext mcp (demo and 1,000 entries)", async () => {
  const cases = [
    ["demo", "/mcp", repos.demo, [
      INIT,
      { jsonrpc: "2.0", id: "p", method: "ping" },
      call(1, "ctx_governing", { paths: ["src/billing/tax/vat.go"] }),
      call(2, "ctx_governing", { paths: ["src/billing/tax/vat.go", "web/app.ts", "src/export/nightly.go"], limit: 3 }),
      call(3, "ctx_governing", { paths: ["src/billing/tax/vat.go"], detail: true }),
      call(4, "ctx_governing", { paths: ["nothing/here.txt"] }),
      call(5, "ctx_governing", { paths: "not a list" }),
      call(6, "ctx_api", { operation: "entries.get", input: { id: "2026-01-12-money-is-integer-cents" } }),
      call(7, "ctx_api", { operation: "entries.search", input: { query: "invoice rounding" } }),
      call(8, "ctx_api", { operation: "entries.get", input: { id: "no-such-entry" } }),
      call(11, "ctx_api", { operation: "entries.search", input: { query: "vat", view: "compact" } }),
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "no_such_tool", arguments: {} } },
      { jsonrpc: "2.0", id: 10, method: "no/such/method" },
    ]],
    ["big", "/v1/repos/big/mcp", repos.big, [
      call(1, "ctx_governing", { paths: bigPaths.slice(0, 1) }),
      call(2, "ctx_governing", { paths: bigPaths.slice(0, 100) }),
      call(3, "ctx_governing", { paths: bigPaths.slice(300, 305), limit: 50 }),
      call(4, "ctx_api", { operation: "entries.list", input: {} }),
    ]],
  ];
  for (const [name, path, dir, messages] of cases) {
    const want = cli(dir, messages.filter((m) => m !== INIT));
    if (messages.includes(INIT)) want.set("0", cli(dir, []).get("0"));
    for (const m of messages) {
      const got = await rpc(open, path, m);
      assert.equal(got.status, 200, `${name} ${m.method}: ${got.text}`);
      assert.equal(got.headers.get("content-type"), "application/json");
      const expected = want.get(JSON.stringify(m.id));
      if (m.params?.arguments?.detail === true || m.params?.name === "ctx_api") {
        // Whole entries carry what a bundle answers differently
        // (publication.state: committed natively, snapshot from a bundle;
        // helpers.mjs normalise); ctx_governing's text block is the same.
        const [g, w] = [JSON.parse(got.text).result, JSON.parse(expected).result];
        const op = m.params.arguments.operation ?? "entries.governing";
        assert.equal(normalise(op, g.structuredContent), normalise(op, w.structuredContent));
        if (m.params.name === "ctx_api") assert.equal(normalise(op, JSON.parse(g.content[0].text)), normalise(op, JSON.parse(w.content[0].text)));
        else assert.equal(g.content[0].text, w.content[0].text);
        assert.equal(g.isError, w.isError);
        continue;
      }
      assert.equal(got.text, expected, `${name}: ${JSON.stringify(m).slice(0, 200)}`);
    }
  }
});

test("tools/list: the CLI's read tools, defined as the CLI defines them", async () => {
  const want = JSON.parse(cli(repos.demo, [{ jsonrpc: "2.0", id: 1, method: "tools/list" }]).get("1")).result;
  const got = JSON.parse((await rpc(open, "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" })).text).result;
  assert.deepEqual(got.tools.map((t) => t.name), ["ctx_api", "ctx_brief", "ctx_governing"]);
  for (const t of got.tools) assert.deepEqual(t, want.tools.find((w) => w.name === t.name));
  // ctx_api reads only: a write answers the engine's unsupported_operation.
  const w = JSON.parse((await rpc(open, "/mcp", call(2, "ctx_api", { operation: "drafts.capture", input: { entry: { kind: "learning", title: "x", body: "y" } } }))).text).result;
  assert.equal(w.isError, true);
  assert.equal(w.structuredContent.error.code, "unsupported_operation");
});

test("ctx_brief: the CLI's brief from the bundle (every section but REPOSITORY, which has no worktree here)", async () => {
  const m = call(1, "ctx_brief", { paths: ["src/billing/tax/vat.go", "src/export/nightly.go"], budget_lines: 60 });
  const want = JSON.parse(cli(repos.demo, [m]).get("1")).result.structuredContent.result;
  const got = JSON.parse((await rpc(open, "/mcp", m)).text).result;
  assert.equal(got.isError, undefined);
  const sections = (b) => b.sections.filter((s) => s.id !== "repository");
  assert.deepEqual(sections(got.structuredContent.result), sections(want));
  assert.equal(got.content[0].text, got.structuredContent.result.sections.map((s) => s.text).join(""));
  // diff needs history: an error that says so.
  const diff = JSON.parse((await rpc(open, "/mcp", call(2, "ctx_brief", { diff: "HEAD~1" }))).text).result;
  assert.equal(diff.isError, true);
  assert.match(diff.structuredContent.error.message, /git repository/);
});

test("bad input: each its status, and the worker keeps serving", async () => {
  const ok = async () => assert.equal((await rpc(open, "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" })).status, 200);
  const authOK = { Authorization: "Bearer s3cret-token" };
  // A foreign Origin (DNS rebinding): 403, before anything else.
  assert.equal((await rpc(open, "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, { Origin: "https://evil.example" })).status, 403);
  assert.equal((await rpc(locked, "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, { ...authOK, Origin: "https://evil.example" })).status, 403);
  // The configured origin is served, with the MCP headers exposed.
  const cors = await rpc(locked, "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, { ...authOK, Origin: "https://console.example.com" });
  assert.equal(cors.status, 200);
  assert.equal(cors.headers.get("access-control-allow-origin"), "https://console.example.com");
  for (const h of ["MCP-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID"]) assert.match(cors.headers.get("access-control-expose-headers"), new RegExp(h));
  const pre = await fetch(locked.url + "mcp", { method: "OPTIONS", headers: { Origin: "https://console.example.com", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "mcp-protocol-version, content-type" } });
  assert.equal(pre.status, 204);
  for (const h of ["MCP-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID", "Authorization"]) assert.match(pre.headers.get("access-control-allow-headers"), new RegExp(h));
  // Token: missing, wrong, right.
  assert.equal((await rpc(locked, "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" })).status, 401);
  const wrong = await rpc(locked, "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, { Authorization: "Bearer s3cret-tokeN" });
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get("www-authenticate"), /^Bearer/);
  assert.equal((await rpc(locked, "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, authOK)).status, 200);
  // A body over 1 MiB.
  assert.equal((await rpc(open, "/mcp", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(1 << 20) } }))).status, 413);
  await ok();
  // A malformed frame, a batch, no method: 400 with the JSON-RPC error.
  for (const [body, code] of [["{\"jsonrpc\":\"2.0\",\"id\":1,", -32700], ["[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", -32600], ["{\"jsonrpc\":\"2.0\",\"id\":1}", -32600], ["", -32700]]) {
    const r = await rpc(open, "/mcp", body);
    assert.equal(r.status, 400, body);
    assert.equal(JSON.parse(r.text).error.code, code);
    await ok();
  }
  // Not JSON by Content-Type, or not accepting JSON.
  assert.equal((await rpc(open, "/mcp", "{}", { "content-type": "text/plain" })).status, 415);
  assert.equal((await rpc(open, "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, { accept: "text/event-stream" })).status, 406);
  // A stale session id is served and never echoed.
  const stale = await rpc(open, "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, { "Mcp-Session-Id": "a-session-from-yesterday", "MCP-Protocol-Version": "2025-06-18" });
  assert.equal(stale.status, 200);
  assert.equal(stale.headers.get("mcp-session-id"), null);
  // A protocol revision the server does not speak: 400, as the CLI's server answers it.
  const future = await rpc(open, "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, { "MCP-Protocol-Version": "1999-01-01" });
  assert.equal(future.status, 400);
  assert.match(JSON.parse(future.text).error.message, /MCP-Protocol-Version "1999-01-01" is not a revision this server speaks \(2026-07-28, /);
  await ok();
  // A notification: 202, no body.
  const note = await rpc(open, "/mcp", { jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(note.status, 202);
  assert.equal(note.text, "");
  // No stream to open and no session to delete.
  for (const method of ["GET", "DELETE"]) {
    const r = await fetch(open.url + "mcp", { method });
    assert.equal(r.status, 405, method);
    assert.equal(r.headers.get("allow"), "POST");
  }
  // An unknown repository.
  assert.equal((await rpc(open, "/v1/repos/nope/mcp", { jsonrpc: "2.0", id: 1, method: "ping" })).status, 404);
  // Many at once: every one answered.
  const many = await Promise.all(Array.from({ length: 1000 }, (_, i) => rpc(open, "/mcp", call(i, "ctx_governing", { paths: ["src/billing/tax/vat.go"] }))));
  assert.deepEqual([...new Set(many.map((r) => r.status))], [200]);
  await ok();
});
