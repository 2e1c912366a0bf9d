// The edge worker under a real workerd (`kontext edge serve`, the npm
// package workerd) on 127.0.0.1: every route and status code, answers equal
// to `kontext api` on the same repositories (the demo and a 1,000-entry
// one), repositories by name, ETag/304, limits, auth and CORS, the isolate
// surviving bad requests, a KV namespace whose bundle is replaced between
// requests, SIGINT, and `wrangler deploy --dry-run` on `kontext edge build`.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { demoRepo, nativeBin, nativeEnv, normalise, repoRoot } from "../../test/helpers.mjs";
import { serveEdge } from "./serve.mjs";

const work = mkdtempSync(join(tmpdir(), "kontext-edge-test-"));
const bin = nativeBin();
const env = { ...nativeEnv, WRANGLER_SEND_METRICS: "false" };
for (const k of ["KONTEXT_TOKEN", "KONTEXT_CORS_ORIGINS", "KONTEXT_STORE_REPOS", "KONTEXT_WORKERD"]) delete env[k];

// Repositories: the demo, the 1,000-entry corpus, and a small third one.
const repos = { demo: demoRepo(), big: join(work, "big"), tiny: join(work, "tiny") };
const bigPaths = JSON.parse(execFileSync("go", ["run", "./build/benchrepo", repos.big, "1000"], { cwd: repoRoot, env, encoding: "utf8" })).paths;
mkdirSync(join(repos.tiny, ".ai", "conventions"), { recursive: true });
writeFileSync(join(repos.tiny, ".ai", "conventions", "2026-02-01-tabs.md"), "---\nstatus: active\npaths: [\"**/*.go\"]\nsummary: Indent Go with tabs.\n---\n# Tabs in Go\n\nIndent with tabs.\n");
for (const args of [["init", "-q", "-b", "main"], ["add", "-A"], ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "tiny"]]) {
  execFileSync("git", args, { cwd: repos.tiny, env });
}
const bundles = {};
for (const [name, dir] of Object.entries(repos)) {
  bundles[name] = join(work, `${name}.json`);
  execFileSync(bin, ["-C", dir, "bundle", "-o", bundles[name]], { env, stdio: "ignore" });
}

function nativeOn(dir, op, input) {
  const r = spawnSync(bin, ["-C", dir, "api", op, JSON.stringify(input)], { env, encoding: "utf8" });
  return JSON.parse(r.stdout);
}

// serve starts `kontext edge serve` with this file's environment.
function serve(args, extraEnv = {}) {
  return serveEdge(bin, env, args, extraEnv);
}

function stopped(proc) {
  return new Promise((resolve) => (proc.exitCode !== null ? resolve(proc.exitCode) : proc.on("exit", (code, sig) => resolve(code ?? sig))));
}

const store = join(work, "store");
let open; // no auth, no CORS, three bundled repositories and the store
let locked; // two repositories; KONTEXT_TOKEN and KONTEXT_CORS_ORIGINS set

function putStore(name, bundleFile, version) {
  mkdirSync(join(store, name), { recursive: true });
  cpSync(bundleFile, join(store, name, "bundle"));
  writeFileSync(join(store, name, "snapshot"), version + "\n");
}

before(async () => {
  putStore("kv", bundles.demo, "v1");
  [open, locked] = await Promise.all([
    serve(["--bundle", `demo=${bundles.demo}`, "--bundle", `big=${bundles.big}`, "--bundle", `tiny=${bundles.tiny}`, "--store", store]),
    serve(["--bundle", `demo=${bundles.demo}`, "--bundle", `tiny=${bundles.tiny}`], { KONTEXT_TOKEN: "s3cret-token", KONTEXT_CORS_ORIGINS: "https://console.example.com, https://b.example.com" }),
  ]);
});

after(async () => {
  for (const s of [open, locked]) {
    if (s && s.proc.exitCode === null) {
      s.proc.kill("SIGINT");
      await stopped(s.proc);
    }
  }
  rmSync(work, { recursive: true, force: true });
});

