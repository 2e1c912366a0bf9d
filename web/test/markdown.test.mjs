// Entry bodies in the console are rendered by the engine (engine.render:
// goldmark, raw HTML dropped) and shown as DOM built from an allow-list.
// Hostile bodies must neither run script nor become markup, and must not
// stop the page from answering.
// Run: make test-web   (or: node --test web/test/)

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { demoBundle, startServer, launch, newPage, waitReady } from "./helpers.mjs";

let browser, server;
before(async () => {
  browser = await launch();
  server = await startServer(demoBundle());
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const entry = (title, body) => `---\nstatus: accepted\ndate: 2026-03-01\npaths: ["src/**"]\n---\n# ${title}\n\n${body}\n`;

async function openEntry(bundle, id) {
  const url = server.addBundle(`${id}.json`, bundle);
  const { page, context, log } = await newPage(browser);
  await page.goto(server.url + "?bundle=" + encodeURIComponent(url) + "#entry=" + id);
  await waitReady(page);
  return { page, context, log, view: page.getByTestId("entry-view") };
}

test("an entry whose body holds 3,000 backticks opens, and the page keeps answering", async () => {
  const b = demoBundle();
  const ticks = "`".repeat(3000);
  b.files[".ai/decisions/2026-03-01-backticks.md"] = entry("Three thousand backticks",
    `Before ${ticks} after.\n\n${"` ``".repeat(1000)}\n\n${ticks}\n`);
  const { page, context, log, view } = await openEntry(b, "2026-03-01-backticks");
  await view.locator("#entry-title", { hasText: "Three thousand backticks" }).waitFor();
  const body = view.getByTestId("entry-body");
  assert.match(await body.locator("p").first().textContent(), new RegExp(`^Before ${ticks} after\\.$`), "the run is literal text");
  // The page still answers: search, and another entry opens.
  await page.fill("#search", "integer cents");
  await page.locator('[data-testid="search-result"][data-entry-id="2026-01-12-money-is-integer-cents"]').waitFor();
  await page.evaluate(() => { location.hash = "#entry=2026-01-12-money-is-integer-cents"; });
  await view.locator("#entry-title", { hasText: "Money is integer cents" }).waitFor();
  assert.deepEqual(log.errors, []);
  await context.close();
});

test("raw HTML and script in a body are neither run nor rendered as markup", async () => {
  const b = demoBundle();
  b.files[".ai/decisions/2026-03-02-raw-html.md"] = entry("Raw HTML body", [
    "Intro with <b>inline</b> <span style=\"color:red\" onmouseover=\"window.__pwned=1\">span</span> and <img src=x onerror=\"window.__pwned=1\">.",
    "",
    "<script>window.__pwned = 1; alert(1)</script>",
    "",
    "<svg onload=\"window.__pwned=1\"><circle r=5></circle></svg>",
    "",
    "<details open><summary>folded</summary><iframe src=\"javascript:window.__pwned=1\"></iframe></details>",
    "",
    "<style>body { display: none }</style>",
    "",
    "<a href=\"javascript:window.__pwned=1\">html link</a> [md link](javascript:window.__pwned=1) [[2026-01-12-money-is-integer-cents]]",
    "",
    "![pic](https://example.com/x.png) <https://example.com/auto>",
    "",
    "| a | b |\n|---|---|\n| <i>x</i> | `<script>` |",
  ].join("\n"));
  const { page, context, log, view } = await openEntry(b, "2026-03-02-raw-html");
  await view.locator("#entry-title", { hasText: "Raw HTML body" }).waitFor();
  const body = view.getByTestId("entry-body");
  await body.hover();
  await body.locator(".unsafe-link", { hasText: "md link" }).click();
  assert.equal(await page.evaluate(() => window.__pwned), undefined, "no script ran");
  assert.deepEqual(log.dialogs, []);
  // Only the allow-listed elements exist in the body.
  const tags = await body.evaluate((el) => [...new Set([...el.querySelectorAll("*")].map((n) => n.localName))].sort());
  const allowed = new Set(["div", "p", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "em", "strong",
    "del", "hr", "br", "a", "span", "table", "thead", "tbody", "tr", "th", "td"]);
  assert.deepEqual(tags.filter((t) => !allowed.has(t)), [], `elements ${tags}`);
  const attrs = await body.evaluate((el) => [...el.querySelectorAll("*")].flatMap((n) => [...n.attributes].map((a) => a.name)));
  assert.deepEqual([...new Set(attrs)].filter((a) => !["class", "href", "rel", "title", "data-lang", "start"].includes(a)), []);
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).display), "block", "no style from the body applied");
  // Outside code, the raw HTML is not shown as text either: it is dropped.
  const text = await body.evaluate((el) => { const c = el.cloneNode(true); c.querySelectorAll("code").forEach((n) => n.remove()); return c.textContent; });
  assert.doesNotMatch(text, /<script|<svg|<iframe|<details|<style|onerror|onload|<b>|<i>/, text);
  // Markdown around it still renders: links, entry links, tables, code; images are not loaded.
  const hrefs = await body.locator("a").evaluateAll((els) => els.map((a) => a.getAttribute("href")));
  assert.deepEqual(hrefs, ["#entry=2026-01-12-money-is-integer-cents", "https://example.com/auto"]);
  assert.equal(await body.locator("td code").textContent(), "<script>");
  assert.equal(await body.locator('.unsafe-link[title="image not loaded"]').textContent(), "pic");
  assert.deepEqual(log.errors, []);
  await context.close();
});
