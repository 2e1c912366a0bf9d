// The npm pack tarball installs into an empty project (no dependencies, no
// network) and `import("@kontext/engine")` there answers like the CLI.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { demoFiles, native, normalise, packTarball, NOW } from "./helpers.mjs";

test("npm pack output installs and answers entries.governing like the CLI", () => {
  const tgz = packTarball();
  const dir = mkdtempSync(join(tmpdir(), "kontext-pack-"));
  try {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tgz], { cwd: dir, stdio: "pipe" });
    const input = { paths: ["src/billing/tax/vat.go", "src/export/nightly.go"] };
    writeFileSync(join(dir, "files.json"), JSON.stringify(demoFiles()));
    writeFileSync(
      join(dir, "main.js"),
      `import { loadEngine } from "@kontext/engine";
import { readFileSync } from "node:fs";
const engine = await loadEngine();
const kb = engine.open({ files: JSON.parse(readFileSync("files.json", "utf8")), now: ${JSON.stringify(NOW)} });
process.stdout.write(JSON.stringify(kb.request("entries.governing", ${JSON.stringify(input)})));
`,
    );
    const out = execFileSync(process.execPath, ["main.js"], { cwd: dir, encoding: "utf8" });
    const got = JSON.parse(out);
    assert.equal(got.ok, true);
    assert.equal(normalise("entries.governing", got), normalise("entries.governing", native("entries.governing", input)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
