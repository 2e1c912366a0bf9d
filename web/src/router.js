// Routing on the URL fragment: #entry=<id>, #file=<path>, or the overview.

import { $, h, clear } from "./dom.js";
import { state, minSpecificity, collate } from "./state.js";
import { showEntry } from "./views/entry.js";
import { govItem } from "./views/overview.js";

export function showFile(path) {
  $("entry-view").hidden = true;
  const view = clear($("file-view"));
  view.hidden = false;
  const r = state.head.request("entries.governing", { paths: [path], min_specificity: minSpecificity() });
  const list = [];
  if (r.ok) for (const e of r.result.entries) for (const m of e.matches || []) if (m.path === path) list.push({ entry: e, rule: m.rule, specificity: m.specificity });
  list.sort((a, b) => b.specificity - a.specificity || collate(a.entry.id, b.entry.id));
  view.append(
    h("button.close.secondary", { type: "button", "aria-label": "Close file", text: "Close", onclick: closeView }),
    h("h2", { id: "file-view-title", tabindex: "-1" }, "Governing ", h("code", { text: path })),
    list.length ? h("ul.gov", null, list.map(govItem)) : h("p.none", { text: "No entries govern this file." }));
  for (const li of document.querySelectorAll("#changed-files .file")) li.classList.toggle("target", li.dataset.path === path);
  view.scrollIntoView({ block: "start" });
  view.querySelector("h2").focus({ preventScroll: true });
}

export function closeView() {
  if (location.hash) history.pushState(null, "", location.pathname + location.search);
  route();
}

export function route() {
  if (!state.head) return;
  const hash = location.hash.slice(1);
  const params = new URLSearchParams(hash);
  if (params.has("entry")) return showEntry(params.get("entry"));
  if (params.has("file")) return showFile(params.get("file"));
  $("entry-view").hidden = true;
  $("file-view").hidden = true;
  for (const li of document.querySelectorAll("#changed-files .file.target")) li.classList.remove("target");
}
