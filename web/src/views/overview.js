// The overview: summary strip, warnings, changed files with their
// governing entries, and the entries the change touched (with diffs).

import { $, h, clear, entryLink, fileHref, short, bounded } from "../dom.js";
import { renderDiff } from "../diff.js";
import { NARROW, state, governingByPath, minSpecificity, hist, failingIds, collate } from "../state.js";
import { fillFilters, renderResults } from "./search.js";
import { route } from "../router.js";

export function renderAll() {
  renderRepo();
  fillFilters();
  renderSummary();
  renderWarnings();
  renderFiles();
  renderChanges();
  renderResults();
  route();
}

// renderFirst is the first view of an opening bundle (see engine.js
// openBundle): the repository, and the changed files with their governing
// entries; what the rest of the open computes is emptied until renderAll.
export function renderFirst() {
  renderRepo();
  for (const id of ["summary", "warnings-body", "changed-entries", "search-results"]) clear($(id));
  $("results-count").textContent = "";
  $("entry-view").hidden = true;
  $("file-view").hidden = true;
  renderFiles();
}

function renderRepo() {
  const repo = state.bundle.repository || {};
  const bits = [repo.name || "repository"];
  if (repo.base || repo.head) bits.push(`${short(repo.base) || "?"}..${short(repo.head) || "?"}${repo.dirty ? " (dirty)" : ""}`);
  if (state.bundle.generated_at) bits.push("bundle of " + state.bundle.generated_at);
  $("repo").textContent = bits.join(" · ");
  document.title = `kontext review · ${repo.name || "repository"}`;
}

export function renderSummary() {
  const all = governingByPath(0);
  const governing = new Set();
  const narrow = new Set();
  for (const list of all.values()) for (const g of list) {
    governing.add(g.entry.id);
    if (g.specificity >= NARROW) narrow.add(g.entry.id);
  }
  const reviewDue = (state.status && state.status.review_due) || [];
  const failing = failingIds();
  const stat = (key, n, label, cls) =>
    h("div.stat" + (cls && n > 0 ? "." + cls : ""), { "data-testid": "stat-" + key, "data-value": n }, h("span.n", { text: n }), h("span.l", { text: label }));
  clear($("summary")).append(
    stat("governing", governing.size, "entries govern the change"),
    stat("narrow", narrow.size, `narrow rules (specificity ≥ ${NARROW})`),
    stat("changed", state.changes.length, "entries changed"),
    stat("drifted", state.drift.length, "drifted", "warn"),
    stat("review-due", reviewDue.length, "review due", "warn"),
    stat("failing", failing.length, "failing verifies", "bad"),
    // What each coding agent loads for the change (context.cost, tokens as bytes/4).
    ...contextCost().map((c) => stat("cost-" + c.client, c.tokens,
      `tokens ${c.client} loads (${c.loaded} file${c.loaded === 1 ? "" : "s"}${c.cut.length ? `, ${c.cut.length} cut` : ""})`, c.cut.length ? "warn" : null)),
  );
}

/** How many changed files a drift card names. */
export const DRIFT_FILES = 5;

// contextCost is each client's context cost for the change's files ([]
// without files, or when the engine refuses).
function contextCost() {
  if (!state.paths.length || !state.head) return [];
  const r = state.head.request("context.cost", { paths: state.paths });
  return r && r.ok ? r.result.clients : [];
}

/** The bundle's warnings: each revision read with another revision's configuration. */
export function configWarnings() {
  const w = state.bundle && state.bundle.warnings;
  return Array.isArray(w) ? w.filter((x) => typeof x === "string" && x !== "") : [];
}

