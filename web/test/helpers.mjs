// Shared fixtures of the console's end-to-end tests: a tiny static server
// (the Go review server's routes), bundles built from testdata/demo, the
// one-file HTML built the way `kontext review --out` does, and the browser.

import { createServer } from "node:http";
import { readFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, extname, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const webDir = join(repoRoot, "web");
export const wasmDir = join(repoRoot, "wasm");
export const demoDir = join(repoRoot, "testdata", "demo");
export const artifacts = join(repoRoot, "test-artifacts", "web");
mkdirSync(artifacts, { recursive: true });

export const CHANGED_PATHS = ["src/billing/tax/vat.go", "src/export/nightly.go"];
export const EDITED = ".ai/decisions/2026-01-14-vat-is-rounded-per-line.md";
export const REMOVED = ".ai/learnings/2026-04-09-excel-needs-a-bom-in-csv-exports.md";

import { demoFiles } from "../../wasm/test/helpers.mjs";
export { demoFiles };

/** The demo bundle: head = the demo files; base = one entry edited, one removed (so head adds it). */
export function demoBundle() {
  const files = demoFiles();
  const base = { ...files };
  delete base[REMOVED];
  base[EDITED] = base[EDITED].replace("so we round per line.", "so we round per line, always.\n\nAn older sentence the change deleted.");
  return {
    schema: "kontext.bundle/v1",
    generated_at: "2026-11-30T12:00:00Z",
    repository: { name: "ledgerly", head: "b".repeat(40), base: "a".repeat(40), base_source: "origin-head", dirty: false },
    config: null,
    files,
    base_files: base,
    changed_paths: [...CHANGED_PATHS],
    history: {
      "2026-04-14-nightly-export-is-a-cronjob": {
        verification: { at: "2026-04-20T08:47:30Z", kind: "read", by: "Demo Dev", passed: null },
        last_verified: { at: "2026-04-20T08:47:30Z", kind: "read", by: "Demo Dev" },
        since: { commits: 1, head: "b".repeat(40), paths: ["src/export/nightly.go"], recent: [] },
        since_verified: null, premises: [], failing: false, amended_since: false,
      },
      "2026-01-14-vat-is-rounded-per-line": {
        verification: { at: "2026-11-01T10:00:00Z", kind: "verify", passed: false, by: "CI" },
        last_verified: null, since: null, since_verified: null, premises: [], failing: true, amended_since: false,
      },
    },
    drift: [],
  };
}

/** A bundle with hostile entries: every payload must render inert. */
export function xssBundle() {
  const b = demoBundle();
  const evil = [
    "---",
    "status: accepted",
    "date: 2026-02-01",
    "summary: <img src=x onerror=\"window.__pwned=1;alert(1)\"> summary",
    'paths: ["src/billing/tax/vat.go"]',
    "tags: [xss]",
    "---",
    "# Evil <script>window.__pwned=1;alert(1)</script> title",
    "",
    "<script>window.__pwned=1;alert(1)</script>",
    "",
    "<img src=x onerror=\"window.__pwned=1;alert(1)\">",
    "",
    "[click me](javascript:alert(1)) and [tabbed](java\tscript:window.__pwned=1) and [data](data:text/html,<script>alert(1)</script>)",
    "[vb](vbscript:msgbox(1)) [ok](https://example.com/safe) [rel](docs/x.md) [frag](#entry=2026-01-12-money-is-integer-cents)",
    "",
    "<!-- a comment <script>window.__pwned=1</script> -->",
    "<div onclick=\"window.__pwned=1\" style=\"position:fixed\">raw html</div>",
    "<iframe src=\"javascript:window.__pwned=1\"></iframe>",
    "![img](x onerror=alert(1))",
    "`<script>alert(1)</script>` **<b>bold</b>** _<i>em</i>_",
    "",
    "```html",
    "<script>window.__pwned=1</script>",
    "```",
    "",
  ].join("\n");
  b.files[".ai/decisions/2026-02-01-evil.md"] = evil;
  b.changed_paths.push("src/<img src=x onerror=alert(1)>.go");
  b.repository.name = "<img src=x onerror=alert(1)>";
  return b;
}

/** A bundle of n entries with mixed specificity over src/mod<k>/. */
export function bigBundle(n = 1000) {
  const files = {};
  for (let i = 0; i < n; i++) {
    const mod = i % 40;
    const kind = ["decisions", "conventions", "learnings", "incidents", "architecture"][i % 5];
    const status = kind === "decisions" ? "accepted" : "active";
    const pat = i % 3 === 0 ? `src/mod${mod}/**` : i % 3 === 1 ? `src/mod${mod}/*.go` : `src/mod${mod}/file${i % 7}.go`;
    files[`.ai/${kind}/2026-01-01-entry-${String(i).padStart(4, "0")}.md`] =
      `---\nstatus: ${status}\ndate: 2026-01-01\nsummary: Entry ${i} about module ${mod} and topic t${i % 13}.\npaths: ["${pat}"]\ntags: [mod${mod}, t${i % 13}]\n---\n# Entry ${i} on module ${mod}\n\nBody of entry ${i}: rounding, exports, sessions, **module ${mod}**.\n\n- point one\n- point two\n`;
  }
  const changed = [];
  for (let k = 0; k < 20; k++) changed.push(`src/mod${k}/file${k % 7}.go`);
  return {
    schema: "kontext.bundle/v1", generated_at: "2026-11-30T12:00:00Z",
    repository: { name: "big", head: "c".repeat(40), base: null, base_source: null, dirty: false },
    config: null, files, base_files: null, changed_paths: changed, history: {}, drift: [],
  };
}

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8", ".json": "application/json", ".wasm": "application/wasm", ".gz": "application/gzip" };

/**
 * Serves / → web/, /engine/* → wasm/*, /bundle.json → the bundle (mutable
 * via setBundle). opts.gzip false: the engines' .gz files answer 404 (a
 * host that has only the .wasm files); "encoded": they are sent with
 * Content-Encoding: gzip (a host that marks .gz files so).
 */
export async function startServer(bundle, opts = {}) {
  let body = bundle == null ? null : JSON.stringify(bundle);
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    let path = decodeURIComponent(url.pathname);
    let file = null;
    if (path === "/bundle.json" || path.startsWith("/bundles/")) {
      const b = path === "/bundle.json" ? body : extra.get(path);
      if (b == null) { res.writeHead(404).end("no bundle"); return; }
      res.writeHead(200, { "content-type": "application/json" }).end(b);
      return;
    }
    if (path === "/") path = "/index.html";
    if (path.startsWith("/engine/") && path.endsWith(".gz") && opts.gzip === false) { res.writeHead(404).end("not found"); return; }
    if (path.startsWith("/engine/") && path.endsWith(".gz") && opts.gzip === "encoded") {
      const f = join(wasmDir, normalize(path.slice("/engine/".length)));
      if (!existsSync(f)) { res.writeHead(404).end("not found"); return; }
      res.writeHead(200, { "content-type": "application/gzip", "content-encoding": "gzip" }).end(readFileSync(f));
      return;
    }
    if (path.startsWith("/engine/")) file = join(wasmDir, normalize(path.slice("/engine/".length)));
    else file = join(webDir, normalize(path));
    if (!file.startsWith(webDir) && !file.startsWith(wasmDir)) { res.writeHead(403).end(); return; }
    if (!existsSync(file)) { res.writeHead(404).end("not found"); return; }
    res.writeHead(200, { "content-type": TYPES[extname(file)] || "application/octet-stream" }).end(readFileSync(file));
  });
  const extra = new Map();
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    setBundle(b) { body = b == null ? null : JSON.stringify(b); },
    addBundle(name, b) { extra.set("/bundles/" + name, JSON.stringify(b)); return `/bundles/${name}`; },
    close: () => new Promise((r) => server.close(r)),
  };
}

