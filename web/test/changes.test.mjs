// What changed, as the console and the pull-request comment show it: on a
// real change whose base has no configuration (the adoption commit is in
// it), the console served with the bundle `kontext review` builds and the
// comment `kontext review --format markdown` prints name the same entries,
// count them alike and show the same one-line configuration warning; a
// long list of changed entries is bounded ("and N more").
// Run: KONTEXT_REVIEW_BIN=<a kontext binary> node --test web/test/changes.test.mjs
// (make test-web sets it; needs web/app.js and wasm/kontext.wasm: make web).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { artifacts, bigBundle, launch, newPage, startServer, waitReady } from "./helpers.mjs";

const bin = process.env.KONTEXT_REVIEW_BIN;
const env = {
  ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Web Test", GIT_AUTHOR_EMAIL: "web@example.com", GIT_COMMITTER_NAME: "Web Test", GIT_COMMITTER_EMAIL: "web@example.com",
};
for (const k of ["GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "CI_PROJECT_URL", "GITHUB_BASE_REF", "CI_MERGE_REQUEST_DIFF_BASE_SHA"]) delete env[k];

let browser, work;
before(async () => {
  assert.ok(bin, "KONTEXT_REVIEW_BIN must name a kontext binary (make test-web sets it)");
  work = mkdtempSync(join(tmpdir(), "kontext-changes-"));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const adr = (n, title) => `# ${n}. ${title}\n\nDate: 2026-01-0${n}\n\n## Status\n\nAccepted\n\n## Context\n\nc\n\n## Decision\n\n${title}.\n\n## Consequences\n\ne\n`;

function write(dir, files) {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
}

/** The console's view of what changed: the count, the counts by change, the entries, the warning. */
function consoleShows(page) {
  return page.evaluate(() => ({
    governing: Number(document.querySelector('[data-testid="stat-governing"]').dataset.value),
    stat: Number(document.querySelector('[data-testid="stat-changed"]').dataset.value),
    count: Number(document.querySelector('[data-testid="change-counts"]')?.dataset.value),
    counts: document.querySelector('[data-testid="change-counts"]')?.textContent,
    entries: [...document.querySelectorAll('[data-testid="changed-entry"]')].map((e) => ({
      id: e.dataset.entryId, change: e.dataset.change,
      kind: e.querySelector(".kind").textContent,
      title: e.querySelector(".entry-link, strong").textContent,
      status: e.querySelector('[data-testid="change-status"]')?.textContent,
      file: e.querySelector('[data-testid="change-file"]').textContent,
    })),
    more: document.querySelector('[data-testid="changes-more"]')?.dataset.value,
    warnings: [...document.querySelectorAll('[data-testid="config-warning"]')].map((e) => e.textContent),
  }));
}

test("the console and the comment name the same changed entries across the adoption commit", async () => {
  const dir = join(work, "repo");
  mkdirSync(dir);
  const git = (...args) => execFileSync("git", args, { cwd: dir, env }).toString().trim();
  git("init", "-q", "-b", "main");
  write(dir, { "docs/adr/0001-record-decisions.md": adr(1, "Record decisions"), "docs/adr/0002-use-go.md": adr(2, "Use Go"), "src/a.go": "package a\n" });
  git("add", "-A");
  git("commit", "-q", "-m", "base");
  const base = git("rev-parse", "HEAD");
  write(dir, {
    ".kontext.toml": 'version = 1\n\n[[kinds.decision.include]]\ndir = "docs/adr"\nstyle = "adr"\n',
    "docs/adr/0003-use-chi.md": adr(3, "Use chi"),
    ".ai/conventions/wrap-errors.md": '---\npaths: ["src/**"]\n---\n# Wrap errors\n\nAlways.\n',
    ".ai/conventions/everything.md": '---\npaths: ["**"]\n---\n# Be kind\n\nEverywhere.\n',
    "docs/adr/0002-use-go.md": adr(2, "Use Go").replace("Use Go.", "Use Go, the latest release."),
  });
  git("add", "-A");
  git("commit", "-q", "-m", "adopt kontext");
  write(dir, { "docs/adr/0004-use-htmx.md": adr(4, "Use htmx"), "src/a.go": "package a\n\nfunc A() {}\n" }); // not committed: the local review shows them

  const comment = execFileSync(bin, ["-C", dir, "review", "--format", "markdown", "--base", base], { env }).toString();
  const bundle = JSON.parse(execFileSync(bin, ["-C", dir, "bundle", "--base", base, "--worktree", "-o", "-"], { env }).toString());
  const server = await startServer(bundle);
  const { page, log, context } = await newPage(browser);
  try {
    await page.goto(server.url);
    await waitReady(page);
    const shows = await consoleShows(page);
    await page.screenshot({ path: join(artifacts, "changes-adoption.png"), fullPage: true });

    // The console: the two added ADRs and the revised one, never the
    // unchanged first ADR (it was "added" when the base was read without
    // its log).
    assert.deepEqual(shows.entries.map((e) => `${e.id} ${e.change}`),
      ["0003-use-chi added", "0004-use-htmx added", "everything added", "wrap-errors added", "0002-use-go revised"]);
    assert.equal(shows.stat, 5);
    assert.equal(shows.count, 5);
    assert.match(shows.counts, /^5 entries changed: 4 added · 1 revised$/);

    // The comment counts them alike and names each with kind, status and file link.
    const m = comment.match(/^#### (\d+) entr(?:y|ies) changed by this change\n\n(.*)$/m);
    assert.ok(m, "the comment has no count of changed entries:\n" + comment);
    assert.equal(Number(m[1]), shows.stat);
    assert.equal(m[2], shows.counts.replace(/^.*?: /, ""));
    for (const e of shows.entries) {
      const row = comment.split("\n").find((l) => l.startsWith(`| ${e.change} | ${e.kind} | [`) && l.includes(`](${e.file}) | ${e.status} |`));
      assert.ok(row, `the comment does not name ${e.id}:\n${comment}`);
      assert.ok(row.includes(e.title), `${e.id}: ${row}`);
    }

    // The entries governing the change: the same count.
    const g = comment.match(/ · \*\*(\d+) entr(?:y|ies)\*\* govern them · /);
    assert.ok(g, comment);
    assert.equal(Number(g[1]), shows.governing);
    assert.ok(shows.governing > 0, "a convention governs src/a.go");

    // The same warning, one line on each side.
    assert.equal(bundle.warnings.length, 1);
    assert.equal(shows.warnings.length, 1);
    assert.equal(shows.warnings[0], "configuration " + bundle.warnings[0]);
    assert.ok(comment.includes(`\n> **Warning:** ${bundle.warnings[0]}\n`), comment);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
    await server.close();
  }
});

test("a long list of changed entries is bounded, with the count whole", async () => {
  const b = bigBundle(240);
  b.base_files = {}; // every entry is added
  const server = await startServer(b);
  const { page, log, context } = await newPage(browser);
  try {
    await page.goto(server.url);
    await waitReady(page);
    const shows = await consoleShows(page);
    assert.equal(shows.stat, 240);
    assert.equal(shows.count, 240);
    assert.equal(shows.entries.length, 100);
    assert.equal(Number(shows.more), 140);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
    await server.close();
  }
});
