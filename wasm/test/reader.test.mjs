// The reader engine (kontext-reader.wasm, loadEngine({reader: true})): the
// same engine without the parsers. On a bundle that carries its compiled
// snapshot it answers every read exactly like the full engine; whatever
// would need a parser — files without a snapshot, a file changed since the
// snapshot was built, a corrupt snapshot, render — is refused with
// unsupported_operation, never answered differently.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

import { loadEngine, KontextError } from "../index.js";
import { demoBundle, demoRepo, DEMO_READS, demoFiles, nativeBin, NOW, repoRoot } from "./helpers.mjs";

const full = await loadEngine({ wasm: pathToFileURL(join(repoRoot, "wasm", "kontext.wasm")) });
const reader = await loadEngine({ wasm: pathToFileURL(join(repoRoot, "wasm", "kontext-reader.wasm")) });
const bundle = demoBundle();
const READS = [
  ...DEMO_READS,
  ["entries.list", { kinds: ["decision"], active_only: true, view: "compact" }],
  ["entries.get", { id: "ADR-4" }],
  ["entries.governing", { paths: ["src/billing/tax/vat.go"], min_specificity: 2 }],
  ["entries.get", { id: "no-such-entry" }], // not_found, after reading
];

const isUnsupported = (err) => err instanceof KontextError && err.code === "unsupported_operation" && /reader engine/.test(err.message);

test("the reader engine says it has no parser; the full engine says it has one", () => {
  assert.equal(reader.parser, false);
  assert.equal(reader.abi().parser, false);
  assert.equal(full.parser, true);
  assert.deepEqual(reader.abi().operations, full.abi().operations, "the same operations");
});

test("loadEngine({reader: true}) loads the package's kontext-reader.wasm", { skip: !existsSync(join(repoRoot, "wasm", "kontext-reader.wasm")) }, async () => {
  const e = await loadEngine({ reader: true });
  assert.equal(e.parser, false);
  assert.equal((await loadEngine()).parser, true);
});

test("on a bundle with its snapshot the reader answers every read like the full engine", () => {
  for (const immutable of [false, true]) {
    const a = full.openBundle(bundle, { now: NOW, immutable });
    const b = reader.openBundle(bundle, { now: NOW, immutable });
    for (const [op, input] of READS) {
      const want = a.request(op, input);
      assert.deepEqual(b.request(op, input), want, `${op} ${JSON.stringify(input)} immutable=${immutable}`);
    }
    // Every operation of the read subset, with an empty input (answers and
    // errors alike).
    for (const op of full.abi().operations) {
      assert.deepEqual(b.request(op, {}), a.request(op, {}), `${op} {}`);
    }
    assert.equal(b.snapshot, a.snapshot);
    a.close();
    b.close();
  }
});

test("files without a snapshot are refused at open", () => {
  assert.throws(() => reader.open({ files: demoFiles() }), isUnsupported);
  assert.throws(() => reader.openBundle({ ...bundle, snapshot: undefined }), isUnsupported);
  assert.throws(() => reader.openBundle(bundle, { base: true }), (err) => err instanceof KontextError);
  assert.throws(() => reader.render("# x"), isUnsupported);
  // An empty knowledge base needs no parser.
  assert.equal(reader.open({ files: {} }).request("entries.list", {}).ok, true);
});

test("a file changed since the snapshot was built is an error, not a different answer", () => {
  const name = Object.keys(bundle.files).find((f) => f.endsWith("money-is-integer-cents.md"));
  assert.ok(name, "the demo's money entry");
  const edited = { ...bundle, files: { ...bundle.files, [name]: bundle.files[name] + "\nEdited after the bundle was built.\n" } };
  const got = full.openBundle(edited, { now: NOW }).request("entries.get", { id: "2026-01-12-money-is-integer-cents" });
  assert.equal(got.ok, true);
  assert.match(got.result.body, /Edited after the bundle was built/, "the full engine parses the changed file");
  const kb = reader.openBundle(edited, { now: NOW, immutable: true });
  for (const [op, input] of READS) {
    assert.equal(full.openBundle(bundle, { now: NOW }).request(op, input).ok, op !== "entries.get" || input.id !== "no-such-entry", `${op} is a read that answers`);
    const env = kb.request(op, input);
    assert.equal(env.ok, false, `${op}: answered without the changed file`);
    assert.equal(env.error.code, "unsupported_operation");
    assert.ok(env.error.message.includes(name), env.error.message);
  }
});