async function call(server, path, init = {}) {
  const res = await fetch(server.url + path.replace(/^\//, ""), init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text === "" ? null : JSON.parse(text) };
}

const post = (body, headers = {}) => ({ method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });

const demoPaths = ["src/billing/tax/vat.go", "src/export/nightly.go", "src/export/testdata/invoices.golden.csv", "web/app.ts", "README.md", "src/billing/money.go", "nothing/here.txt", "src/auth/session.go"];

// engineCompact: the engine has entries.governing {view: "compact"}; the
// worker then answers with it, else with its own projection (compact()).
const engineCompact = nativeOn(repos.demo, "status", {}).result.capabilities.includes("entries.governing.view");

// governed lists a compact answer's entries: the engine's compact view
// puts them in items and sends no entries key (the worker's own projection,
// for engines without the view, keeps entries).
function governed(r) {
  if (!engineCompact) return r.json.result.entries;
  assert.equal("entries" in r.json.result, false, "a compact answer has no entries key");
  return r.json.result.items;
}

// compact is the worker's projection of a full entry.
function compact(e) {
  return { id: e.id, kind: e.kind, title: e.title, summary: e.summary, status: e.status, rule: e.matches[0].rule, specificity: e.specificity, file: e.file, paths: [...new Set(e.matches.map((m) => m.path))] };
}

test("healthz", async () => {
  const r = await call(open, "/healthz");
  assert.equal(r.status, 200);
  assert.equal(r.json.ok, true);
  assert.equal(r.json.result.healthy, true);
});

test("governing equals kontext api entries.governing (demo and 1,000 entries; detail and compact; POST and GET)", async () => {
  const cases = [
    ["demo", "/v1/governing", repos.demo, demoPaths.map((p) => [p])],
    ["demo", "/v1/governing", repos.demo, [demoPaths]],
    ["big", "/v1/repos/big/governing", repos.big, [bigPaths.slice(0, 1), bigPaths.slice(0, 100), bigPaths.slice(300, 305)]],
  ];
  for (const [name, route, dir, pathSets] of cases) {
    for (const paths of pathSets) {
      const nat = nativeOn(dir, "entries.governing", { paths });
      assert.equal(nat.ok, true);
      const full = await call(open, route, post({ paths, detail: true }));
      assert.equal(full.status, 200, full.text);
      assert.equal(normalise("entries.governing", full.json), normalise("entries.governing", nat), `${name} ${paths.length} paths`);
      const c = await call(open, route, post({ paths }));
      if (engineCompact) {
        // The engine's compact view (the MCP answer), as kontext api gives it.
        const natCompact = nativeOn(dir, "entries.governing", { paths, view: "compact" });
        assert.equal(normalise("entries.governing", c.json), normalise("entries.governing", natCompact));
        assert.ok(Array.isArray(governed(c)), "a compact answer lists its entries in items");
      } else {
        assert.deepEqual(c.json.result.entries, nat.result.entries.map(compact));
        assert.equal(c.json.result.total, nat.result.total);
      }
      const q = paths.map((p) => "path=" + encodeURIComponent(p)).join("&");
      const g = await call(open, `${route}?${q}`);
      assert.equal(g.status, 200);
      assert.equal(g.text, c.text, "GET form equals the POST form");
      assert.equal(g.headers.get("etag"), `"${c.json.result.snapshot}"`);
    }
  }
  // Options pass through: min_specificity, exclude_ids, limit.
  const input = { paths: ["src/billing/money.go"], min_specificity: 2, exclude_ids: ["2026-01-12-money-is-integer-cents"], limit: 1 };
  const nat = nativeOn(repos.demo, "entries.governing", input);
  const r = await call(open, "/v1/governing", post({ ...input, detail: true }));
  assert.equal(normalise("entries.governing", r.json), normalise("entries.governing", nat));
  const g = await call(open, "/v1/governing?path=src/billing/money.go&min_specificity=2&exclude_id=2026-01-12-money-is-integer-cents&limit=1&detail=1");
  assert.equal(g.text, r.text);
});

test("entries, search and status equal kontext api", async () => {
  for (const id of ["2026-01-12-money-is-integer-cents", "3", ".cursor/rules/project"]) {
    const r = await call(open, `/v1/entries/${encodeURIComponent(id)}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(normalise("entries.get", r.json), normalise("entries.get", nativeOn(repos.demo, "entries.get", { id })));
  }
  const missing = await call(open, "/v1/entries/no-such-entry");
  assert.equal(missing.status, 404);
  assert.equal(missing.json.ok, false);
  assert.equal(missing.json.error.code, nativeOn(repos.demo, "entries.get", { id: "no-such-entry" }).error.code);

  const s = await call(open, "/v1/search?q=rounding&limit=3");
  assert.equal(s.status, 200);
  assert.equal(normalise("entries.search", s.json), normalise("entries.search", nativeOn(repos.demo, "entries.search", { query: "rounding", limit: 3 })));
  assert.equal((await call(open, "/v1/search?q=x&limit=abc")).status, 400);
  // The next page by cursor, in the compact view: the native engine's second page.
  const page1 = await call(open, "/v1/search?q=billing&limit=2&view=compact");
  assert.equal(page1.status, 200, page1.text);
  const page2 = await call(open, `/v1/search?q=billing&limit=2&view=compact&cursor=${encodeURIComponent(page1.json.result.next_cursor)}`);
  assert.equal(page2.status, 200, page2.text);
  const nat = nativeOn(repos.demo, "entries.search", { query: "billing", limit: 4, view: "compact" }).result.items.map((i) => i.id);
  assert.deepEqual([...page1.json.result.items, ...page2.json.result.items].map((i) => i.id), nat);
  assert.equal((await call(open, "/v1/search?q=billing&cursor=forged")).json.error.code, "invalid_input");
  const noQ = await call(open, "/v1/search");
  assert.equal(noQ.status, 400);
  assert.equal(noQ.json.error.code, "invalid_input");

  const st = await call(open, "/v1/status");
  assert.equal(st.status, 200);
  assert.equal(normalise("status", st.json), normalise("status", nativeOn(repos.demo, "status", {})));
});

test("repositories by name: GET /v1/repos, two and three repositories, unknown name", async () => {
  const r = await call(open, "/v1/repos");
  assert.equal(r.status, 200);
  const list = r.json.result.repos;
  assert.deepEqual(list.map((x) => [x.name, x.default]), [["demo", true], ["big", false], ["tiny", false], ["kv", false]]);
  for (const x of list.slice(0, 3)) {
    const st = nativeOn(repos[x.name], "status", {}).result;
    const total = Object.values(st.counts).flatMap((m) => Object.values(m)).reduce((a, b) => a + b, 0);
    assert.equal(x.entries, total, x.name);
    const s = await call(open, `/v1/repos/${x.name}/status`);
    assert.equal(s.json.result.snapshot, x.snapshot);
    assert.equal(s.headers.get("etag"), `"${x.snapshot}"`);
  }
  assert.equal(list[1].entries, 1000);
  // The default repository answers the single-repository routes.
  assert.equal((await call(open, "/v1/status")).json.result.snapshot, list[0].snapshot);
  // The same path, three repositories, three answers.
  const answers = await Promise.all(["demo", "big", "tiny"].map((n) => call(open, `/v1/repos/${n}/governing?path=src/m0/s0/h0.go`)));
  assert.deepEqual(answers.map((a) => a.status), [200, 200, 200]);
  assert.equal(governed(answers[1]).length > 0, true);
  assert.deepEqual(governed(answers[2]).map((e) => e.id), ["2026-02-01-tabs"]);
  assert.notEqual(answers[0].text, answers[2].text);
  // Two repositories (the locked server) by name too.
  const auth = { headers: { Authorization: "Bearer s3cret-token" } };
  const two = (await call(locked, "/v1/repos", auth)).json.result.repos;
  assert.deepEqual(two.map((x) => [x.name, x.default]), [["demo", true], ["tiny", false]]);
  assert.equal((await call(locked, "/v1/repos/tiny/governing?path=src/m0/s0/h0.go", auth)).text, answers[2].text);
  assert.equal((await call(locked, "/v1/governing?path=src/m0/s0/h0.go", auth)).text, answers[0].text);
  assert.equal((await call(locked, "/v1/repos/big/status", auth)).status, 404);
  const unknown = await call(open, "/v1/repos/nope/status");
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, "not_found");
  assert.match(unknown.json.error.message, /demo, big, tiny, kv/);
});

test("ETag and If-None-Match: 304 on GET routes, never on POST", async () => {
  const st = await call(open, "/v1/status");
  const tag = st.headers.get("etag");
  assert.match(tag, /^"[0-9a-f]+"$/);
  for (const path of ["/v1/status", "/v1/governing?path=src/billing/tax/vat.go", "/v1/entries/3", "/v1/search?q=vat", "/v1/repos/demo/status"]) {
    const r = await call(open, path, { headers: { "If-None-Match": tag } });
    assert.equal(r.status, 304, path);
    assert.equal(r.text, "");
    assert.equal(r.headers.get("etag"), tag);
    assert.equal((await call(open, path, { headers: { "If-None-Match": `W/${tag}` } })).status, 304, "weak comparison");
    assert.equal((await call(open, path, { headers: { "If-None-Match": `"other", ${tag}` } })).status, 304, "a list");
    assert.equal((await call(open, path, { headers: { "If-None-Match": '"other"' } })).status, 200);
  }
  assert.equal((await call(open, "/v1/status", { headers: { "If-None-Match": "*" } })).status, 304);
  const p = await call(open, "/v1/governing", post({ paths: ["src/billing/tax/vat.go"] }, { "If-None-Match": tag }));
  assert.equal(p.status, 200);
  assert.equal(p.headers.get("etag"), tag);
  // Another repository has another tag: the default's does not match it.
  assert.equal((await call(open, "/v1/repos/tiny/status", { headers: { "If-None-Match": tag } })).status, 200);
  const repos304 = await call(open, "/v1/repos");
  assert.equal((await call(open, "/v1/repos", { headers: { "If-None-Match": repos304.headers.get("etag") } })).status, 304);
  // An error is not a representation: If-None-Match does not turn it into
  // 304, and it carries no ETag (2xx and 304 answers do).
  const missing = await call(open, "/v1/entries/no-such-entry", { headers: { "If-None-Match": "*" } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get("etag"), null, "a 404 from the engine carries no ETag");
  const badInput = await call(open, "/v1/governing?path=/abs/file.go");
  assert.equal(badInput.status, 400);
  assert.equal(badInput.headers.get("etag"), null, "a 400 carries no ETag");
});

test("limits, methods, unknown routes and bad input answer with the envelope; the isolate keeps serving", async () => {
  const before = await call(open, "/v1/governing", post({ paths: demoPaths }));
  const expectError = async (r, status, code = "invalid_input") => {
    assert.equal(r.status, status, r.text);
    assert.equal(r.json.ok, false);
    assert.equal(r.json.error.code, code);
    assert.ok(r.json.error.message.length > 10);
    assert.equal(r.headers.get("etag"), null, `a ${status} answer carries no ETag`);
  };
  await expectError(await call(open, "/v1/governing", post("{bad json")), 400);
  await expectError(await call(open, "/v1/governing", post("[1,2]")), 400);
  await expectError(await call(open, "/v1/governing", post({ paths: "src" })), 400);
  await expectError(await call(open, "/v1/governing", post({ paths: ["a.go"], bogus: 1 })), 400);
  await expectError(await call(open, "/v1/governing", post({ paths: ["/etc/passwd"] })), 400);
  await expectError(await call(open, "/v1/governing?path=/abs/file.go"), 400);
  // A NUL byte in a path: 400 invalid_input, in the query and in the body.
  const nul = await call(open, "/v1/governing?path=src/a%00b.go");
  await expectError(nul, 400);
  assert.match(nul.json.error.message, /NUL byte/);
  await expectError(await call(open, "/v1/governing", post({ paths: ["src/billing/tax/vat.go\u0000"] })), 400);
  await expectError(await call(open, "/v1/governing?path=a.go&min_specificity=x"), 400);
  await expectError(await call(open, "/v1/governing?paths=a.go"), 400);
  await expectError(await call(open, "/v1/entries/%E0%A4%A"), 400);
  await expectError(await call(open, "/v1/repos/%ZZ/status"), 400);
  // Over 1 MiB: declared, and streamed without a length.
  const big = JSON.stringify({ paths: ["a.go"], pad: "x".repeat(1 << 20) });
  await expectError(await call(open, "/v1/governing", post(big)), 413);
  const chunks = [new TextEncoder().encode(big.slice(0, 600000)), new TextEncoder().encode(big.slice(600000))];
  const stream = new ReadableStream({ pull(c) { const x = chunks.shift(); x ? c.enqueue(x) : c.close(); } });
  await expectError(await call(open, "/v1/governing", { method: "POST", body: stream, duplex: "half" }), 413);
  // Paths: 10,000 answer, 10,001 do not.
  const many = Array.from({ length: 10000 }, (_, i) => `src/m${i}/f.go`);
  assert.equal((await call(open, "/v1/governing", post({ paths: many }))).status, 200);
  const tooMany = await call(open, "/v1/governing", post({ paths: [...many, "x.go"] }));
  await expectError(tooMany, 400);
  assert.match(tooMany.json.error.message, /10000/);
  // Methods.
  const put = await call(open, "/v1/governing", { method: "PUT", body: "{}" });
  await expectError(put, 405);
  assert.equal(put.headers.get("allow"), "GET, HEAD, POST");
  await expectError(await call(open, "/v1/status", post({})), 405);
  await expectError(await call(open, "/v1/repos", { method: "DELETE" }), 405);
  await expectError(await call(open, "/healthz", post({})), 405);
  assert.equal((await call(open, "/v1/status", { method: "OPTIONS" })).status, 405, "no CORS configured: no preflight");
  // Unknown routes.
  for (const path of ["/", "/nope", "/v1", "/v1/nope", "/v2/governing", "/v1/entries/", "/v1/repos/demo/nope"]) {
    await expectError(await call(open, path), 404, "not_found");
  }
  // HEAD: the headers of GET, no body.
  const head = await call(open, "/v1/status", { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.text, "");
  assert.ok(head.headers.get("etag"));
  // Still the same answers after all of that.
  const afterwards = await call(open, "/v1/governing", post({ paths: demoPaths }));
  assert.equal(afterwards.text, before.text);
  assert.equal((await call(open, "/healthz")).json.result.engine, "booted");
});

test("auth off: no token needed; auth on: a bearer token, compared in full", async () => {
  assert.equal((await call(open, "/v1/status")).status, 200);
  const none = await call(locked, "/v1/status");
  assert.equal(none.status, 401);
  assert.equal(none.json.error.code, "invalid_input");
  assert.match(none.headers.get("www-authenticate"), /^Bearer/);
  for (const h of ["Bearer wrong", "Bearer s3cret-toke", "Bearer s3cret-token-", "Basic s3cret-token", "s3cret-token"]) {
    assert.equal((await call(locked, "/v1/status", { headers: { Authorization: h } })).status, 401, h);
  }
  const ok = await call(locked, "/v1/governing", post({ paths: ["src/billing/tax/vat.go"] }, { Authorization: "Bearer s3cret-token" }));
  assert.equal(ok.status, 200);
  assert.equal(ok.text, (await call(open, "/v1/governing", post({ paths: ["src/billing/tax/vat.go"] }))).text);
  assert.equal((await call(locked, "/v1/repos", { headers: { Authorization: "bearer s3cret-token" } })).status, 200);
  assert.equal((await call(locked, "/v1/nope", { headers: { Authorization: "Bearer s3cret-token" } })).status, 404);
  assert.equal((await call(locked, "/v1/nope")).status, 401, "routes are not revealed without the token");
  assert.equal((await call(locked, "/healthz")).status, 200, "health checks need no token");
});

test("CORS: configured origins only, preflight, ETag exposed", async () => {
  const allowed = await call(locked, "/v1/status", { headers: { Origin: "https://console.example.com", Authorization: "Bearer s3cret-token" } });
  assert.equal(allowed.headers.get("access-control-allow-origin"), "https://console.example.com");
  assert.equal(allowed.headers.get("vary"), "Origin");
  assert.match(allowed.headers.get("access-control-expose-headers"), /ETag/);
  const other = await call(locked, "/v1/status", { headers: { Origin: "https://evil.example.com", Authorization: "Bearer s3cret-token" } });
  assert.equal(other.headers.get("access-control-allow-origin"), null);
  const denied = await call(locked, "/v1/status", { headers: { Origin: "https://b.example.com" } });
  assert.equal(denied.status, 401);
  assert.equal(denied.headers.get("access-control-allow-origin"), "https://b.example.com", "a browser can read the 401");
  const pre = await call(locked, "/v1/governing", { method: "OPTIONS", headers: { Origin: "https://b.example.com", "Access-Control-Request-Method": "POST" } });
  assert.equal(pre.status, 204);
  assert.match(pre.headers.get("access-control-allow-methods"), /POST/);
  assert.match(pre.headers.get("access-control-allow-headers"), /Authorization/);
  const none = await call(open, "/v1/status", { headers: { Origin: "https://console.example.com" } });
  assert.equal(none.headers.get("access-control-allow-origin"), null, "CORS off by default");
});

test("a KV namespace binding: the bundle replaced between requests is seen", async () => {
  const first = await call(open, "/v1/repos/kv/status");
  assert.equal(first.status, 200, first.text);
  const demoSnap = (await call(open, "/v1/status")).json.result.snapshot;
  assert.equal(first.json.result.snapshot, demoSnap);
  // Same marker: the worker keeps the opened snapshot.
  cpSync(bundles.tiny, join(store, "kv", "bundle"));
  assert.equal((await call(open, "/v1/repos/kv/status")).json.result.snapshot, demoSnap);
  // A new marker: the new bundle is read and opened.
  writeFileSync(join(store, "kv", "snapshot"), "v2\n");
  const second = await call(open, "/v1/repos/kv/governing?path=src/a.go");
  assert.equal(second.status, 200);
  const tinySnap = (await call(open, "/v1/repos/tiny/status")).json.result.snapshot;
  assert.equal(second.json.result.snapshot, tinySnap);
  assert.equal(second.headers.get("etag"), `"${tinySnap}"`);
  assert.deepEqual(governed(second).map((e) => e.id), ["2026-02-01-tabs"]);
  const listed = (await call(open, "/v1/repos")).json.result.repos.find((r) => r.name === "kv");
  assert.equal(listed.snapshot, tinySnap);
  // A SHA-256 marker is checked against the bundle: a marker that arrived
  // before its bundle keeps the opened snapshot; once both are there, the
  // bundle is taken.
  const sha = (f) => createHash("sha256").update(readFileSync(f)).digest("hex");
  writeFileSync(join(store, "kv", "snapshot"), sha(bundles.demo) + "\n");
  assert.equal((await call(open, "/v1/repos/kv/status")).json.result.snapshot, tinySnap, "the demo bundle is not there yet");
  cpSync(bundles.demo, join(store, "kv", "bundle"));
  assert.equal((await call(open, "/v1/repos/kv/status")).json.result.snapshot, demoSnap);
  // A missing marker: 503 with the envelope, and the others still answer.
  rmSync(join(store, "kv", "snapshot"));
  const gone = await call(open, "/v1/repos/kv/status");
  assert.equal(gone.status, 503);
  assert.equal(gone.json.ok, false);
  assert.equal((await call(open, "/v1/repos/big/status")).status, 200);
  writeFileSync(join(store, "kv", "snapshot"), "v2\n");
});

test("the worker runs the one engine: a stored bundle without its compiled snapshot is parsed and answers alike", async () => {
  putStore("kv", bundles.tiny, "tiny-2");
  const want = await call(open, "/v1/repos/kv/governing?path=src/a.go");
  assert.equal(want.status, 200, want.text);
  const raw = JSON.parse(readFileSync(bundles.tiny, "utf8"));
  delete raw.snapshot;
  const rawFile = join(work, "tiny-raw.json");
  writeFileSync(rawFile, JSON.stringify(raw));
  putStore("kv", rawFile, "raw-1");
  const r = await call(open, "/v1/repos/kv/governing?path=src/a.go");
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.result, want.json.result);
  assert.equal((await call(open, "/v1/repos/tiny/status")).status, 200, "the other repositories still answer");
  putStore("kv", bundles.tiny, "tiny-3");
  assert.equal((await call(open, "/v1/repos/kv/governing?path=src/a.go")).status, 200);
});

test("kontext edge build: a directory wrangler deploy --dry-run accepts", () => {
  const out = join(work, "deploy");
  const r = spawnSync(bin, ["--json", "edge", "build", "-o", out, "--bundle", `demo=${bundles.demo}`, "--bundle", `big=${bundles.big}`, "--name", "kontext-test"], { env, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.deepEqual(res.repos.map((x) => x.name), ["demo", "big"]);
  assert.ok(res.gzip_bytes > 1e6 && res.gzip_bytes < res.free_plan_limit_bytes, `${res.gzip_bytes} gzip bytes`);
  for (const f of ["main.js", "worker/worker.js", "index.js", "wasm_exec.js", "kontext.wasm", "repos/demo.json", "repos/big.json", "wrangler.toml"]) {
    assert.ok(existsSync(join(out, f)), f);
  }
  assert.match(readFileSync(join(out, "wrangler.toml"), "utf8"), /^name = "kontext-test"$/m);
  const dry = join(work, "dry");
  const w = spawnSync(join(repoRoot, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", dry], { cwd: out, env: { ...env, CI: "true" }, encoding: "utf8", timeout: 300000 });
  assert.equal(w.status, 0, w.stdout + w.stderr);
  assert.match(w.stdout, /--dry-run: exiting now/);
  assert.match(w.stdout, /kontext\.wasm\s*│\s*compiled-wasm/);
  assert.match(w.stdout, /repos\/big\.json\s*│\s*text/);
  assert.ok(existsSync(join(dry, "main.js")));
  // A second build replaces the first; a foreign directory is refused.
  assert.equal(spawnSync(bin, ["edge", "build", "-o", out, "--bundle", bundles.tiny], { env }).status, 0);
  assert.ok(!existsSync(join(out, "repos", "big.json")));
  const foreign = join(work, "foreign");
  mkdirSync(foreign);
  writeFileSync(join(foreign, "keep.txt"), "mine");
  const refused = spawnSync(bin, ["edge", "build", "-o", foreign, "--bundle", bundles.tiny], { env, encoding: "utf8" });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /did not write/);
  assert.equal(readFileSync(join(foreign, "keep.txt"), "utf8"), "mine");
});

test("SIGINT stops kontext edge serve and its workerd", async () => {
  const s = await serve(["--bundle", bundles.tiny]);
  assert.equal((await call(s, "/v1/status")).status, 200);
  s.proc.kill("SIGINT");
  assert.equal(await stopped(s.proc), 130);
  await assert.rejects(fetch(s.url + "healthz"));
});
