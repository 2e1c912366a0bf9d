// The npm package through its public API: open/request/update/close,
// errors, inspect, changed, abi and memory across open/close cycles.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { join } from "node:path";

import { loadEngine, KontextError } from "../node.js";
import { demoFiles, NOW, repoRoot } from "./helpers.mjs";

const wasmPath = join(repoRoot, "wasm", "kontext.wasm");
const engine = await loadEngine({ wasm: pathToFileURL(wasmPath) });
const files = demoFiles();
const READ_SUBSET = ["api.describe", "context.brief", "context.cost", "entries.get", "entries.governing", "entries.list", "entries.related", "entries.search", "rules.lint", "status"];

function ok(env) {
  assert.equal(env.schema_version, 1);
  assert.equal(env.ok, true, JSON.stringify(env.error));
  return env.result;
}

function fails(env, code) {
  assert.equal(env.schema_version, 1);
  assert.equal(env.ok, false);
  assert.equal(env.error.code, code, env.error.message);
  return env.error;
}

test("loads from every kind of source", async () => {
  const bytes = readFileSync(wasmPath);
  const sources = [
    bytes,
    new Uint8Array(bytes).buffer,
    gzipSync(bytes),
    await WebAssembly.compile(bytes),
    wasmPath,
    pathToFileURL(wasmPath).href,
    new Response(bytes, { headers: { "content-type": "application/wasm" } }), // compiled while it streams
    Promise.resolve(new Response(bytes, { headers: { "content-type": "application/wasm" } })),
    new Response(gzipSync(bytes), { headers: { "content-type": "application/gzip" } }), // read whole
    // gzip bytes served as wasm without Content-Encoding: the streaming
    // compile fails, the bytes are read again and gunzipped
    new Response(gzipSync(bytes), { headers: { "content-type": "application/wasm" } }),
  ];
  for (const wasm of sources) {
    const e = await loadEngine({ wasm });
    assert.equal(e.abi().abi, 1);
  }
  const dflt = await loadEngine();
  assert.deepEqual(dflt.abi().operations, READ_SUBSET);
  await assert.rejects(loadEngine({ wasm: 42 }), TypeError);
});

test("abi", () => {
  const abi = engine.abi();
  assert.equal(abi.abi, 1);
  assert.match(abi.version, /^\d+\.\d+\.\d+/);
  assert.deepEqual(abi.operations, READ_SUBSET);
  assert.deepEqual(abi.functions, ["abi", "open", "update", "close", "request", "changed", "inspect", "render", "layout", "stage", "mcp", "memory"]);
});