export function renderWarnings() {
  const body = clear($("warnings-body"));
  // One line, however many revisions (the pull-request comment shows the same).
  const config = configWarnings();
  if (config.length) {
    body.append(h("p.config-warning", { "data-testid": "config-warning" }, h("span.badge.warn", { text: "configuration" }), " ", config.join("; ")));
  }
  const ul = h("ul.warn");
  // One card per drifted entry; its changed files bounded ("and N more").
  for (const d of state.drift) {
    const changed = Array.isArray(d.changed) ? d.changed : [];
    const li = h("li", { "data-testid": "drift-entry", "data-entry-id": d.id, "data-changed": changed.length },
      h("span.badge.warn", { text: d.broad ? "drift (always-on)" : "drift" }), " ", entryLink(d.id, d.title || d.id),
      changed.length ? h("div.rule", { "data-testid": "drift-changed", text: `changed: ${bounded(changed, DRIFT_FILES)}` }) : null);
    if (Array.isArray(d.commits) && d.commits.length) {
      li.append(h("ul.commits", null, d.commits.slice(0, 10).map((c) => h("li", null, h("code", { text: short(c.sha) }), " ", c.subject || ""))));
    }
    ul.append(li);
  }
  for (const id of (state.status && state.status.review_due) || []) {
    const e = state.byId.get(id);
    ul.append(h("li", { "data-testid": "review-due-entry" }, h("span.badge.warn", { text: "review due" }), " ", entryLink(id, e ? e.title : id),
      e && e.review_by ? h("span.rule", { text: " review by " + e.review_by }) : null));
  }
  for (const id of failingIds()) {
    const e = state.byId.get(id);
    ul.append(h("li", { "data-testid": "failing-entry" }, h("span.badge.bad", { text: "verify failing" }), " ", entryLink(id, e ? e.title : id)));
  }
  // Premises that the change touched: an entry governing the change relies on a changed entry.
  const changed = new Set(state.changes.map((c) => c.id));
  const seen = new Set();
  for (const e of state.governing) {
    const premises = [...(hist(e.id).premises || e.premises || []), ...(e.extends || []), ...(e.supersedes || [])];
    for (const p of premises) {
      const pid = typeof p === "string" ? p : p && p.id;
      if (!pid || !changed.has(pid) || seen.has(e.id + " " + pid)) continue;
      seen.add(e.id + " " + pid);
      ul.append(h("li", { "data-testid": "premise-changed" }, h("span.badge.warn", { text: "premise changed" }), " ", entryLink(e.id, e.title), " relies on ", entryLink(pid, pid)));
    }
  }
  // Diagnostics at their level: an error red, a warning yellow; an info
  // one (an inferred link) is no warning: a note below the list.
  const notes = [];
  for (const d of state.diagnostics || []) {
    if (d.severity === "info") {
      notes.push(d);
      continue;
    }
    ul.append(h("li", { "data-testid": "diagnostic", "data-severity": d.severity || "warning" },
      h("span.badge." + (d.severity === "error" ? "bad" : "warn"), { text: d.code || "diagnostic" }), " ", h("code", { text: d.file || d.path || "" }), " ", d.message || ""));
  }
  if (!ul.childElementCount) body.append(h("p.muted", { text: "No drift, no review due, no failing verifies." }));
  else body.append(ul);
  if (notes.length) {
    body.append(h("details.notes", { "data-testid": "diagnostic-notes" },
      h("summary.muted", { text: `${notes.length} ${notes.length === 1 ? "note" : "notes"} (info, not a warning)` }),
      h("ul", null, notes.map((d) => h("li", { "data-testid": "diagnostic-note", "data-severity": "info" },
        h("span.badge", { text: d.code || "note" }), " ", h("code", { text: d.file || d.path || "" }), " ", d.message || "")))));
  }
}

export function govItem(g) {
  const e = g.entry;
  return h("li", { "data-testid": "governing-entry", "data-entry-id": e.id, "data-specificity": g.specificity },
    h("span.spec" + (g.specificity >= NARROW ? ".narrow" : ""), { title: "specificity", text: g.specificity }),
    h("span.kind", { text: e.kind }),
    entryLink(e.id, e.title),
    // elementtiming: the paint of the governing results is timed (the console's timing test).
    h("code.rule", { "data-testid": "rule", elementtiming: "governing", text: g.rule }),
    e.status && !["accepted", "active"].includes(e.status) ? h("span.status", { text: e.status }) : null);
}

