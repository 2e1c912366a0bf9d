// The pull-request comment (`kontext review --format markdown`) as a
// reviewer sees it: rendered with goldmark and GitHub's table extension
// (build/mdrender) and opened in Chromium next to the repository, so its
// relative links (no GitHub server in the environment) point at the entry
// files: every table keeps its columns, every link resolves to an entry
// file, and a 3,000-file change stays under GitHub's 65,536-character limit.
// Run: make test-web   (needs KONTEXT_REVIEW_BIN and KONTEXT_REVIEW_DEMO)

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { repoRoot, launch, newPage, artifacts } from "./helpers.mjs";

const bin = process.env.KONTEXT_REVIEW_BIN;
const demo = process.env.KONTEXT_REVIEW_DEMO;
const env = { ...process.env };
for (const k of ["GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "CI_PROJECT_URL", "GITHUB_BASE_REF", "CI_MERGE_REQUEST_DIFF_BASE_SHA"]) delete env[k];

let browser, mdrender, work;
before(async () => {
  assert.ok(bin && demo, "KONTEXT_REVIEW_BIN and KONTEXT_REVIEW_DEMO must be set (make test-web)");
  work = mkdtempSync(join(tmpdir(), "kontext-prcomment-"));
  mdrender = join(work, "mdrender");
  execFileSync("go", ["build", "-o", mdrender, "./build/mdrender"], { cwd: repoRoot, stdio: "inherit" });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The comment of dir's change, rendered into dir/comment.html. */
function render(dir, args) {
  const md = execFileSync(bin, ["-C", dir, "review", "--format", "markdown", ...args], { env, maxBuffer: 1 << 26 }).toString();
  const html = execFileSync(mdrender, { input: md, maxBuffer: 1 << 26 }).toString();
  const file = join(dir, "comment.html");
  writeFileSync(file, html);
  return { md, file };
}

async function check(name, dir, file) {
  const { page, context, log } = await newPage(browser);
  await page.goto(pathToFileURL(file).href);
  const tables = await page.$$eval("table", (ts) => ts.map((t) => ({
    head: t.querySelectorAll("thead th").length,
    rows: [...t.querySelectorAll("tbody tr")].map((r) => r.children.length),
  })));
  assert.ok(tables.length > 0, `${name}: no table rendered`);
  for (const t of tables) {
    assert.ok(t.head >= 3, `${name}: a table with ${t.head} columns`);
    for (const n of t.rows) assert.equal(n, t.head, `${name}: a row with ${n} cells in a ${t.head}-column table`);
  }
  const hrefs = await page.$$eval("a[href]", (as) => as.map((a) => a.href));
  assert.ok(hrefs.length > 0, `${name}: no links`);
  for (const href of hrefs) {
    assert.ok(href.startsWith("file://"), `${name}: link ${href} does not point into the repository`);
    const target = fileURLToPath(href);
    assert.ok(target.startsWith(dir), `${name}: link ${href} leaves the repository`);
    assert.ok(existsSync(target) && statSync(target).isFile(), `${name}: link ${href} resolves to no file`);
    assert.match(target.slice(dir.length), /^\/(\.ai|docs\/adr|\.cursor\/rules)\//, `${name}: link ${href} is not an entry file`);
  }
  await page.screenshot({ path: join(artifacts, `prcomment-${name}.png`), fullPage: false });
  assert.deepEqual(log.errors, []);
  await context.close();
  return { tables, hrefs };
}

test("the demo's comment renders with whole tables and links to the entry files", async () => {
  const dir = join(work, "demo");
  cpSync(demo, dir, { recursive: true });
  const { md, file } = render(dir, ["--base", "origin/main"]);
  assert.ok(md.startsWith("<!-- kontext:pr-comment -->\n"));
  const { tables } = await check("demo", dir, file);
  assert.ok(tables.length >= 3, "changes, drift and directory tables");
});

test("a 3,000-file change stays under 65,536 characters with whole tables", async () => {
  const dir = join(work, "big");
  cpSync(demo, dir, { recursive: true });
  for (let i = 0; i < 3000; i++) {
    const d = join(dir, "src", `area${i % 40}`, `pkg${i % 400}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `file${i}.go`), "package x\n");
  }
  const { md, file } = render(dir, ["--base", "HEAD"]);
  assert.ok([...md].length < 65536, `the comment is ${[...md].length} characters`);
  assert.match(md, /\*\*3,00\d files\*\* changed/);
  await check("3000-files", dir, file);
});