test("render: entry Markdown to safe HTML", () => {
  const r = engine.render("## Context\n\nSee [[2026-01-12-money-is-integer-cents]] and `cmd/export`.\n");
  assert.equal(r.plain, false);
  assert.equal(r.html, '<h2>Context</h2>\n<p>See <a class="wikilink" data-entry-id="2026-01-12-money-is-integer-cents">2026-01-12-money-is-integer-cents</a> and <code>cmd/export</code>.</p>\n');
  const evil = engine.render('<script>alert(1)</script>\n\n<img src=x onerror="alert(1)"> [x](javascript:alert(1))\n').html;
  assert.doesNotMatch(evil, /<script|<img|onerror|href="javascript/i);
  assert.match(evil, /<a href="">x<\/a>/);
  // 3,000 backticks: an (empty) fenced code block, or literal text inside a paragraph.
  assert.equal(engine.render("`".repeat(3000)).html, "<pre><code></code></pre>\n");
  assert.equal(engine.render("a " + "`".repeat(3000) + " b").html, "<p>a " + "`".repeat(3000) + " b</p>\n");
  assert.throws(() => engine.render(42), (err) => err instanceof KontextError && err.code === "invalid_input");
  assert.throws(() => engine.render(), (err) => err instanceof KontextError && err.code === "invalid_input");
});

test("status: the read subset over a snapshot", () => {
  const kb = engine.open({ files, now: NOW, revision: "0123456789abcdef0123456789abcdef01234567" });
  const st = ok(kb.request("status", {}));
  // The read operations plus the capability strings of the compact view and cursor pages.
  assert.deepEqual(st.capabilities, [...READ_SUBSET, "entries.governing.client", ...["governing", "list", "search"].flatMap((o) => [`entries.${o}.cursor`, `entries.${o}.view`])].sort());
  assert.equal(st.revision, "0123456789abcdef0123456789abcdef01234567");
  assert.equal(st.root, "");
  assert.deepEqual(st.config_source, { kind: "snapshot", path: ".kontext.toml" });
  assert.equal(st.snapshot, kb.snapshot);
  assert.ok(st.counts.decision);
  kb.close();
});

test("entries.list/get/search/governing/related on the demo", () => {
  const kb = engine.open({ files, now: NOW });
  const list = ok(kb.request("entries.list", { limit: 5 }));
  assert.equal(list.entries.length, 5);
  assert.ok(list.total > 15);
  assert.equal(list.next_offset, 5);
  assert.equal(list.entries[0].publication.state, "snapshot");

  const got = ok(kb.request("entries.get", { id: "2026-01-12-money-is-integer-cents" }));
  assert.equal(got.title, "Money is integer cents");
  assert.equal(ok(kb.request("entries.get", { id: "3" })).adr_number, 3);

  const found = ok(kb.request("entries.search", { query: "rounding" }));
  assert.ok(found.entries.some((e) => e.id === "2026-01-14-vat-is-rounded-per-line"));

  const gov = ok(kb.request("entries.governing", { paths: ["src/billing/tax/vat.go"] }));
  const ids = gov.entries.map((e) => e.id);
  assert.equal(ids[0], "2026-01-23-reverse-charge-needs-the-buyer-vat-id");
  assert.ok(ids.includes("2026-01-14-vat-is-rounded-per-line"));
  assert.equal(gov.entries[0].specificity, 5);

  // The compact view lists its page in items and sends no entries key; the
  // full view always sends entries ([] when nothing matches).
  const small = ok(kb.request("entries.governing", { paths: ["src/billing/tax/vat.go"], view: "compact" }));
  assert.equal("entries" in small, false);
  assert.deepEqual(small.items.map((e) => e.id), ids);
  const none = { query: "qqzzyzxq" };
  assert.deepEqual(ok(kb.request("entries.search", none)).entries, []);
  const noneCompact = ok(kb.request("entries.search", { ...none, view: "compact" }));
  assert.equal("entries" in noneCompact, false);
  assert.deepEqual(noneCompact.items, []);

  const rel = ok(kb.request("entries.related", { text: "VAT rounding per invoice line", paths: ["src/billing/tax/vat.go"] }));
  assert.ok(rel.candidates.some((c) => c.id === "2026-01-14-vat-is-rounded-per-line"), JSON.stringify(rel.candidates.map((c) => c.id)));
  kb.close();
});

test("update changes answers and the snapshot", () => {
  const kb = engine.open({ files, now: NOW });
  const before = kb.snapshot;
  const path = "src/payments/stripe.go";
  assert.equal(ok(kb.request("entries.governing", { paths: [path] })).entries.some((e) => e.id === "payments-are-idempotent"), false);
  const res = kb.update({
    files: { ".ai/decisions/payments-are-idempotent.md": '---\nstatus: accepted\npaths: ["src/payments/**"]\n---\n# Payments are idempotent\n\nUse idempotency keys.\n' },
  });
  assert.deepEqual(res, { written: [".ai/decisions/payments-are-idempotent.md"], removed: [] });
  assert.notEqual(kb.snapshot, before);
  const gov = ok(kb.request("entries.governing", { paths: [path] }));
  assert.ok(gov.entries.some((e) => e.id === "payments-are-idempotent"));

  // Same size, same name, new content: the cache must not serve the old parse.
  kb.update({ files: { ".ai/decisions/payments-are-idempotent.md": '---\nstatus: accepted\npaths: ["src/paymentz/**"]\n---\n# Payments are idempotent\n\nUse idempotency keys.\n' } });
  assert.equal(ok(kb.request("entries.governing", { paths: [path] })).entries.some((e) => e.id === "payments-are-idempotent"), false);

  kb.update({ remove: [".ai/decisions/payments-are-idempotent.md"] });
  fails(kb.request("entries.get", { id: "payments-are-idempotent" }), "not_found");
  assert.equal(kb.snapshot, before);

  assert.throws(() => kb.update({ files: { "../escape.md": "x" } }), (e) => e instanceof KontextError && e.code === "invalid_input");
  kb.close();
});

test("open takes strings, bytes and a Map alike (files travel packed), and update works after it", () => {
  const text = '---\nstatus: accepted\npaths: ["src/über/**"]\n---\n# Ünïcode ✓ 🚀\n\nBody — with “quotes”.\n';
  const name = ".ai/decisions/unicode.md";
  const asString = engine.open({ files: { ...files, [name]: text }, now: NOW });
  const want = asString.request("entries.get", { id: "unicode" });
  assert.equal(ok(want).title, "Ünïcode ✓ 🚀");
  const bytes = Object.fromEntries(Object.entries({ ...files, [name]: text }).map(([k, v]) => [k, new TextEncoder().encode(v)]));
  const asBytes = engine.open({ files: bytes, now: NOW });
  const asMap = engine.open({ files: new Map(Object.entries({ ...files, [name]: text })), now: NOW });
  for (const kb of [asBytes, asMap]) {
    assert.deepEqual(kb.request("entries.get", { id: "unicode" }), want);
    assert.deepEqual(kb.request("entries.list", {}), asString.request("entries.list", {}));
  }
  const gov = (kb) => ok(kb.request("entries.governing", { paths: ["src/über/a.go"] })).entries.map((e) => e.id);
  assert.ok(gov(asBytes).includes("unicode"));
  asBytes.update({ remove: [name] });
  assert.ok(!gov(asBytes).includes("unicode"));
  asBytes.update({ files: { [name]: text } });
  assert.ok(gov(asBytes).includes("unicode"));
  assert.throws(() => engine.open({ files: { "a/../../x.md": "x" } }), (e) => e instanceof KontextError && e.code === "invalid_input");
  for (const kb of [asString, asBytes, asMap]) kb.close();
});

test("open: unclean names open like their clean form; an opened file rewritten at the same size is read again", () => {
  const entry = (glob) => `---\nstatus: accepted\npaths: ["${glob}"]\n---\n# Same size\n\nBody.\n`;
  const name = ".ai/decisions/same-size.md";
  const gov = (kb, path) => ok(kb.request("entries.governing", { paths: [path] })).entries.map((e) => e.id);
  const clean = engine.open({ files: { ...files, [name]: entry("src/aaa/**") }, now: NOW });
  for (const alias of ["./.ai/decisions/same-size.md", ".ai//decisions/same-size.md", ".ai\\decisions\\same-size.md"]) {
    const kb = engine.open({ files: { ...files, [alias]: entry("src/aaa/**") }, now: NOW });
    assert.deepEqual(kb.request("entries.list", {}), clean.request("entries.list", {}), alias);
    kb.close();
  }
  assert.ok(gov(clean, "src/aaa/x.go").includes("same-size"));
  clean.update({ files: { [name]: entry("src/bbb/**") } });
  assert.ok(!gov(clean, "src/aaa/x.go").includes("same-size"));
  assert.ok(gov(clean, "src/bbb/x.go").includes("same-size"));
  clean.close();
});

test("errors", () => {
  const kb = engine.open({ files, now: NOW });
  fails(kb.request("no.such.op", {}), "unsupported_operation");
  for (const op of ["setup", "entries.drift", "entries.changed", "entries.export", "drafts.capture"]) {
    const err = fails(kb.request(op, {}), "unsupported_operation");
    assert.match(err.message, /native CLI: kontext api/);
  }
  fails(kb.request("entries.list", "{not json"), "invalid_input");
  fails(kb.request("entries.list", { bogus: true }), "invalid_input");
  fails(kb.request("entries.get", {}), "invalid_input");
  fails(kb.request("status", { dir: "/elsewhere" }), "invalid_input");
  assert.throws(() => engine.open({ files, now: "yesterday" }), (e) => e instanceof KontextError && e.code === "invalid_input");
  assert.throws(() => engine.open({ files: { "/abs.md": "x" } }), KontextError);
  kb.close();
  kb.close(); // idempotent
  fails(kb.request("status", {}), "not_found");
});

test("inspect", () => {
  const text = '---\nstatus: accepted\ndate: 2026-01-10\npaths: ["src/export/**"]\n---\n# Use cron\n\nBody.\n';
  const entry = ok(engine.inspect(".ai/decisions/2026-01-10-use-cron.md", text));
  assert.equal(entry.id, "2026-01-10-use-cron");
  assert.equal(entry.kind, "decision");
  assert.equal(entry.authority, true);
  const proposed = ok(engine.inspect(".ai/decisions/x.md", text.replace("accepted", "proposed")));
  assert.equal(proposed.authority, false);
  fails(engine.inspect("src/main.go", text), "invalid_input");
  const config = 'version = 1\nstorage = ".ai"\n\n[[kinds.decision.include]]\ndir = "docs/adr"\nstyle = "adr"\n';
  const adr = ok(engine.inspect("docs/adr/0002-write-the-service-in-go.md", files["docs/adr/0002-write-the-service-in-go.md"], { config }));
  assert.equal(adr.style, "adr");
  fails(engine.inspect("docs/adr/0002-write-the-service-in-go.md", "x", { config: "version = 1\nbogus = 2\n" }), "invalid_input");
});

test("changed between two snapshots", () => {
  const base = engine.open({ files, now: NOW, revision: "1".repeat(40) });
  const headFiles = { ...files };
  delete headFiles[".ai/decisions/2026-11-16-move-sessions-to-redis.md"];
  headFiles[".ai/decisions/2026-01-14-vat-is-rounded-per-line.md"] += "\nOne more line.\n";
  headFiles[".ai/learnings/2026-12-01-new.md"] = '---\nstatus: active\npaths: ["src/**"]\n---\n# New learning\n\nText.\n';
  headFiles[".ai/conventions/2026-08-28-log-with-slog.md"] = headFiles[".ai/conventions/2026-08-28-log-with-slog.md"].replace(/^status: active$/m, "status: retired");
  const head = engine.open({ files: headFiles, now: NOW, revision: "2".repeat(40) });
  const res = ok(engine.changed(base, head));
  assert.equal(res.base, "1".repeat(40));
  assert.equal(res.head, "2".repeat(40));
  assert.deepEqual(
    res.changes.map((c) => [c.id, c.change, c.removed ?? false]),
    [
      ["2026-01-14-vat-is-rounded-per-line", "revised", false],
      ["2026-08-28-log-with-slog", "deprecated", false],
      ["2026-11-16-move-sessions-to-redis", "deprecated", true],
      ["2026-12-01-new", "added", false],
    ],
  );
  assert.deepEqual(ok(engine.changed(base, base)).changes, []);
  assert.throws(() => engine.changed(base, {}), TypeError);
  base.close();
  head.close();
});

test("memory does not grow across 200 open/close cycles", () => {
  const cycle = () => {
    const kb = engine.open({ files, now: NOW });
    ok(kb.request("entries.governing", { paths: ["src/billing/tax/vat.go"] }));
    kb.close();
  };
  for (let i = 0; i < 30; i++) cycle(); // warm up: the heap reaches its working size
  const warm = engine.memory.buffer.byteLength;
  for (let i = 0; i < 200; i++) cycle();
  const after = engine.memory.buffer.byteLength;
  const slack = 8 << 20;
  console.log(`# wasm memory: ${warm} bytes after warm-up, ${after} after 200 cycles`);
  assert.ok(after <= warm + slack, `memory grew from ${warm} to ${after} bytes`);
});

test("layout: the config's sources, and which paths it reads as entries", () => {
  const config = files[".kontext.toml"];
  const lay = engine.layout(config, [".ai/decisions/2026-01-12-money-is-integer-cents.md", ".ai/decisions/README.md", "src/billing/tax/vat.go"]);
  assert.deepEqual(lay.config_candidates.slice(0, 1), [".kontext.toml"]);
  assert.equal(lay.storage, ".ai");
  assert.ok(lay.sources.some((s) => s.dir === ".ai/decisions" && s.kind === "decision"), JSON.stringify(lay.sources));
  assert.deepEqual(lay.reads, [".ai/decisions/2026-01-12-money-is-integer-cents.md"]);
  assert.equal(lay.overlay, ".ai/paths.toml");
  assert.throws(() => engine.layout("version = 99\n"), (err) => err instanceof KontextError && err.code === "invalid_input");
});

test("openDirectory reads what open({files}) gets from the same tree", async () => {
  const dir = await engine.openDirectory(join(repoRoot, "testdata", "demo"), { now: NOW });
  const mem = engine.open({ files, now: NOW });
  const input = { paths: ["src/billing/tax/vat.go", "src/export/nightly.go"] };
  assert.deepEqual(dir.request("entries.governing", input), mem.request("entries.governing", input));
  assert.equal(dir.request("entries.list", {}).result.total, mem.request("entries.list", {}).result.total);
  await assert.rejects(engine.openDirectory(join(repoRoot, "no-such-dir")), /ENOENT/);
  dir.close();
  mem.close();
});

test("openBundle: v1 of any minor opens; a newer major is refused naming both versions", () => {
  const bundle = { schema: "kontext.bundle/v1", format_version: "1.7", repository: { head: "a".repeat(40) }, config: null, files };
  const kb = engine.openBundle(JSON.stringify(bundle), { now: NOW });
  assert.equal(kb.request("entries.get", { id: "2026-01-12-money-is-integer-cents" }).ok, true);
  kb.close();
  assert.throws(() => engine.openBundle({ ...bundle, schema: "kontext.bundle/v2", format_version: "2.0" }),
    (err) => err instanceof KontextError && err.code === "unsupported_bundle" && /v2 \(2\.0\), newer than this reader understands \(v1\)/.test(err.message));
  assert.throws(() => engine.openBundle({ schema: "nope", files }), (err) => err.code === "invalid_input");
  assert.throws(() => engine.openBundle(bundle, { base: true }), (err) => err.code === "invalid_input");
});

test("list and search pages: every cursor followed is the whole answer; an update makes a cursor stale", () => {
  const kb = engine.open({ files, now: NOW });
  for (const [op, input] of [["entries.list", {}], ["entries.search", { query: "billing invoice export session" }]]) {
    const whole = ok(kb.request(op, { ...input, limit: 500 })).entries.map((e) => e.id);
    const got = [];
    let cursor;
    let first;
    do {
      const r = ok(kb.request(op, { ...input, limit: 4, view: "compact", ...(cursor ? { cursor } : {}) }));
      assert.equal(r.total, whole.length);
      assert.equal("entries" in r, false, "a compact page has no entries key");
      got.push(...r.items.map((i) => i.id));
      cursor = r.next_cursor;
      first ??= cursor;
    } while (cursor && got.length <= whole.length);
    assert.ok(whole.length > 4, `${op}: one page only`);
    assert.deepEqual(got, whole, op);
    // A cursor of another question, or a forged one, is invalid input.
    fails(kb.request(op, { ...input, active_only: true, cursor: first }), "invalid_input");
    fails(kb.request(op, { ...input, cursor: "Zm9yZ2Vk" }), "invalid_input");
    kb.update({ files: { ".ai/learnings/late.md": "---\npaths: [\"src/**\"]\n---\n# A late learning about billing\n" } });
    fails(kb.request(op, { ...input, limit: 4, cursor: first }), "stale_cursor");
    kb.update({ remove: [".ai/learnings/late.md"] });
  }
  kb.close();
});

test("memoryStats sets the limit and the collector's pacing; a knowledge base accounts what it holds", () => {
  const before = engine.memoryStats();
  for (const k of ["heap_objects", "heap_live", "total", "limit", "gc_percent", "open"]) assert.equal(typeof before[k], "number", k);
  const set = engine.memoryStats(256 << 20, -1);
  assert.equal(set.limit, 256 << 20);
  assert.equal(set.gc_percent, -1);
  assert.equal(engine.memoryStats(0, before.gc_percent).gc_percent, before.gc_percent);
  engine.memoryStats(before.limit > 0 && before.limit < 2 ** 53 ? before.limit : 2 ** 62);

  // bytes: the snapshot and texts it holds plus its file table, not the
  // bundle's JSON; a larger file set holds more.
  const small = engine.open({ files: { ".ai/conventions/a.md": "---\nstatus: active\npaths: [\"a/**\"]\n---\n# A\n\nA.\n" }, now: NOW });
  const demo = engine.open({ files, now: NOW });
  const texts = Object.values(files).reduce((n, t) => n + Buffer.byteLength(t), 0);
  assert.ok(demo.bytes >= texts && demo.bytes < texts + 200 * Object.keys(files).length, `${demo.bytes} bytes for ${texts} bytes of text`);
  assert.ok(small.bytes > 0 && small.bytes < demo.bytes);
  // requestText is request's envelope, unparsed.
  const text = demo.requestText("entries.governing", { paths: ["src/billing/tax/vat.go"], view: "compact" });
  assert.deepEqual(JSON.parse(text), demo.request("entries.governing", { paths: ["src/billing/tax/vat.go"], view: "compact" }));
  small.close();
  demo.close();
});

test("a directory beside a file of the same stem lists and reads as on disk", () => {
  // Sorted, "a-b.md" and "a.md" come before "a/…": the packed listing
  // must still give every file and the directory once, sorted by name.
  const entry = (glob, title) => `---\nstatus: active\npaths: ["${glob}"]\n---\n# ${title}\n\n${title}.\n`;
  const set = {
    ".ai/conventions/a.md": entry("a/**", "A"),
    ".ai/conventions/a-b.md": entry("ab/**", "A B"),
    ".ai/conventions/a/nested.md": entry("n/**", "Nested"),
    ".ai/conventions/a/deeper/x.md": entry("x/**", "X"),
    ".ai/conventions/b.md": entry("b/**", "B"),
  };
  const kb = engine.open({ files: set, now: NOW, immutable: true });
  const ids = ok(kb.request("entries.list", {})).entries.map((e) => e.file).sort();
  assert.deepEqual(ids, Object.keys(set).sort());
  kb.close();
});
