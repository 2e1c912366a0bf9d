// End-to-end: the real `kontext review` binary (console and engine embedded
// by make build) on the demo repository — served on 127.0.0.1, and as the
// one-file HTML of `kontext review --out` opened from file://.
// Run by make test-web, which builds the binary and the demo repository.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { artifacts, launch, newPage, waitReady } from "./helpers.mjs";

const bin = process.env.KONTEXT_REVIEW_BIN;
const demo = process.env.KONTEXT_REVIEW_DEMO;
const skip = !bin || !demo ? "KONTEXT_REVIEW_BIN / KONTEXT_REVIEW_DEMO not set (make test-web sets them)" : false;

let browser, server;
before(async () => {
  if (skip) return;
  browser = await launch();
});
after(async () => {
  server?.kill("SIGTERM");
  await browser?.close();
});

/** Starts `kontext review --port 0 --no-open` and returns its URL. */
function startReview() {
  return new Promise((resolve, reject) => {
    server = spawn(bin, ["-C", demo, "review", "--port", "0", "--no-open"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    server.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) resolve(m[0]);
    });
    server.stderr.on("data", (d) => { err += d; });
    server.on("exit", (code) => reject(new Error(`kontext review exited ${code}: ${err}`)));
    setTimeout(() => reject(new Error("kontext review printed no URL: " + out + err)), 20000);
  });
}

/** The demo's change (origin/main..working) as the console must show it. */
async function checkDemoReview(page, log, label) {
  await waitReady(page);
  const files = await page.getByTestId("changed-file").evaluateAll((els) => els.map((e) => e.dataset.path));
  assert.ok(files.includes("src/export/nightly.go"), `${label}: changed files ${files}`);
  const file = page.locator('[data-testid="changed-file"][data-path="src/export/nightly.go"]');
  const governing = await file.getByTestId("governing-entry").evaluateAll((els) =>
    els.map((e) => [e.dataset.entryId, Number(e.dataset.specificity), e.querySelector('[data-testid="rule"]')?.textContent]));
  assert.ok(governing.some(([id, spec, rule]) => id === "2026-04-14-nightly-export-is-a-cronjob" && spec === 2 && rule === "src/export/**"),
    `${label}: governing ${JSON.stringify(governing)}`);
  const specs = governing.map(([, s]) => s);
  assert.deepEqual(specs, [...specs].sort((a, b) => b - a), `${label}: narrow rules first`);
  const drift = await page.getByTestId("drift-entry").allTextContents();
  assert.ok(drift.some((t) => t.includes("Nightly export is a Kubernetes CronJob")), `${label}: drift ${drift}`);
  // Search and a deep link work on the real bundle too.
  await page.fill("#search", "integer cents");
  await page.getByTestId("search-result").first().waitFor();
  const hits = await page.getByTestId("search-result").evaluateAll((els) => els.map((e) => e.dataset.entryId));
  assert.ok(hits.includes("2026-01-12-money-is-integer-cents"), `${label}: search ${hits}`);
  assert.deepEqual(log.errors, [], `${label}: console errors`);
  assert.deepEqual(log.dialogs, [], `${label}: dialogs`);
}

/** What a page shows of the change: the changed entries and every governing row. */
function shown(page) {
  return page.evaluate(() => ({
    changed: [...document.querySelectorAll('[data-testid="changed-entry"]')].map((e) => `${e.dataset.entryId} ${e.dataset.change}`).sort(),
    governing: [...document.querySelectorAll('[data-testid="changed-file"]')].map((f) =>
      `${f.dataset.path}: ${[...f.querySelectorAll('[data-testid="governing-entry"]')].map((e) => e.dataset.entryId).join(",")}`),
  }));
}

let servedShows = null; // what the served page showed

test("kontext review serves the console for the demo's change", { skip }, async () => {
  const url = await startReview();
  const { page, log, context } = await newPage(browser);
  await page.goto(url);
  await checkDemoReview(page, log, "served");
  // The one engine, fetched once, opened the head (from the bundle's
  // compiled snapshot), the base and the changed entries.
  const steps = await page.evaluate(() => ({
    wasm: performance.getEntriesByType("resource").map((r) => new URL(r.name).pathname).filter((p) => /\.wasm(\.gz)?$/.test(p)).sort(),
    governing: performance.getEntriesByName("kontext:governing")[0]?.startTime,
  }));
  assert.deepEqual(steps.wasm, ["/engine/kontext.wasm.gz"]);
  assert.ok(steps.governing > 0, `the governing results were shown: ${JSON.stringify(steps)}`);
  servedShows = await shown(page);
  assert.ok(servedShows.changed.length > 0, "the demo's change revises entries");
  await page.goto(url + "#entry=2026-04-14-nightly-export-is-a-cronjob");
  await page.getByTestId("entry-view").waitFor();
  assert.match(await page.getByTestId("entry-view").textContent(), /Nightly export is a Kubernetes CronJob/);
  await page.screenshot({ path: join(artifacts, "kontext-review-served.png"), fullPage: true });
  await context.close();
});

test("kontext review --out writes one file that works from file://", { skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "kontext-review-"));
  const out = join(dir, "review.html");
  const printed = execFileSync(bin, ["-C", demo, "review", "--out", out], { encoding: "utf8" });
  assert.match(printed, /wrote .*review\.html \(\d+ bytes\)/);
  console.log(`one-file review of the demo: ${statSync(out).size} bytes`);
  const { page, log, context } = await newPage(browser);
  // Offline: nothing but the file itself may load.
  await context.route("**/*", (route) => (route.request().url().startsWith("file:") ? route.continue() : route.abort()));
  await page.goto(pathToFileURL(out).href);
  await checkDemoReview(page, log, "one file");
  // The one-file page runs the full engine alone: it shows the same change.
  if (servedShows) assert.deepEqual(await shown(page), servedShows);
  await page.screenshot({ path: join(artifacts, "kontext-review-onefile.png"), fullPage: true });
  await context.close();
});
