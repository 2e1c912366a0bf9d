// `kontext edge publish --local --persist-to DIR` for a few repositories,
// then one local workerd (wrangler dev) over that KV state: each answers by
// name, GET /v1/repos pages them, a republished bundle is seen on the next
// request and the replaced bundle is deleted, publishing the same
// snapshot again writes nothing, and past the memory budget the least
// recently used repositories are closed and answer again when reopened.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { demoRepo, nativeBin, nativeEnv, repoRoot } from "../../test/helpers.mjs";

const work = mkdtempSync(join(tmpdir(), "kontext-edge-publish-"));
const bin = nativeBin();
const wrangler = join(repoRoot, "node_modules", ".bin", "wrangler");
const env = { ...nativeEnv, WRANGLER_SEND_METRICS: "false", KONTEXT_WRANGLER: wrangler, KONTEXT_ASSETS: process.env.KONTEXT_ASSETS ?? repoRoot };
for (const k of ["KONTEXT_TOKEN", "KONTEXT_CORS_ORIGINS", "KONTEXT_STORE_REPOS"]) delete env[k];
const persist = join(work, "kv");
const NAMESPACE = "kontext-publish-test";
const MEMORY_MB = 0.02; // 20 KiB: see the memory budget test

function git(dir, ...args) {
  execFileSync("git", args, { cwd: dir, env, stdio: "ignore" });
}

function entry(dir, name, glob, title) {
  mkdirSync(join(dir, ".ai", "conventions"), { recursive: true });
  writeFileSync(join(dir, ".ai", "conventions", `${name}.md`), `---\nstatus: active\npaths: ["${glob}"]\nsummary: ${title}.\n---\n# ${title}\n\n${title}.\n`);
}

function smallRepo(name, glob, title) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  entry(dir, "2026-02-01-first", glob, title);
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first");
  return dir;
}

const repos = { demo: demoRepo(), alpha: smallRepo("alpha", "**/*.go", "Tabs in Go"), beta: smallRepo("beta", "web/**", "Two spaces in web") };

