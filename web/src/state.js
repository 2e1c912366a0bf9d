// The console's state (one object, filled when a bundle opens) and the
// queries over it that several views share.

import { $ } from "./dom.js";

/** Specificity from which a rule counts as narrow. */
export const NARROW = 3;
/** Entries listed at most in the browse list. */
export const MAX_LIST = 200;

export const state = {
  engine: null,
  generation: 0, // bumped by every open: a later open drops an earlier one's unfinished work
  bundle: null,
  head: null,
  headArgs: null, // { files, revision, snapshot } of head: opened again in the full engine
  base: null, // opened by finishOpen, after the first paint
  pendingBase: null, // { files, revision, snapshot } until then
  hasBase: false, // the bundle has base files (and the engine did not refuse them)
  entries: [], // entries.list of the head, every page
  diagnostics: [],
  byId: new Map(),
  baseById: new Map(),
  status: null,
  changes: [],
  paths: [],
  governing: [], // entries.governing result entries for state.paths
  history: {},
  drift: [],
};

export function request(kb, op, input) {
  const env = kb.request(op, input);
  if (!env || !env.ok) {
    const err = new Error(`${op}: ${env && env.error ? env.error.code + ": " + env.error.message : "no answer"}`);
    err.envelope = env;
    throw err;
  }
  return env.result;
}

export function setStatus(text) {
  $("load-status").textContent = text;
}
export function showError(text) {
  const e = $("error");
  e.textContent = text;
  e.hidden = !text;
}

export function normalisePaths(list) {
  const seen = new Set();
  const out = [];
  for (let p of list) {
    p = String(p).trim().replace(/\\/g, "/").replace(/^\.\//, "");
    if (!p || p.startsWith("#") || seen.has(p)) continue;
    seen.add(p);
    out.push(p);
  }
  return out;
}

// collate orders ids as localeCompare does, with one collator instead of a
// lookup per comparison (thousands of them per render of a large bundle).
export const collate = new Intl.Collator().compare;

/** path → [{entry, rule, specificity}] (narrow first), matches below min dropped. */
export function governingByPath(min) {
  const by = new Map(state.paths.map((p) => [p, []]));
  for (const e of state.governing) {
    for (const m of e.matches || []) {
      if (m.specificity < min) continue;
      if (!by.has(m.path)) by.set(m.path, []);
      by.get(m.path).push({ entry: e, rule: m.rule, specificity: m.specificity });
    }
  }
  for (const list of by.values()) list.sort((a, b) => b.specificity - a.specificity || collate(a.entry.id, b.entry.id));
  return by;
}

export function minSpecificity() {
  const v = parseInt($("min-specificity").value, 10);
  return Number.isFinite(v) && v > 0 ? v : 0;
}

export function hist(id) {
  const h0 = state.history[id];
  return h0 && typeof h0 === "object" ? h0 : {};
}
export const isFailing = (id) => {
  const f = hist(id).failing;
  return f === true || (f && typeof f === "object" && !Array.isArray(f)) || (Array.isArray(f) && f.length > 0);
};
export function failingIds() {
  const ids = new Set((state.status && state.status.failing) || []);
  for (const id of Object.keys(state.history)) if (isFailing(id)) ids.add(id);
  return [...ids].filter((id) => typeof id === "string");
}
