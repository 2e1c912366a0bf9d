// The WASM engine answers what each coding agent loads (entries.governing
// with client and cwd) and the context cost, as the native engine does:
// the same clientLoad over the same entries (engine/clients.go).
import { test } from "node:test";
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

import { loadEngine } from "../node.js";
import { NOW, repoRoot } from "./helpers.mjs";

const engine = await loadEngine({ wasm: pathToFileURL(join(repoRoot, "wasm", "kontext.wasm")) });

const config = `version = 1
[kinds.convention]
dir = ".ai/conventions"
[[kinds.convention.include]]
dir = "."
style = "agents"
[[kinds.convention.include]]
dir = ".github"
style = "copilot"
`;

// services/AGENTS.md is large: the Codex chain from the root to
// services/billing reaches 32 KiB inside services/billing/AGENTS.md.
const files = {
  ".kontext.toml": config,
  "AGENTS.md": "# Project\n\nRun the checks.\n",
  "services/AGENTS.md": "# Services\n\n" + "Services answer with JSON errors.\n".repeat(930),
  "services/billing/AGENTS.md": "# Billing\n\n" + "Round per line.\n".repeat(200),
  "services/billing/CLAUDE.md": "# Billing for Claude\n\nCents.\n",
  ".github/copilot-instructions.md": "# Copilot\n\nGo.\n",
  ".github/instructions/svc.instructions.md": '---\napplyTo: "services/**"\nexcludeAgent: "code-review"\n---\n# Services\n\nTest first.\n',
};

function ok(env) {
  assert.equal(env.ok, true, JSON.stringify(env.error));
  return env.result;
}

test("governing with a client: load order, cut and not-loaded", () => {
  const kb = engine.open({ files, now: NOW });
  const codex = ok(kb.request("entries.governing", { paths: ["services/billing/invoice.go"], client: "codex", cwd: "services/billing" }));
  assert.equal(codex.client.client, "codex");
  assert.equal(codex.client.cwd, "services/billing");
  const loads = codex.entries.map((e) => [e.file, e.load]);
  assert.deepEqual(loads.slice(0, 3), [
    ["AGENTS.md", "always"],
    ["services/AGENTS.md", "always"],
    ["services/billing/AGENTS.md", "cut"],
  ]);
  const cut = codex.entries[2];
  const before = files["AGENTS.md"].length + files["services/AGENTS.md"].length;
  assert.equal(cut.bytes_loaded, 32 * 1024 - before);
  assert.match(cut.reason, /32 KiB/);
  assert.ok(codex.entries.slice(3).every((e) => e.load === "not-loaded"));

  const review = ok(kb.request("entries.governing", { paths: ["services/billing/invoice.go"], client: "copilot-review", view: "compact" }));
  const svc = review.items.find((e) => e.file === ".github/instructions/svc.instructions.md");
  assert.equal(svc.load, "not-loaded");
  assert.match(svc.reason, /excludeAgent: "code-review"/);

  const claude = ok(kb.request("entries.governing", { paths: ["services/billing/invoice.go"], client: "claude" }));
  assert.deepEqual(claude.entries.filter((e) => e.load !== "not-loaded").map((e) => [e.file, e.load]), [["services/billing/CLAUDE.md", "on-demand"]]);

  // without a client: unchanged, no load and no client
  const plain = ok(kb.request("entries.governing", { paths: ["services/billing/invoice.go"] }));
  assert.equal(plain.client, undefined);
  assert.ok(plain.entries.every((e) => e.load === undefined));
  kb.close();
});

test("context.cost with paths; diff needs a native surface", () => {
  const kb = engine.open({ files, now: NOW });
  const cost = ok(kb.request("context.cost", { paths: ["services/billing/invoice.go"], cwd: "services/billing" }));
  assert.equal(cost.estimator, "bytes/4");
  assert.deepEqual(cost.clients.map((c) => c.client), ["codex", "cursor", "copilot", "copilot-review", "claude", "gemini"]);
  const codex = cost.clients[0];
  assert.equal(codex.bytes, 32 * 1024);
  assert.equal(codex.tokens, 8192);
  assert.deepEqual(codex.cut.map((f) => f.file), ["services/billing/AGENTS.md"]);
  const env = kb.request("context.cost", { diff: "HEAD~1" });
  assert.equal(env.ok, false);
  assert.equal(env.error.code, "invalid_input");
  assert.match(env.error.message, /native surface/);
  kb.close();
});
