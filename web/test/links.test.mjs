// Typed links between ADR records (adr-tools `adr new -l`, MADR "Links"):
// the entry view lists them with their type and a link to the target,
// whose title may itself hold brackets. A link inferred from the other
// record is an info diagnostic: a note in the console, never a warning.
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

test("the entry view lists typed links and opens their targets", async () => {
  const b = demoBundle();
  b.files["docs/adr/0006-mark-beta-endpoints.md"] =
    "# 6. Mark [BETA] endpoints\n\nDate: 2026-03-01\n\n## Status\n\nAccepted\n\n## Context\n\nBeta endpoints change.\n";
  b.files["docs/adr/0007-document-beta-endpoints.md"] =
    "# 7. Document beta endpoints\n\nDate: 2026-03-02\n\n## Status\n\nAccepted\n\nRefines [6. Mark [BETA] endpoints](0006-mark-beta-endpoints.md)\n\n" +
    "Depends on [2. Write the service in Go](0002-write-the-service-in-go.md)\n\n## Context\n\nThe docs list them.\n";
  const url = server.addBundle("links.json", b);
  const { page, context, log } = await newPage(browser);
  await page.goto(server.url + "?bundle=" + encodeURIComponent(url) + "#entry=0007-document-beta-endpoints");
  await waitReady(page);
  const view = page.getByTestId("entry-view");
  await view.locator("#entry-title", { hasText: "Document beta endpoints" }).waitFor();
  const items = view.getByTestId("entry-links").locator("li");
  assert.equal(await items.count(), 2);
  assert.deepEqual(await items.evaluateAll((els) => els.map((e) => e.dataset.linkType)), ["refines", "depends on"]);
  assert.match(await items.nth(0).textContent(), /^refines 6\. Mark \[BETA\] endpoints$/);
  await items.nth(0).locator("a").click();
  await view.locator("#entry-title", { hasText: "Mark [BETA] endpoints" }).waitFor();
  assert.equal(await view.getByTestId("entry-links").count(), 0, "no reverse typed link is inferred");
  assert.deepEqual(log.errors, []);
  await context.close();
});

test("an info diagnostic is a note, a warning is a warning", async () => {
  const b = demoBundle();
  b.files["docs/adr/0006-use-one-queue.md"] =
    "# 6. Use one queue\n\nDate: 2026-03-01\n\n## Status\n\nSuperseded by [7. Use two queues](0007-use-two-queues.md)\n\n## Context\n\nJobs wait.\n";
  b.files["docs/adr/0007-use-two-queues.md"] =
    "# 7. Use two queues\n\nDate: 2026-03-02\n\n## Status\n\nAccepted\n\n## Context\n\nJobs wait less.\n";
  b.files["docs/adr/0008-no-status-yet.md"] = "# 8. No status yet\n\nDate: 2026-03-03\n\n## Context\n\nUndecided.\n";
  const url = server.addBundle("diagnostics.json", b);
  const { page, context, log } = await newPage(browser);
  await page.goto(server.url + "?bundle=" + encodeURIComponent(url));
  await waitReady(page);
  const warnings = page.getByTestId("warnings");
  const notes = warnings.getByTestId("diagnostic-note");
  await notes.first().waitFor({ state: "attached" }); // inside the closed <details>
  const noteText = await notes.allTextContents();
  assert.ok(noteText.some((t) => /^inferred_link docs\/adr\/0007-use-two-queues\.md /.test(t)), noteText.join("\n"));
  const listed = await warnings.getByTestId("diagnostic").evaluateAll((els) =>
    els.map((e) => [e.dataset.severity, e.querySelector(".badge").className, e.textContent]));
  assert.ok(!listed.some(([, , t]) => t.includes("inferred_link")), "an info diagnostic is not listed as a warning");
  const missing = listed.find(([, , t]) => t.startsWith("missing_status docs/adr/0008"));
  assert.ok(missing, JSON.stringify(listed));
  assert.deepEqual(missing.slice(0, 2), ["warning", "badge warn"]);
  assert.match(await warnings.getByTestId("diagnostic-notes").locator("summary").textContent(), /^\d+ notes? \(info, not a warning\)$/);
  assert.deepEqual(log.errors, []);
  await context.close();
});