test("a snapshot that is not one (corrupt, or not base64) is an error, not an answer", () => {
  for (const snapshot of ["%%% not base64 %%%", Buffer.from("a snapshot of nothing at all").toString("base64"), bundle.snapshot.slice(0, 200)]) {
    let env;
    try {
      env = reader.openBundle({ ...bundle, snapshot }).request("entries.list", {});
    } catch (err) {
      assert.ok(isUnsupported(err), String(err));
      continue;
    }
    assert.equal(env.ok, false, `answered from snapshot ${snapshot.slice(0, 20)}…`);
    assert.equal(env.error.code, "unsupported_operation");
  }
});

test("update() of an entry file in the reader engine makes reads fail (it cannot parse the new text)", () => {
  const name = Object.keys(bundle.files).find((f) => f.endsWith("money-is-integer-cents.md"));
  const kb = reader.openBundle(bundle, { now: NOW });
  assert.equal(kb.request("entries.list", { limit: 500 }).ok, true);
  kb.update({ files: { [name]: bundle.files[name] + "\nOne more line.\n" } });
  const env = kb.request("entries.list", { limit: 500 });
  assert.equal(env.ok, false);
  assert.equal(env.error.code, "unsupported_operation");
  assert.ok(env.error.message.includes(name), env.error.message);
});

test("the configuration and the path overlay are read from the snapshot's records; an edited one is refused", (t) => {
  // The demo with a committed path overlay: the reader has no TOML parser,
  // so both TOML files must come from what the bundle's snapshot recorded.
  const dir = mkdtempSync(join(tmpdir(), "kontext-reader-toml-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(demoRepo(), dir, { recursive: true });
  const id = "2026-01-12-money-is-integer-cents";
  writeFileSync(join(dir, ".ai", "paths.toml"), `version = 1\n\n[paths]\n"${id}" = ["overlay/only/**"]\n`);
  const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
  const git = (...args) => execFileSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { env, stdio: "ignore" });
  git("add", ".ai/paths.toml");
  git("commit", "-q", "-m", "overlay");
  const built = JSON.parse(execFileSync(nativeBin(), ["-C", dir, "api", "bundle.build", "{}"], { env: { ...env, KONTEXT_NOW: NOW }, encoding: "utf8" }));
  assert.equal(built.ok, true, JSON.stringify(built.error));
  const b = built.result;
  assert.ok(b.files[".ai/paths.toml"] && b.files[".kontext.toml"], "the bundle carries both TOML files");
  const reads = [...READS, ["entries.governing", { paths: ["overlay/only/x.go"] }]];
  const a = full.openBundle(b, { now: NOW, immutable: true });
  const r = reader.openBundle(b, { now: NOW, immutable: true });
  for (const [op, input] of reads) {
    assert.deepEqual(r.request(op, input), a.request(op, input), `${op} ${JSON.stringify(input)}`);
  }
  const gov = r.request("entries.governing", { paths: ["overlay/only/x.go"] });
  assert.ok(gov.ok && gov.result.entries.some((e) => e.id === id), "the overlay's path is governed by its entry in the reader");
  for (const name of [".ai/paths.toml", ".kontext.toml"]) {
    const edited = { ...b, files: { ...b.files, [name]: b.files[name] + "\n# edited after the bundle was built\n" } };
    const got = reader.openBundle(edited, { now: NOW, immutable: true }).request("entries.governing", { paths: ["overlay/only/x.go"] });
    assert.equal(got.ok, false, `${name} edited: answered`);
    assert.equal(got.error.code, "unsupported_operation");
    assert.ok(got.error.message.includes(name), got.error.message);
    assert.equal(full.openBundle(edited, { now: NOW }).request("entries.governing", { paths: ["overlay/only/x.go"] }).ok, true, "the full engine parses it");
  }
});

test("layout: the defaults need no parser; a configuration text only as an opened snapshot recorded it", () => {
  assert.deepEqual(reader.layout(), full.layout());
  assert.throws(() => reader.layout("version = 1\n# a text no snapshot recorded\n"), isUnsupported);
  const config = bundle.files[".kontext.toml"];
  assert.ok(config, "the demo has a configuration");
  reader.openBundle(bundle, { now: NOW }).request("status", {}); // its snapshot records the text
  assert.deepEqual(reader.layout(config), full.layout(config));
});
