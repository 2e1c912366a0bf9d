// Times the review console's open in headless Chromium as the 1,000-entry
// test of web/test/console.test.mjs does (from navigation until the first
// governing entry is visible to playwright), with the page's start-up
// steps: its performance marks (kontext:*) and when the first governing
// entry entered the DOM, in milliseconds after navigation start. With
// other console builds (directories holding index.html, style.css and
// app.js, e.g. one built from another commit), the builds take turns and
// the medians are printed per build.
//
//   node web/bench/console-steps.mjs bundle.json [runs] [other-build-dir ...]
import { createServer } from "node:http";
import { readFileSync, existsSync } from "node:fs";
import { join, extname, normalize } from "node:path";
import { launch, newPage, webDir, wasmDir } from "../test/helpers.mjs";

const [file, runsArg, ...others] = process.argv.slice(2);
const bundle = readFileSync(file);
const runs = Number(runsArg || 3);
const builds = [webDir, ...others];
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".wasm": "application/wasm" };

// /<k>/… serves build k; /<k>/engine/… the engine; /bundle.json the bundle.
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  if (path === "/bundle.json") return void res.writeHead(200, { "content-type": "application/json" }).end(bundle);
  const m = /^\/(\d+)\/(.*)$/.exec(path);
  if (!m || !builds[Number(m[1])]) return void res.writeHead(404).end();
  const rest = m[2] || "index.html";
  const f = rest.startsWith("engine/") ? join(wasmDir, normalize(rest.slice(7))) : join(builds[Number(m[1])], normalize(rest));
  if (!existsSync(f)) return void res.writeHead(404).end();
  res.writeHead(200, { "content-type": TYPES[extname(f)] || "application/octet-stream" }).end(readFileSync(f));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}/`;

const browser = await launch();
const results = builds.map(() => []);
for (let r = 0; r < runs; r++) {
  for (let k = 0; k < builds.length; k++) {
    const { page, context } = await newPage(browser);
    await page.addInitScript(() => {
      new MutationObserver((_, obs) => {
        if (document.querySelector('[data-testid="governing-entry"]')) {
          obs.disconnect();
          performance.mark("kontext:bench-inserted");
        }
      }).observe(document, { childList: true, subtree: true });
    });
    const t0 = Date.now();
    await page.goto(`${base}${k}/?bundle=/bundle.json`);
    await page.getByTestId("governing-entry").first().waitFor({ timeout: 60000 });
    const visible = Date.now() - t0;
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    const got = await page.evaluate(() => ({
      origin: performance.timeOrigin,
      marks: performance.getEntriesByType("mark").filter((m) => m.name.startsWith("kontext:")).map((m) => [m.name.slice(8), Math.round(m.startTime)]),
      open: Number(document.body.dataset.openMs),
    }));
    const row = { visible, nav: Math.round(got.origin - t0), "open+render": got.open, ...Object.fromEntries(got.marks) };
    results[k].push(row);
    console.log(`build ${k} run ${r + 1}: ` + Object.entries(row).map(([n, v]) => `${n} ${v}`).join(", "));
    await context.close();
  }
}
const median = (xs) => { const s = xs.filter((x) => x != null).sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)] : null; };
for (let k = 0; k < builds.length; k++) {
  const keys = [...new Set(results[k].flatMap((row) => Object.keys(row)))];
  console.log(`median build ${k} (${builds[k]}): ` + keys.map((n) => `${n} ${median(results[k].map((row) => row[n]))}`).join(", "));
}
await browser.close();
server.close();
