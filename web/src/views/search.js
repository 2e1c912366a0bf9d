// Search (the engine's BM25) and the kind/status/tag filters.

import { $, h, append, clear, entryLink } from "../dom.js";
import { MAX_LIST, state } from "../state.js";

export function fillFilters() {
  const fill = (id, values) => {
    const sel = $(id);
    const keep = sel.value;
    append(clear(sel), [h("option", { value: "", text: "all" }), [...values].sort().map((v) => h("option", { value: v, text: v }))]);
    sel.value = values.has(keep) ? keep : "";
  };
  fill("filter-kind", new Set(state.entries.map((e) => e.kind).filter(Boolean)));
  fill("filter-status", new Set(state.entries.map((e) => e.status).filter(Boolean)));
  fill("filter-tag", new Set(state.entries.flatMap((e) => e.tags || [])));
}

export function renderResults() {
  const q = $("search").value.trim();
  const kind = $("filter-kind").value, status = $("filter-status").value, tag = $("filter-tag").value;
  let list;
  if (q) {
    const r = state.head.request("entries.search", { query: q, limit: 500 });
    list = r.ok ? r.result.entries : [];
  } else {
    list = state.entries;
  }
  list = list.filter((e) => (!kind || e.kind === kind) && (!status || e.status === status) && (!tag || (e.tags || []).includes(tag)));
  const ul = clear($("search-results"));
  $("results-count").textContent = q
    ? `${list.length} match${list.length === 1 ? "" : "es"} for “${q}”`
    : `${list.length} entr${list.length === 1 ? "y" : "ies"}${list.length > MAX_LIST ? `, showing ${MAX_LIST}` : ""}`;
  for (const e of list.slice(0, MAX_LIST)) {
    ul.append(h("li", { "data-testid": "search-result", "data-entry-id": e.id },
      h("span.kind", { text: e.kind }), " ", entryLink(e.id, e.title), " ",
      e.status ? h("span.status", { text: e.status }) : null,
      e.summary ? h("p.sum", { text: e.summary }) : null));
  }
}
