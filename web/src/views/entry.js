// The entry view (#entry=<id>): metadata, supersede chain, typed links, premises,
// verification and the body, rendered by the engine (markdown.js).

import { $, h, append, clear, entryLink, short, bounded } from "../dom.js";
import { state, hist, isFailing } from "../state.js";
import { renderBody } from "../markdown.js";
import { closeView } from "../router.js";

export function fmtVerification(v) {
  if (!v || typeof v !== "object") return v == null ? "—" : String(v);
  const bits = [];
  if (v.kind) bits.push(v.kind);
  if (v.passed === true) bits.push("passed");
  if (v.passed === false) bits.push("FAILED");
  if (v.at) bits.push(v.at);
  if (v.by) bits.push("by " + v.by);
  if (v.commit) bits.push("at " + short(v.commit));
  if (v.because) bits.push("— " + v.because);
  return bits.join(" ") || JSON.stringify(v);
}
export function fmtSince(s) {
  if (s == null) return "—";
  if (typeof s !== "object") return String(s);
  const n = typeof s.commits === "number" ? s.commits : Array.isArray(s.commits) ? s.commits.length : null;
  return n == null ? JSON.stringify(s) : `${n} commit${n === 1 ? "" : "s"} since${s.truncated ? " (truncated)" : ""}${s.lower_bound ? " (at least)" : ""}`;
}

export function supersedeChain(e) {
  // Walk back through supersedes and forward through superseded_by.
  const back = [];
  const seen = new Set([e.id]);
  let cur = e;
  while (cur && cur.supersedes && cur.supersedes.length && back.length < 20) {
    const id = cur.supersedes[0];
    if (seen.has(id)) break;
    seen.add(id);
    back.unshift(id);
    cur = state.byId.get(id);
  }
  const fwd = [];
  cur = e;
  while (cur && cur.superseded_by && cur.superseded_by.length && fwd.length < 20) {
    const id = cur.superseded_by[0];
    if (seen.has(id)) break;
    seen.add(id);
    fwd.push(id);
    cur = state.byId.get(id);
  }
  if (!back.length && !fwd.length) return null;
  const ol = h("ol.chain", { "data-testid": "supersede-chain" });
  for (const id of back) ol.append(h("li", null, entryLink(id, (state.byId.get(id) || {}).title || id)));
  ol.append(h("li", null, h("strong", { text: e.title + " (this entry)" })));
  for (const id of fwd) ol.append(h("li", null, entryLink(id, (state.byId.get(id) || {}).title || id)));
  return ol;
}

