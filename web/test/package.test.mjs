// The npm package @kontext/engine in a browser, the two ways a page gets it
// (wasm/README.md, "In a browser"): bundled by esbuild with --bundle
// --platform=browser and no other flag (the "browser" export condition
// selects index.js, which imports nothing of Node's; the bundle must hold
// no node: import), and unbundled (a plain page's <script type="module">,
// an import map naming the package's index.js). Each page, served from
// 127.0.0.1, loads the engine, opens a small file set and answers
// entries.governing as the package does under Node (its "node" entry).
// The package is the npm pack tarball, installed as a consumer installs it.
// Run: make test-web   (or: node --test web/test/package.test.mjs)

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { pathToFileURL } from "node:url";

import { launch, newPage, repoRoot } from "./helpers.mjs";
import { packTarball, normalise, NOW } from "../../wasm/test/helpers.mjs";

const ESBUILD = join(repoRoot, "node_modules", ".bin", "esbuild");
const INPUT = { paths: ["src/billing/tax/vat.go", "src/export/nightly.go"] };

// A small file set: a decision and a convention with paths.
const FILES = {
  ".ai/decisions/2026-01-14-vat-is-rounded-per-line.md":
    "---\nstatus: accepted\ndate: 2026-01-14\nsummary: VAT is rounded per line.\npaths: [\"src/billing/tax/**\"]\ntags: [billing]\n---\n# VAT is rounded per line\n\nThe tax office rounds per line, so we round per line.\n",
  ".ai/conventions/go-errors-wrap.md":
    "---\nstatus: active\ndate: 2026-01-02\nsummary: Wrap errors with context.\npaths: [\"src/**/*.go\"]\n---\n# Wrap errors\n\nUse fmt.Errorf with %w.\n",
};

// The page's code, the same for both ways: window.__run answers
// entries.governing over the file set. WASM is how it names the engine.
const pageCode = (wasm) => `import { loadEngine } from "@kontext/engine";
window.__run = async (files, input, now) => {
  const engine = await loadEngine(${wasm});
  const kb = engine.open({ files, now });
  return kb.request("entries.governing", input);
};
`;

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".wasm": "application/wasm", ".json": "application/json" };

let dir, pkg, www, server, base, browser, nodeAnswer;

before(async () => {
  assert.ok(existsSync(ESBUILD), "node_modules/.bin/esbuild is missing: run npm ci");
  dir = mkdtempSync(join(tmpdir(), "kontext-browser-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", packTarball()], { cwd: dir, stdio: "pipe" });
  pkg = join(dir, "node_modules", "@kontext", "engine");
  www = join(dir, "www");
  mkdirSync(join(www, "esm"), { recursive: true });
  mkdirSync(join(www, "iife"), { recursive: true });

  // The plain page: an import map names the package's index.js; the
  // engine is the package's own kontext.wasm beside it (loadEngine()).
  writeFileSync(join(www, "plain.html"), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>plain</title>
<script type="importmap">{"imports": {"@kontext/engine": "/pkg/index.js"}}</script>
<script type="module">
${pageCode("")}</script>
`);

  // The bundled pages. An ES module bundle finds kontext.wasm beside itself
  // (the README's new URL("./kontext.wasm", import.meta.url)); esbuild's
  // default output (a classic script, no import.meta) is given the URL
  // the page serves it at.
  writeFileSync(join(dir, "esm.js"), pageCode(`{ wasm: new URL("./kontext.wasm", import.meta.url) }`));
  writeFileSync(join(dir, "iife.js"), pageCode(`{ wasm: "/iife/kontext.wasm" }`));
  for (const [name, extra] of [["esm", ["--format=esm"]], ["iife", []]]) {
    execFileSync(ESBUILD, [`${name}.js`, "--bundle", "--platform=browser", ...extra, `--outfile=www/${name}/app.js`, `--metafile=${name}.meta.json`, "--log-level=warning"], { cwd: dir, stdio: "pipe" });
    copyFileSync(join(pkg, "kontext.wasm"), join(www, name, "kontext.wasm"));
    writeFileSync(join(www, `${name}.html`), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>${name}</title>
<script${name === "esm" ? ' type="module"' : ""} src="/${name}/app.js"></script>
`);
  }

  // What the package answers under Node, through its "node" entry.
  const { loadEngine } = await import(pathToFileURL(join(pkg, "node.js")).href);
  nodeAnswer = (await loadEngine()).open({ files: FILES, now: NOW }).request("entries.governing", INPUT);
  assert.equal(nodeAnswer.ok, true, JSON.stringify(nodeAnswer));

  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const file = path.startsWith("/pkg/") ? join(pkg, normalize(path.slice(5))) : join(www, normalize(path));
    if (!(file.startsWith(pkg + sep) || file.startsWith(www + sep)) || !existsSync(file)) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] || "application/octet-stream" }).end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await new Promise((r) => (server ? server.close(r) : r()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function answer(page) {
  const { page: p, context, log } = await newPage(browser);
  try {
    await p.goto(base + page);
    await p.waitForFunction(() => typeof window.__run === "function", null, { timeout: 30000 });
    const got = await p.evaluate(([files, input, now]) => window.__run(files, input, now), [FILES, INPUT, NOW]);
    assert.deepEqual(log.errors, [], "no console or page errors");
    return got;
  } finally {
    await context.close();
  }
}

function checkAnswer(got) {
  assert.equal(got.ok, true, JSON.stringify(got));
  const ids = JSON.stringify(got.result);
  assert.match(ids, /2026-01-14-vat-is-rounded-per-line/);
  assert.match(ids, /go-errors-wrap/);
  assert.deepEqual(normalise("entries.governing", got), normalise("entries.governing", nodeAnswer), "the browser answers as Node does");
}

for (const name of ["esm", "iife"]) {
  test(`esbuild --bundle --platform=browser (${name}): the browser entry, no node: import, and the page answers entries.governing`, async () => {
    const meta = JSON.parse(readFileSync(join(dir, `${name}.meta.json`), "utf8"));
    const inputs = Object.keys(meta.inputs);
    assert.ok(inputs.includes("node_modules/@kontext/engine/index.js"), `the browser condition selects index.js: ${inputs}`);
    assert.ok(!inputs.some((f) => f.endsWith("/node.js")), `node.js is not bundled: ${inputs}`);
    for (const [out, o] of Object.entries(meta.outputs)) {
      assert.deepEqual(o.imports, [], `${out} imports nothing (no node: module left external)`);
    }
    const js = readFileSync(join(www, name, "app.js"), "utf8");
    assert.doesNotMatch(js, /\bnode:[a-z]/, "the bundle names no node: module");
    assert.doesNotMatch(js, /\brequire\s*\(\s*["'`]/, "the bundle requires nothing");
    checkAnswer(await answer(`${name}.html`));
  });
}

test("a plain page: <script type=module> imports the package's index.js unbundled and answers entries.governing", async () => {
  const src = readFileSync(join(pkg, "index.js"), "utf8");
  assert.doesNotMatch(src, /\bnode:[a-z]/, "index.js (the browser entry) names no node: module");
  checkAnswer(await answer("plain.html"));
});
