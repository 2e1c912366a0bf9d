// Contract parity: for every operation the WASM engine serves and a set of
// inputs (error cases included), the WASM answer equals the native
// `kontext api` answer on the same files byte for byte, after normalise()
// (helpers.mjs) — the one documented place where answers may differ.
import { test } from "node:test";
import assert from "node:assert/strict";

import { loadEngine } from "../node.js";
import { demoFiles, native, normalise, NOW } from "./helpers.mjs";

const engine = await loadEngine();
const kb = engine.open({ files: demoFiles(), now: NOW });

const cases = {
  status: [{}, { bogus: 1 }, "[]"],
  "api.describe": [{}, { operation: "entries.governing" }, { operation: "entries.list" }, { operation: "nope" }],
  "entries.list": [
    {}, { limit: 3 }, { limit: 4, offset: 5 }, { active_only: true }, { kinds: ["decision"] }, { kinds: ["adr", "learning"] },
    { tags: ["billing"] }, { limit: 0 }, { limit: 501 }, { offset: -1 }, { kinds: ["bogus"] }, { unknown: true }, { limit: "3" }, "{bad json", "",
    { limit: 3, view: "compact" }, { view: "short" }, { cursor: "not-a-cursor" }, { offset: 2, cursor: "x" },
  ],
  "entries.get": [
    { id: "2026-01-12-money-is-integer-cents" }, { id: "2026-01-12" }, { id: "3" }, { id: "ADR-5" }, { id: "0002" },
    { id: ".ai/decisions/2026-01-14-vat-is-rounded-per-line.md" }, { id: ".cursor/rules/project" }, { id: "nope" }, {}, { id: 7 },
  ],
  "entries.search": [
    { query: "rounding" }, { query: "export cron", limit: 3 }, { query: "sessions", active_only: true }, { query: "zzzz-nothing" }, {}, { query: "vat", limit: 0 },
    { query: "rounding", limit: 2, view: "compact" }, { query: "rounding", view: "short" }, { query: "rounding", cursor: "not-a-cursor" },
  ],
  "entries.governing": [
    { paths: ["src/billing/tax/vat.go"] },
    { paths: ["src/billing/tax/vat.go", "src/export/nightly.go", "src/export/testdata/invoices.golden.csv", "web/app.ts", "README.md"] },
    { paths: ["src/billing/money.go"], min_specificity: 2 },
    { paths: ["src/billing/money.go"], exclude_ids: ["2026-01-12-money-is-integer-cents"], limit: 2 },
    { paths: ["nothing/here.txt"] }, { paths: [] }, {}, { paths: "src" }, { paths: ["src/a.go"], limit: 0 },
    { paths: ["src/billing/tax/vat.go"], view: "compact", limit: 3 },
    { paths: ["src/billing/tax/vat.go", "src/export/nightly.go"], view: "compact" },
    { paths: ["src/billing/tax/vat.go"], view: "short" }, { paths: ["src/billing/tax/vat.go"], cursor: "not-a-cursor" },
    { paths: ["src/billing/tax/vat.go"], client: "cursor" }, { paths: ["web/app.ts"], client: "codex", cwd: "web", view: "compact" },
    { paths: ["src/billing/tax/vat.go"], client: "claude", cwd: "src/billing" }, { paths: ["src/a.go"], client: "vim" },
    { paths: ["src/a.go"], cwd: "src" },
  ],
  "context.cost": [
    { paths: ["src/billing/tax/vat.go", "web/app.ts"] }, { paths: ["src/billing/tax/vat.go"], client: "gemini", cwd: "src" },
    { paths: ["src/a.go"], client: "vim" }, { paths: ["src/a.go"], diff: "HEAD" },
  ],
  "entries.related": [
    { text: "VAT must be rounded per invoice line" }, { paths: ["src/export/nightly.go"] },
    { text: "sessions in redis", paths: ["src/auth/session.go"], exclude_ids: ["2026-11-16-move-sessions-to-redis"] },
    {}, { text: "x", llm: true },
  ],
  "context.brief": [
    { paths: ["src/billing/tax/vat.go"] },
    { paths: ["src/billing/tax/vat.go", "src/export/nightly.go", "web/app.ts"], budget_lines: 40, architecture: true },
    { paths: ["src/billing/tax/vat.go"], view: "compact" },
    { paths: ["nothing/here.txt"] }, { paths: ["a"], diff: "main" }, { budget_lines: 0 }, { paths: "src" },
  ],
  "rules.lint": [{}, { client: "cursor" }, { client: "vim" }],
  "no.such.operation": [{}],
};

test("every served operation has parity cases", () => {
  for (const op of engine.abi().operations) assert.ok(cases[op], `no parity cases for ${op}`);
});

for (const [op, inputs] of Object.entries(cases)) {
  test(`parity: ${op}`, () => {
    for (const input of inputs) {
      const wasm = kb.request(op, input);
      const nat = native(op, input);
      assert.equal(normalise(op, wasm), normalise(op, nat), `${op} ${JSON.stringify(input)}`);
    }
  });
}

test("parity: the normalised fields are really the snapshot's", () => {
  const st = kb.request("status", {}).result;
  assert.equal(st.revision, null);
  assert.equal(st.config_source.kind, "snapshot");
  const nst = native("status", {}).result;
  assert.equal(nst.config_source.kind, "committed");
  assert.match(nst.revision, /^[0-9a-f]{40}$/);
});
