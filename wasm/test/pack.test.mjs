// The npm pack tarball installs into an empty project (no dependencies, no
// network) and `import("@kontext/engine")` there answers like the CLI.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { demoDir, demoFiles, repoRoot, native, normalise, packTarball, NOW } from "./helpers.mjs";

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

test("the tarball is a real package: README, licenses, one raw wasm, SPDX license, typed API", () => {
  const tgz = packTarball();
  const listing = execFileSync("tar", ["tzf", tgz], { encoding: "utf8" }).trim().split("\n").sort();
  assert.deepEqual(listing, [
    "package/LICENSE-APACHE",
    "package/LICENSE-MIT",
    "package/README.md",
    "package/index.d.ts",
    "package/index.js",
    "package/kontext.wasm",
    "package/node.js",
    "package/package.json",
    "package/wasm_exec.js",
    "package/worker/worker.d.ts",
    "package/worker/worker.js",
  ]);
  const pkg = JSON.parse(execFileSync("tar", ["xzOf", tgz, "package/package.json"], { encoding: "utf8" }));
  assert.equal(pkg.license, "MIT OR Apache-2.0");
  assert.equal(pkg.types, "./index.d.ts");
  assert.ok(pkg.repository && pkg.repository.url, "repository");
  assert.ok(pkg.engines && pkg.engines.node, "engines");
});

// The installed package type-checks a TypeScript consumer (tsc --noEmit from
// the workspace's typescript) and the same program runs: typed inputs and
// results per operation, openDirectory over the demo repository, openBundle.
test("a TypeScript consumer of the installed tarball compiles with tsc --noEmit and runs", () => {
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  if (!existsSync(tsc)) {
    assert.fail("node_modules/typescript is missing: run npm ci");
  }
  const tgz = packTarball();
  const dir = mkdtempSync(join(tmpdir(), "kontext-ts-"));
  try {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tgz], { cwd: dir, stdio: "pipe" });
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { target: "ES2022", module: "ES2022", moduleResolution: "node", strict: true, noEmit: true, lib: ["ES2022", "DOM"], types: [] }, files: ["main.ts"] }),
    );
    const main = `import { loadEngine, KontextError, type Envelope, type GoverningInput, type GoverningResult } from "@kontext/engine";
const engine = await loadEngine();
const kb = await engine.openDirectory(${JSON.stringify(demoDir)}, { now: ${JSON.stringify(NOW)} });
const res: Envelope<GoverningResult> = kb.request("entries.governing", { paths: ["src/billing/tax/vat.go"] });
if (!res.ok) throw new Error(res.error.message);
// The full view (the default) always has entries; the compact view has items instead.
const entries = res.result.entries ?? [];
const ids: string[] = entries.map((e) => e.id);
const spec: number | undefined = entries[0].specificity;
const compact = kb.request("entries.governing", { paths: ["src/billing/tax/vat.go"], view: "compact" });
if (!compact.ok || compact.result.entries !== undefined || (compact.result.items ?? []).length !== ids.length) throw new Error("compact view");
// @ts-expect-error: entries.governing takes paths, not a path
const bad: GoverningInput = { path: "x" };
const bundle = { schema: "kontext.bundle/v2", files: {} };
let refused = "";
try { engine.openBundle(JSON.stringify(bundle)); } catch (e) { if (e instanceof KontextError) refused = e.code; }
const parser: boolean = engine.parser;
console.log(JSON.stringify({ ids, spec, refused, total: res.result.total, bad: bad !== null, parser }));
`;
    writeFileSync(join(dir, "main.ts"), main);
    const check = spawnSync(process.execPath, [tsc, "-p", "."], { cwd: dir, encoding: "utf8" });
    assert.equal(check.status, 0, `tsc --noEmit:\n${check.stdout}${check.stderr}`);
    // Strip the types (tsc already checked them) and run the same program.
    writeFileSync(join(dir, "tsconfig.run.json"), JSON.stringify({ extends: "./tsconfig.json", compilerOptions: { noEmit: false, outDir: "out" } }));
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.run.json"], { cwd: dir, stdio: "pipe" });
    const out = JSON.parse(execFileSync(process.execPath, [join("out", "main.js")], { cwd: dir, encoding: "utf8" }));
    assert.ok(out.ids.includes("2026-01-14-vat-is-rounded-per-line"), JSON.stringify(out));
    assert.equal(out.ids[0], "2026-01-23-reverse-charge-needs-the-buyer-vat-id");
    assert.equal(out.spec, 5);
    assert.equal(out.refused, "unsupported_bundle");
    assert.equal(out.parser, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