export function renderFiles() {
  const ul = clear($("changed-files"));
  const by = governingByPath(minSpecificity());
  if (!state.paths.length) {
    ul.append(h("li.none", { text: "No changed files in this bundle. Paste paths below to review them." }));
    return;
  }
  for (const p of state.paths) {
    const list = by.get(p) || [];
    ul.append(h("li.file", { "data-testid": "changed-file", "data-path": p, id: "file-" + p },
      h("a.file-path", { href: fileHref(p), text: p }), " ",
      h("span.muted", { text: `${list.length} entr${list.length === 1 ? "y" : "ies"}` }),
      list.length ? h("ul.gov", null, list.map(govItem)) : h("p.none", { text: "No entries govern this file at this specificity." })));
  }
}

export function markdownOf(map, file) {
  return map && file && typeof map[file] === "string" ? map[file] : null;
}

/** Changed entries listed at most (the count and the counts by change stay whole). */
export const MAX_CHANGES = 100;

const CHANGE_ORDER = { added: 0, revised: 1, superseded: 2, deprecated: 3 };

/** "2 added · 1 revised": the counts by change, as the pull-request comment writes them. */
export function changeCounts(changes) {
  const n = {};
  for (const c of changes) n[c.change] = (n[c.change] || 0) + 1;
  return Object.keys(CHANGE_ORDER).filter((k) => n[k]).map((k) => `${n[k].toLocaleString("en-US")} ${k}`).join(" · ");
}

export function renderChanges() {
  const ul = clear($("changed-entries"));
  if (!state.changes.length) {
    ul.append(h("li.none", { text: state.hasBase ? "No entry changed." : "No entry file changed (the bundle has no base files to compare)." }));
    return;
  }
  const changes = [...state.changes].sort((a, b) => (CHANGE_ORDER[a.change] ?? 9) - (CHANGE_ORDER[b.change] ?? 9) || collate(a.id, b.id));
  ul.append(h("li.counts", { "data-testid": "change-counts", "data-value": changes.length },
    h("strong", { text: `${changes.length.toLocaleString("en-US")} entr${changes.length === 1 ? "y" : "ies"} changed` }), ": ", changeCounts(changes)));
  for (const c of changes.slice(0, MAX_CHANGES)) {
    const baseEntry = state.baseById.get(c.id);
    const headEntry = state.byId.get(c.id);
    const before = c.unknown_base ? null : markdownOf(state.bundle.base_files, baseEntry ? baseEntry.file : c.file);
    const after = c.removed ? null : markdownOf(state.bundle.files, headEntry ? headEntry.file : c.file);
    const label = c.removed ? "removed" : c.change;
    const li = h("li.change", { "data-testid": "changed-entry", "data-entry-id": c.id, "data-change": c.change },
      h("span.badge." + label, { text: c.removed ? `${c.change} (removed)` : c.change }), " ",
      h("span.kind", { text: c.kind }), " ",
      headEntry ? entryLink(c.id, c.title) : h("strong", { text: c.title || c.id }),
      c.status ? h("span.status", { "data-testid": "change-status", text: c.status }) : null,
      c.superseded_by && c.superseded_by.length ? h("span.rule", null, " → superseded by ", c.superseded_by.map((s, k) => [k ? ", " : "", entryLink(s, s)])) : null,
      h("div.rule", { "data-testid": "change-file", text: c.file }));
    if (before != null || after != null) {
      const det = h("details", { open: changes.length <= 5 ? true : null }, h("summary", { text: "Markdown diff" }), renderDiff(before, after));
      li.append(det);
    }
    ul.append(li);
  }
  if (changes.length > MAX_CHANGES) {
    ul.append(h("li.none", { "data-testid": "changes-more", "data-value": changes.length - MAX_CHANGES,
      text: `…and ${(changes.length - MAX_CHANGES).toLocaleString("en-US")} more (search or browse the entries to open them).` }));
  }
}
