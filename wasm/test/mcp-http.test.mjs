// MCP over HTTP from Node: the official TypeScript SDK's client (npm
// @modelcontextprotocol/sdk, a root devDependency) calls ctx_governing on
// `kontext mcp --http` (Streamable HTTP, sessionless) and on `kontext mcp`
// over stdio, and gets the same answer, byte for byte, on the demo
// repository and on a 1,000-entry one. (The Go SDK's client, every status
// and the limits are internal/mcpserver's Go tests; the conformance suite is
// make test-mcp-http.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { demoRepo, nativeBin, nativeEnv, repoRoot } from "./helpers.mjs";

const work = mkdtempSync(join(tmpdir(), "kontext-mcp-http-test-"));
const bin = nativeBin();
const env = { ...nativeEnv };
delete env.KONTEXT_MCP_TOKEN;
const big = join(work, "big");
const bigPaths = JSON.parse(execFileSync("go", ["run", "./build/benchrepo", big, "1000"], { cwd: repoRoot, env, encoding: "utf8" })).paths;

const repos = {
  demo: { dir: demoRepo(), calls: [{ paths: ["src/billing/tax/vat.go"] }, { paths: ["src/billing/tax/vat.go"], detail: true }, { paths: ["../outside"] }] },
  big: { dir: big, calls: [{ paths: [bigPaths[0]] }, { paths: bigPaths.slice(0, 20), detail: true }] },
};

const servers = [];
after(() => {
  for (const s of servers) s.kill("SIGINT");
  rmSync(work, { recursive: true, force: true });
});

// serve starts `kontext mcp --http 127.0.0.1:0` on dir and resolves to its URL.
function serve(dir) {
  const proc = spawn(bin, ["-C", dir, "mcp", "--http", "127.0.0.1:0"], { env, stdio: ["ignore", "pipe", "pipe"] });
  servers.push(proc);
  let out = "";
  let err = "";
  proc.stderr.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    proc.on("exit", (code) => reject(new Error(`kontext mcp --http exited (${code}): ${err}`)));
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /http:\/\/\S+\/mcp(?=\s)/.exec(out);
      if (m) resolve(m[0]);
    });
  });
}

async function connect(transport) {
  const client = new Client({ name: "node-test", version: "0" });
  await client.connect(transport);
  return client;
}

for (const [name, repo] of Object.entries(repos)) {
  test(`ctx_governing over HTTP equals stdio: ${name}`, async () => {
    const url = await serve(repo.dir);
    const overHTTP = await connect(new StreamableHTTPClientTransport(new URL(url)));
    const overStdio = await connect(new StdioClientTransport({ command: bin, args: ["-C", repo.dir, "mcp"], env }));
    try {
      assert.equal(overHTTP.transport.sessionId, undefined, "a sessionless server sets no Mcp-Session-Id");
      for (const args of repo.calls) {
        const h = await overHTTP.callTool({ name: "ctx_governing", arguments: args });
        const s = await overStdio.callTool({ name: "ctx_governing", arguments: args });
        assert.equal(JSON.stringify(h), JSON.stringify(s), `ctx_governing ${JSON.stringify(args)}`);
        assert.ok(h.structuredContent?.schema_version === 1, JSON.stringify(h).slice(0, 200));
      }
    } finally {
      await overHTTP.close();
      await overStdio.close();
    }
  });
}
