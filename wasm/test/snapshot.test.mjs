// Bundles carry the compiled snapshot (format 1.2): openBundle uses it
// transparently, and it never changes an answer — a stale, corrupt or
// absent snapshot answers exactly like parsing the files. Immutable
// knowledge bases answer like mutable ones, before and after update().
import { test } from "node:test";
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

import { loadEngine } from "../node.js";
import { demoBundle, DEMO_READS, NOW, repoRoot } from "./helpers.mjs";

const engine = await loadEngine({ wasm: pathToFileURL(join(repoRoot, "wasm", "kontext.wasm")) });
const bundle = demoBundle();
const READS = DEMO_READS;

function answers(kb) {
  return READS.map(([op, input]) => [op, kb.request(op, input)]);
}

test("a bundle carries a compiled snapshot of its head files (format 1.2)", () => {
  assert.equal(bundle.format_version, "1.3");
  assert.equal(typeof bundle.snapshot, "string");
  assert.ok(bundle.snapshot.length > 100);
});

test("openBundle with the snapshot answers exactly like parsing the files", () => {
  const parsed = engine.openBundle({ ...bundle, snapshot: undefined }, { now: NOW });
  const want = answers(parsed);
  for (const immutable of [false, true]) {
    const kb = engine.openBundle(bundle, { now: NOW, immutable });
    assert.deepEqual(answers(kb), want, `immutable=${immutable}`);
    assert.deepEqual(answers(kb), want, `immutable=${immutable}, asked again`);
    kb.close();
  }
  parsed.close();
});

test("openBundle takes the bundle's JSON as text or UTF-8 bytes too", () => {
  const want = answers(engine.openBundle(bundle, { now: NOW }));
  const text = JSON.stringify(bundle);
  const bytes = new TextEncoder().encode(text);
  for (const [label, input] of [["text", text], ["Uint8Array", bytes], ["ArrayBuffer", bytes.buffer], ["Buffer", Buffer.from(text)],
    ["view into a larger buffer", new Uint8Array([0x20, ...bytes, 0x20]).subarray(1, bytes.length + 1)]]) {
    const kb = engine.openBundle(input, { now: NOW, immutable: true });
    assert.deepEqual(answers(kb), want, label);
    kb.close();
  }
  assert.throws(() => engine.openBundle(new TextEncoder().encode("{not json")), SyntaxError);
});

test("a stale, corrupt or foreign snapshot is ignored: answers equal a fresh parse", () => {
  const files = { ...bundle.files };
  const name = Object.keys(files).find((f) => f.includes("money-is-integer-cents"));
  assert.ok(name, "the demo bundle has the money entry");
  files[name] = files[name].replace(/\n# [^\n]*/, "\n# Money is integer cents, edited");
  const stale = { ...bundle, files };
  const want = answers(engine.openBundle({ ...stale, snapshot: undefined }, { now: NOW }));
  const flipped = bundle.snapshot.slice(0, 200) + (bundle.snapshot[200] === "A" ? "B" : "A") + bundle.snapshot.slice(201);
  const cases = {
    "snapshot of other files": stale,
    "corrupt snapshot": { ...bundle, snapshot: flipped },
    "truncated snapshot": { ...bundle, snapshot: bundle.snapshot.slice(0, bundle.snapshot.length / 2) },
    "not base64": { ...bundle, snapshot: "!!! not a snapshot !!!" },
  };
  for (const [label, doc] of Object.entries(cases)) {
    const kb = engine.openBundle(doc, { now: NOW });
    const expected = doc === stale ? want : answers(engine.openBundle({ ...bundle, snapshot: undefined }, { now: NOW }));
    assert.deepEqual(answers(kb), expected, label);
    kb.close();
  }
});

test("immutable: update() is the only way the answers change, and then they equal a mutable base's", () => {
  const name = Object.keys(bundle.files).find((f) => f.includes("money-is-integer-cents"));
  const edited = bundle.files[name].replace(/\n# [^\n]*/, "\n# Money is integer cents, edited");
  const mutable = engine.openBundle(bundle, { now: NOW });
  const immutable = engine.openBundle(bundle, { now: NOW, immutable: true });
  assert.deepEqual(answers(immutable), answers(mutable));
  mutable.update({ files: { [name]: edited } });
  immutable.update({ files: { [name]: edited } });
  const got = immutable.request("entries.get", { id: "2026-01-12-money-is-integer-cents" });
  assert.equal(got.ok, true);
  assert.match(got.result.title, /edited/);
  assert.deepEqual(answers(immutable), answers(mutable));
  mutable.close();
  immutable.close();
});