// publish runs kontext edge publish --json and returns its result.
function publish(name, extra = []) {
  const r = spawnSync(bin, ["-C", repos[name], "--json", "edge", "publish", "--repo", name, "--namespace-id", NAMESPACE, "--local", "--persist-to", persist, ...extra],
    { cwd: work, env, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function nativeGoverning(name, path) {
  const r = spawnSync(bin, ["-C", repos[name], "api", "entries.governing", JSON.stringify({ paths: [path], view: "compact" })], { env, encoding: "utf8" });
  return JSON.parse(r.stdout).result.items;
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

let dev; // wrangler dev over the published state
let url;
let log = ""; // wrangler dev's output
const published = {};

before(async () => {
  // One publish builds its bundle, one is given a bundle file.
  published.demo = publish("demo");
  const betaBundle = join(work, "beta.json");
  execFileSync(bin, ["-C", repos.beta, "bundle", "-o", betaBundle], { env, stdio: "ignore" });
  published.beta = publish("beta", ["--bundle", betaBundle]);
  published.alpha = publish("alpha");

  const dir = join(work, "edge");
  execFileSync(bin, ["edge", "build", "-o", dir, "--store-only"], { env, stdio: "ignore" });
  // A budget the demo alone is over and the two small repositories fit.
  appendFileSync(join(dir, "wrangler.toml"), `\n[vars]\nKONTEXT_DEBUG = "1"\nKONTEXT_MEMORY_MB = "${MEMORY_MB}"\n\n[[kv_namespaces]]\nbinding = "KONTEXT_STORE"\nid = "${NAMESPACE}"\n`);
  const port = await freePort();
  url = `http://127.0.0.1:${port}/`;
  dev = spawn(wrangler, ["dev", "--local", "--persist-to", persist, "--ip", "127.0.0.1", "--port", String(port)], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  dev.stdout.on("data", (d) => (log += d));
  dev.stderr.on("data", (d) => (log += d));
  for (let i = 0; ; i++) {
    const up = await fetch(url + "healthz").then((r) => r.ok, () => false);
    if (up) break;
    if (i > 600 || dev.exitCode !== null) throw new Error(`wrangler dev did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

after(async () => {
  if (dev && dev.exitCode === null) {
    process.kill(-dev.pid, "SIGINT"); // wrangler and its workerd
    await new Promise((resolve) => dev.on("exit", resolve));
  }
  rmSync(work, { recursive: true, force: true });
});

async function get(path) {
  const u = url + path.replace(/^\//, "");
  // A pooled keep-alive connection that wrangler dev's proxy closed while a
  // publish ran (tens of seconds) fails once: the request is sent again on
  // a new connection.
  const res = await fetch(u).catch(() => fetch(u)).catch((err) => {
    throw new Error(`${path}: ${err.message} (wrangler dev ${dev.exitCode === null ? "running" : "exited " + dev.exitCode}): ${log.slice(-3000)}`);
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) };
}

test("publish writes bundle, index, then repos.json", () => {
  for (const [name, r] of Object.entries(published)) {
    assert.equal(r.repo, name);
    assert.equal(r.unchanged, false);
    assert.deepEqual(r.written, [`${name}/${r.snapshot}.bundle`, `${name}/index.json`, "repos.json"]);
    assert.deepEqual(r.deleted, []);
  }
});

test("every published repository answers by name, as kontext api does", async () => {
  for (const [name, path] of [["demo", "src/billing/tax/vat.go"], ["alpha", "cmd/main.go"], ["beta", "web/app.ts"]]) {
    const st = await get(`/v1/repos/${name}/status`);
    assert.equal(st.status, 200);
    assert.equal(st.json.result.snapshot, published[name].snapshot);
    const g = await get(`/v1/repos/${name}/governing?path=${encodeURIComponent(path)}`);
    assert.equal(g.status, 200);
    assert.deepEqual(g.json.result.items, nativeGoverning(name, path));
    assert.ok(g.json.result.items.length > 0);
  }
  assert.equal((await get("/v1/repos/gamma/status")).status, 404);
});

test("GET /v1/repos lists the published repositories, paged", async () => {
  const first = await get("/v1/repos?limit=2");
  assert.equal(first.status, 200);
  assert.equal(first.json.result.total, 3);
  assert.deepEqual(first.json.result.repos.map((r) => r.name), ["demo", "beta"]);
  assert.equal(first.json.result.repos[0].default, true);
  assert.equal(first.json.result.repos[1].snapshot, published.beta.snapshot);
  const rest = await get(`/v1/repos?limit=2&cursor=${first.json.result.next_cursor}`);
  assert.deepEqual(rest.json.result.repos.map((r) => [r.name, r.snapshot, r.entries]), [["alpha", published.alpha.snapshot, 1]]);
  assert.equal(rest.json.result.next_cursor, undefined);
});

test("a republished bundle is seen on the next request; the replaced one is deleted; the same snapshot writes nothing", async () => {
  assert.equal((await get("/v1/repos/alpha/governing?path=web/x.ts")).json.result.items.length, 0);
  entry(repos.alpha, "2026-02-02-second", "web/**", "Lint the web code");
  git(repos.alpha, "add", "-A");
  git(repos.alpha, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "second");
  const again = publish("alpha");
  assert.notEqual(again.snapshot, published.alpha.snapshot);
  assert.deepEqual(again.deleted, [`alpha/${published.alpha.snapshot}.bundle`]);
  const st = await get("/v1/repos/alpha/status");
  assert.equal(st.json.result.snapshot, again.snapshot);
  assert.deepEqual((await get("/v1/repos/alpha/governing?path=web/x.ts")).json.result.items, nativeGoverning("alpha", "web/x.ts"));
  const old = spawnSync(wrangler, ["kv", "key", "get", `alpha/${published.alpha.snapshot}.bundle`, "--namespace-id", NAMESPACE, "--local", "--persist-to", persist, "--text"], { cwd: work, env, encoding: "utf8" });
  assert.match(old.stdout, /Value not found/);
  const same = publish("alpha");
  assert.equal(same.unchanged, true);
  assert.deepEqual(same.written, []);
});

test("past the memory budget the least recently used repositories are closed, by the engine's accounting, and answer again", async () => {
  const opened = async () => (await get("/v1/debug/memory")).json.result.opened;
  const budget = MEMORY_MB * 1048576;
  const answers = [["demo", "src/billing/tax/vat.go"], ["alpha", "cmd/main.go"], ["beta", "web/app.ts"]];
  for (const [name, path] of answers) assert.ok((await get(`/v1/repos/${name}/governing?path=${encodeURIComponent(path)}`)).json.ok);
  // The demo (over the budget alone) was closed when alpha opened; alpha
  // and beta fit together.
  const small = await opened();
  assert.deepEqual(small.map((o) => o.name), ["alpha", "beta"]);
  for (const o of small) assert.ok(o.bytes > 0 && o.bytes < budget / 2, `${o.name}: ${o.bytes} bytes accounted`);
  // The demo again: reopened from the store, the same answer, and the
  // others closed (the repository answering is never closed).
  const g = await get("/v1/repos/demo/governing?path=src/billing/tax/vat.go");
  assert.deepEqual(g.json.result.items, nativeGoverning("demo", "src/billing/tax/vat.go"));
  const big = await opened();
  assert.deepEqual(big.map((o) => o.name), ["demo"]);
  assert.ok(big[0].bytes > budget, `demo: ${big[0].bytes} bytes accounted`);
  // And back: every one answers as kontext api does.
  for (const [name, path] of answers) {
    assert.deepEqual((await get(`/v1/repos/${name}/governing?path=${encodeURIComponent(path)}`)).json.result.items, nativeGoverning(name, path));
  }
});
