// The official MCP conformance suite against the edge worker's /mcp on a
// local workerd (`kontext edge serve`), through the suite runner
// build/conformance.mjs (which pins what must pass and what does not apply,
// with the reasons; it takes the server's URL or, as here, the command that
// prints it). The worker passes server-initialize, ping, tools-list,
// logging-set-level, resources-list, prompts-list and
// dns-rebinding-protection (a foreign Origin is 403; a loopback one the
// request was sent to is served).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { demoRepo, nativeBin, nativeEnv, repoRoot } from "../../test/helpers.mjs";

test("the MCP conformance suite passes on the edge worker's /mcp", () => {
  const runner = join(repoRoot, "build", "conformance.mjs");
  assert.ok(existsSync(runner), "build/conformance.mjs (the suite runner of kontext mcp --http) is missing");
  const work = mkdtempSync(join(tmpdir(), "kontext-edge-conformance-"));
  try {
    const env = { ...nativeEnv, KONTEXT_ASSETS: process.env.KONTEXT_ASSETS ?? repoRoot };
    for (const k of ["KONTEXT_TOKEN", "KONTEXT_CORS_ORIGINS", "KONTEXT_STORE_REPOS"]) delete env[k];
    const bundle = join(work, "demo.json");
    execFileSync(nativeBin(), ["-C", demoRepo(), "bundle", "-o", bundle], { env, stdio: "ignore" });
    const r = spawnSync(process.execPath, [runner, "--", nativeBin(), "edge", "serve", "--bundle", bundle, "--port", "0"], { cwd: repoRoot, env, encoding: "utf8", timeout: 600_000 });
    assert.equal(r.status, 0, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
    for (const s of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) assert.match(r.stdout, new RegExp(`^pass  ${s}$`, "m"));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