/** `<` in inlined JSON/JS must not close the script element. */
const scriptSafe = (s) => s.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");

/**
 * The one-file HTML, built as `kontext review --out` builds it
 * (internal/review/singlefile.go): style.css in place of the stylesheet
 * link; the data script and the bundled console module (web/app.js, made by
 * make web) in place of the app.js tag.
 */
export function oneFileHTML(bundle) {
  const css = readFileSync(join(webDir, "style.css"), "utf8");
  const app = readFileSync(join(webDir, "app.js"), "utf8");
  const gzPath = join(wasmDir, "kontext.wasm.gz");
  const gz = existsSync(gzPath) ? readFileSync(gzPath) : gzipSync(readFileSync(join(wasmDir, "kontext.wasm")));
  const data = `window.__KONTEXT_BUNDLE__ = ${JSON.stringify(bundle).replace(/</g, "\\u003c")};\nwindow.__KONTEXT_WASM_GZ_B64__ = "${gz.toString("base64")}";`;
  const styleTag = '<link rel="stylesheet" href="./style.css">';
  const scriptTag = '<script type="module" src="./app.js"></script>';
  let html = readFileSync(join(webDir, "index.html"), "utf8");
  if (!html.includes(styleTag) || !html.includes(scriptTag)) throw new Error("index.html lost a tag the one-file build replaces");
  html = html.replace(styleTag, () => `<style>\n${css.replace(/<\/style/gi, "<\\/style")}\n</style>`);
  html = html.replace(scriptTag, () => `<script>${data}</script>\n<script type="module">\n${scriptSafe(app)}\n</script>`);
  return html;
}

export function writeArtifact(name, text) {
  const p = join(artifacts, name);
  writeFileSync(p, text);
  return p;
}

export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

export async function launch() {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: process.env.KONTEXT_CHROMIUM || "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/** A page that records console errors, page errors and dialogs. */
export async function newPage(browser, opts = {}) {
  const context = await browser.newContext({ viewport: opts.viewport || { width: 1280, height: 900 }, ...(opts.context || {}) });
  const page = await context.newPage();
  const log = { errors: [], dialogs: [] };
  page.on("console", (m) => { if (m.type() === "error") log.errors.push(m.text()); });
  page.on("pageerror", (e) => log.errors.push("pageerror: " + e.message));
  page.on("dialog", (d) => { log.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  return { page, context, log };
}

export async function waitReady(page) {
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
}