export function showEntry(id) {
  const view = $("entry-view");
  $("file-view").hidden = true;
  const env = state.head.request("entries.get", { id });
  let e = env.ok ? env.result : null;
  let fromBase = false;
  if (!e && state.base) {
    const b = state.base.request("entries.get", { id });
    if (b.ok) { e = b.result; fromBase = true; }
  }
  clear(view);
  view.hidden = false;
  const close = h("button.close.secondary", { type: "button", "aria-label": "Close entry", text: "Close", onclick: closeView });
  if (!e) {
    view.append(close, h("h2", { id: "entry-title", tabindex: "-1", text: "Entry not found" }), h("p", null, "No entry ", h("code", { text: id }), " in this snapshot."));
    view.querySelector("h2").focus();
    return;
  }
  const hi = hist(e.id);
  const pick = (k) => (k in hi ? hi[k] : e[k]);
  const meta = h("dl.meta", { "data-testid": "entry-meta" });
  const row = (k, v) => { if (v == null || v === "" || (Array.isArray(v) && !v.length)) return; meta.append(h("dt", { text: k }), h("dd", null, v)); };
  row("id", h("code", { text: e.id }));
  row("kind", e.kind);
  row("status", e.status + (e.status_raw && e.status_raw.toLowerCase() !== String(e.status) ? ` (${e.status_raw})` : ""));
  row("date", e.date || e.date_raw);
  row("summary", e.summary);
  row("file", h("code", { text: e.file }));
  row("paths", (e.paths || []).length ? h("span", null, e.paths.map((p, k) => [k ? " " : "", h("code", { text: p })])) : null);
  row("tags", (e.tags || []).join(", "));
  row("review by", e.review_by ? e.review_by + (e.review_due ? " — review due" : "") : null);
  row("authority", e.authority ? "team authority" : "no authority");
  row("style", e.style + (e.read_only ? " (read-only)" : ""));
  row("extends", (e.extends || []).length ? h("span", null, e.extends.map((p, k) => [k ? ", " : "", entryLink(p, p)])) : null);
  row("revision", e.revision ? h("code", { text: short(e.revision) }) : null);
  if (fromBase) row("note", "Removed by this change: shown from the base snapshot.");

  const ver = h("dl.meta", { "data-testid": "entry-verification" });
  const vrow = (k, v) => ver.append(h("dt", { text: k }), h("dd", null, v));
  const failing = isFailing(e.id);
  vrow("state", failing ? h("span.badge.bad", { text: "verify failing" }) : pick("last_verified") ? h("span.badge.ok", { text: "verified" }) : h("span.badge", { text: "never verified" }));
  vrow("verify", e.verify ? h("code", { text: e.verify }) : "—");
  vrow("checked", e.checked || "—");
  vrow("verification", fmtVerification(pick("verification")));
  vrow("last verified", fmtVerification(pick("last_verified")));
  vrow("since", fmtSince(pick("since")));
  vrow("since verified", fmtSince(pick("since_verified")));
  if ("amended_since" in hi) vrow("amended since", typeof hi.amended_since === "object" ? JSON.stringify(hi.amended_since) : String(hi.amended_since));

  const premises = pick("premises") || [];
  // Typed relations other than supersession (amends, clarifies, depends on, …), as the record writes them.
  const links = e.links || [];
  const chain = supersedeChain(e);
  const evidence = (e.commits || []).length ? h("ul", { "data-testid": "entry-evidence" }, e.commits.map((c) => h("li", null, h("code", { text: typeof c === "string" ? c : c.sha || JSON.stringify(c) })))) : null;
  const drift = state.drift.find((d) => d.id === e.id);

  append(view, [
    close,
    h("p.muted", null, h("span.kind", { text: e.kind }), " ", e.status ? h("span.status", { text: e.status }) : null),
    h("h2", { id: "entry-title", tabindex: "-1", text: e.title || e.id }),
    drift ? h("p", { "data-testid": "entry-drift" }, h("span.badge.warn", { text: "drift" }), " governed files changed since the last look: ", bounded(drift.changed || [drift.path], 20)) : null,
    meta,
    chain ? [h("h3", { text: "Supersede chain" }), chain] : null,
    links.length ? [h("h3", { text: "Links" }), h("ul", { "data-testid": "entry-links" }, links.map((l) =>
      // An import of a file that is no entry (README.md, package.json) names the file.
      h("li", { "data-link-type": l.type }, h("span.link-type", { text: l.type + " " }),
        l.type === "imports" && !state.byId.has(l.target) ? h("code", { text: l.target }) : entryLink(l.target, l.text || l.target))))] : null,
    premises.length ? [h("h3", { text: "Premises" }), h("ul", { "data-testid": "entry-premises" }, premises.map((p) => {
      const pid = typeof p === "string" ? p : p.id;
      return h("li", null, entryLink(pid, (p && p.title) || pid), p && p.status ? h("span.status", { text: " " + p.status }) : null);
    }))] : null,
    h("h3", { text: "Evidence and verification" }),
    ver,
    evidence,
    h("h3", { text: "Body" }),
    h("div", { "data-testid": "entry-body" }, renderBody(e.body)),
  ]);
  view.scrollIntoView({ block: "start" });
  view.querySelector("h2").focus({ preventScroll: true });
}
