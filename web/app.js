import { loadEngine } from "./engine/index.js";
// kontext review console: a plain ES module, no framework, no bundler.
//
// In one-file mode (`kontext review --out file.html`) this file is appended,
// minus its first line, to the engine's index.js in one module script, so
// everything below lives in a block: no top-level name can collide with the
// engine's. It relies on no other import and works from file://.
//
// Safety: nothing from a bundle is ever parsed as HTML. Every node is built
// with createElement/textContent, Markdown included (see renderMarkdown), and
// link targets pass safeHref.
{
  const BUNDLE_SCHEMA = "kontext.bundle/v1";
  const NARROW = 3;
  const MAX_LIST = 200;

  const $ = (id) => document.getElementById(id);

  /** h("tag.class", {attrs}, ...children): builds a node; strings become text nodes. */
  function h(spec, attrs, ...children) {
    const [tag, ...classes] = spec.split(".");
    const node = document.createElement(tag);
    if (classes.length) node.className = classes.join(" ");
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v == null || v === false) continue;
        if (k === "text") node.textContent = String(v);
        else if (k === "href") node.setAttribute("href", v);
        else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
        else node.setAttribute(k, v === true ? "" : String(v));
      }
    }
    append(node, children);
    return node;
  }
  function append(node, children) {
    for (const c of children) {
      if (c == null || c === false) continue;
      if (Array.isArray(c)) append(node, c);
      else node.append(typeof c === "string" || typeof c === "number" ? String(c) : c);
    }
    return node;
  }
  function clear(node) {
    node.replaceChildren();
    return node;
  }

  // ---------------------------------------------------------------- links

  /** Only http(s), mailto, relative and fragment targets; null otherwise. */
  function safeHref(raw) {
    if (typeof raw !== "string") return null;
    // Browsers ignore ASCII whitespace and control characters inside a scheme.
    const href = raw.replace(/[\u0000-\u0020\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]/g, "");
    if (href === "") return null;
    if (href.startsWith("#")) return href;
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(href);
    if (scheme) {
      const s = scheme[1].toLowerCase();
      return s === "http" || s === "https" || s === "mailto" ? href : null;
    }
    if (href.includes(":") && !/[/?#]/.test(href.slice(0, href.indexOf(":")))) return null;
    if (href.includes("\\")) return null;
    return href;
  }
  const entryHref = (id) => "#entry=" + encodeURIComponent(id);
  const fileHref = (p) => "#file=" + encodeURIComponent(p);

  // ------------------------------------------------------------- markdown

  /**
   * A small Markdown renderer that never parses HTML: it builds DOM nodes
   * with textContent only. Raw HTML in the source is shown as literal text;
   * HTML comments are dropped. Supports headings, paragraphs, lists,
   * blockquotes, fenced/indented code, rules, inline code, emphasis, links
   * (safeHref) and [[id]] entry links.
   */
  function renderMarkdown(src) {
    const root = h("div.md");
    const text = String(src ?? "").replace(/\r\n?/g, "\n").replace(/<!-{2}[\s\S]*?(-{2}>|$)/g, "");
    const lines = text.split("\n");
    let i = 0;
    const isBlank = (l) => /^\s*$/.test(l);
    const listRe = /^(\s{0,3})([-*+]|\d{1,9}[.)])\s+(.*)$/;
    while (i < lines.length) {
      const line = lines[i];
      if (isBlank(line)) { i++; continue; }
      let m;
      if ((m = /^\s{0,3}(`{3,}|~{3,})\s*([^`\s]*)/.exec(line))) {
        const fence = m[1];
        const body = [];
        i++;
        while (i < lines.length && !lines[i].trimStart().startsWith(fence)) body.push(lines[i++]);
        i++;
        const code = h("code", { text: body.join("\n") });
        if (m[2]) code.dataset.lang = m[2];
        root.append(h("pre", null, code));
        continue;
      }
      if ((m = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line))) {
        root.append(inline(h("h" + Math.min(6, m[1].length + 1)), m[2]));
        i++;
        continue;
      }
      if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) { root.append(h("hr")); i++; continue; }
      if (/^ {4}|^\t/.test(line)) {
        const body = [];
        while (i < lines.length && (/^ {4}|^\t/.test(lines[i]) || isBlank(lines[i]))) body.push(lines[i++].replace(/^ {4}|^\t/, ""));
        while (body.length && isBlank(body[body.length - 1])) body.pop();
        root.append(h("pre", null, h("code", { text: body.join("\n") })));
        continue;
      }
      if (/^\s{0,3}>/.test(line)) {
        const body = [];
        while (i < lines.length && /^\s{0,3}>/.test(lines[i])) body.push(lines[i++].replace(/^\s{0,3}>\s?/, ""));
        const q = h("blockquote");
        q.append(...renderMarkdown(body.join("\n")).childNodes);
        root.append(q);
        continue;
      }
      if ((m = listRe.exec(line))) {
        const ordered = /\d/.test(m[2]);
        const list = h(ordered ? "ol" : "ul");
        if (ordered && parseInt(m[2], 10) !== 1) list.setAttribute("start", String(parseInt(m[2], 10)));
        while (i < lines.length) {
          const lm = listRe.exec(lines[i]);
          if (!lm || /\d/.test(lm[2]) !== ordered) break;
          const item = [lm[3]];
          i++;
          while (i < lines.length && !isBlank(lines[i]) && !listRe.exec(lines[i]) && /^\s+\S/.test(lines[i])) item.push(lines[i++].trim());
          list.append(inline(h("li"), item.join(" ")));
          if (i < lines.length && isBlank(lines[i]) && i + 1 < lines.length && listRe.test(lines[i + 1])) i++;
        }
        root.append(list);
        continue;
      }
      const para = [];
      while (i < lines.length && !isBlank(lines[i]) && !/^\s{0,3}(#{1,6}\s|`{3,}|~{3,}|>)/.test(lines[i]) && !(para.length && listRe.test(lines[i]))) {
        para.push(lines[i++].trim());
      }
      root.append(inline(h("p"), para.join(" ")));
    }
    return root;
  }

  const INLINE = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__|\*(?=[^\s*])([\s\S]*?[^\s*])\*|(?<![A-Za-z0-9])_(?=[^\s_])([\s\S]*?[^\s_])_(?![A-Za-z0-9])|\[\[([^\]\n]+)\]\]|!?\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)|<((?:https?:\/\/|mailto:)[^>\s]+)>/;

  /** Appends the inline content of `text` to `node`: text nodes and safe elements only. */
  function inline(node, text, depth = 0) {
    let rest = String(text);
    while (rest.length) {
      const m = depth > 8 ? null : INLINE.exec(rest);
      if (!m) { node.append(rest); break; }
      if (m.index > 0) node.append(rest.slice(0, m.index));
      if (m[1] !== undefined) node.append(h("code", { text: m[2].replace(/^ (.*) $/, "$1") }));
      else if (m[3] !== undefined || m[4] !== undefined) inline(node.appendChild(h("strong")), m[3] ?? m[4], depth + 1);
      else if (m[5] !== undefined || m[6] !== undefined) inline(node.appendChild(h("em")), m[5] ?? m[6], depth + 1);
      else if (m[7] !== undefined) {
        const id = m[7].split("|")[0].trim();
        node.append(h("a.wikilink", { href: entryHref(id), text: m[7].includes("|") ? m[7].split("|")[1].trim() : id }));
      } else if (m[9] !== undefined) {
        const isImage = m[0].startsWith("!");
        const href = safeHref(m[9]);
        const label = m[8] || m[9];
        if (href && !isImage) {
          const a = h("a", { href, rel: "noopener noreferrer nofollow" });
          inline(a, label, depth + 1);
          node.append(a);
        } else {
          // Images are never loaded; unsafe targets are shown, inert, as text.
          const span = h("span.unsafe-link", { title: isImage ? "image not loaded" : "link removed: unsafe target" });
          inline(span, label, depth + 1);
          node.append(span);
        }
      } else if (m[10] !== undefined) {
        const href = safeHref(m[10]);
        node.append(href ? h("a", { href, rel: "noopener noreferrer nofollow", text: m[10] }) : m[10]);
      }
      rest = rest.slice(m.index + m[0].length);
    }
    return node;
  }

  // ----------------------------------------------------------------- diff

  /** Line diff (LCS) of two texts: [{op: " "|"+"|"-", line}]. */
  function lineDiff(a, b) {
    const x = String(a ?? "").replace(/\n$/, "").split("\n");
    const y = String(b ?? "").replace(/\n$/, "").split("\n");
    if (a == null || a === "") return y.map((line) => ({ op: "+", line }));
    if (b == null || b === "") return x.map((line) => ({ op: "-", line }));
    let s = 0;
    while (s < x.length && s < y.length && x[s] === y[s]) s++;
    let ex = x.length, ey = y.length;
    while (ex > s && ey > s && x[ex - 1] === y[ey - 1]) { ex--; ey--; }
    const xs = x.slice(s, ex), ys = y.slice(s, ey);
    const out = x.slice(0, s).map((line) => ({ op: " ", line }));
    if (xs.length * ys.length > 4_000_000) {
      out.push(...xs.map((line) => ({ op: "-", line })), ...ys.map((line) => ({ op: "+", line })));
    } else {
      const n = xs.length, m = ys.length;
      const t = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
      for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) {
        t[i][j] = xs[i] === ys[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
      }
      let i = 0, j = 0;
      while (i < n || j < m) {
        if (i < n && j < m && xs[i] === ys[j]) { out.push({ op: " ", line: xs[i] }); i++; j++; }
        else if (i < n && (j === m || t[i + 1][j] >= t[i][j + 1])) out.push({ op: "-", line: xs[i++] });
        else out.push({ op: "+", line: ys[j++] });
      }
    }
    out.push(...x.slice(ex).map((line) => ({ op: " ", line })));
    return out;
  }

  function renderDiff(a, b) {
    const ops = lineDiff(a, b);
    const box = h("div.diff", { "data-testid": "entry-diff", role: "region", "aria-label": "Markdown diff" });
    const keep = new Array(ops.length).fill(false);
    ops.forEach((o, k) => {
      if (o.op !== " ") for (let d = -3; d <= 3; d++) if (ops[k + d]) keep[k + d] = true;
    });
    let skipped = 0;
    ops.forEach((o, k) => {
      if (!keep[k]) { skipped++; return; }
      if (skipped) { box.append(h("span.ln.gap", { text: `… ${skipped} unchanged line${skipped === 1 ? "" : "s"}` })); skipped = 0; }
      const cls = o.op === "+" ? "add" : o.op === "-" ? "del" : "ctx";
      const label = o.op === "+" ? "added: " : o.op === "-" ? "removed: " : "";
      box.append(h("span.ln." + cls, null, h("span.sr-only", { text: label }), o.op + " " + o.line));
    });
    if (skipped) box.append(h("span.ln.gap", { text: `… ${skipped} unchanged line${skipped === 1 ? "" : "s"}` }));
    return box;
  }

  // ---------------------------------------------------------------- state

  const state = {
    engine: null,
    bundle: null,
    head: null,
    base: null,
    entries: [], // entries.list of the head, every page
    byId: new Map(),
    baseById: new Map(),
    status: null,
    changes: [],
    paths: [],
    governing: [], // entries.governing result entries for state.paths
    history: {},
    drift: [],
  };

  function request(kb, op, input) {
    const env = kb.request(op, input);
    if (!env || !env.ok) {
      const err = new Error(`${op}: ${env && env.error ? env.error.code + ": " + env.error.message : "no answer"}`);
      err.envelope = env;
      throw err;
    }
    return env.result;
  }

  function listAll(kb) {
    const out = [];
    let offset = 0;
    for (;;) {
      const r = request(kb, "entries.list", { limit: 500, offset });
      out.push(...r.entries);
      if (r.next_offset == null || r.entries.length === 0) return { entries: out, diagnostics: r.diagnostics || [] };
      offset = r.next_offset;
    }
  }

  function setStatus(text) {
    $("load-status").textContent = text;
  }
  function showError(text) {
    const e = $("error");
    e.textContent = text;
    e.hidden = !text;
  }

  // --------------------------------------------------------------- loading

  function base64ToBytes(b64) {
    const bin = atob(String(b64).replace(/\s+/g, ""));
    const out = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) out[k] = bin.charCodeAt(k);
    return out;
  }

  async function startEngine() {
    if (typeof window.__KONTEXT_WASM_GZ_B64__ === "string" && window.__KONTEXT_WASM_GZ_B64__ !== "") {
      return loadEngine({ wasm: base64ToBytes(window.__KONTEXT_WASM_GZ_B64__) });
    }
    return loadEngine({ wasm: new URL("./engine/kontext.wasm", location.href) });
  }

  async function initialBundle() {
    if (window.__KONTEXT_BUNDLE__) {
      const b = window.__KONTEXT_BUNDLE__;
      return typeof b === "string" ? JSON.parse(b) : b;
    }
    const param = new URLSearchParams(location.search).get("bundle");
    const url = param ? new URL(param, location.href) : new URL("./bundle.json", location.href);
    let res;
    try {
      res = await fetch(url, { cache: "no-store" });
    } catch (err) {
      throw new Error(`could not fetch the bundle ${url.pathname}: ${err.message}. Drop a bundle file on the page or choose one.`);
    }
    if (!res.ok) throw new Error(`no bundle at ${url.pathname} (HTTP ${res.status}). Drop a bundle file on the page or choose one.`);
    return res.json();
  }

  function openBundle(bundle) {
    if (!bundle || typeof bundle !== "object") throw new Error("the bundle is not a JSON object");
    if (bundle.schema !== BUNDLE_SCHEMA) throw new Error(`unsupported bundle schema ${JSON.stringify(bundle.schema)} (want ${BUNDLE_SCHEMA})`);
    if (!bundle.files || typeof bundle.files !== "object") throw new Error("the bundle has no files");
    const repo = bundle.repository || {};
    const files = { ...bundle.files };
    if (bundle.config && typeof bundle.config.path === "string" && typeof bundle.config.text === "string" && !(bundle.config.path in files)) {
      files[bundle.config.path] = bundle.config.text;
    }
    const head = state.engine.open({ files, revision: repo.head || null });
    let base = null;
    if (bundle.base_files && typeof bundle.base_files === "object") {
      const bfiles = { ...bundle.base_files };
      if (bundle.config && typeof bundle.config.path === "string" && typeof bundle.config.text === "string" && !(bundle.config.path in bfiles)) {
        bfiles[bundle.config.path] = bundle.config.text;
      }
      base = state.engine.open({ files: bfiles, revision: repo.base || null });
    }
    if (state.head) state.head.close();
    if (state.base) state.base.close();
    state.bundle = bundle;
    state.head = head;
    state.base = base;
    state.history = bundle.history && typeof bundle.history === "object" ? bundle.history : {};
    state.drift = Array.isArray(bundle.drift) ? bundle.drift : [];
    const listed = listAll(head);
    state.entries = listed.entries;
    state.diagnostics = listed.diagnostics;
    state.byId = new Map(state.entries.map((e) => [e.id, e]));
    state.baseById = base ? new Map(listAll(base).entries.map((e) => [e.id, e])) : new Map();
    state.status = request(head, "status", {});
    state.paths = normalisePaths(Array.isArray(bundle.changed_paths) ? bundle.changed_paths : []);
    state.changes = computeChanges();
    computeGoverning();
  }

  function normalisePaths(list) {
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

  function computeChanges() {
    if (state.base) {
      const env = state.engine.changed(state.base, state.head);
      if (env && env.ok) return env.result.changes || [];
      showError(`entries.changed: ${env && env.error ? env.error.message : "failed"}`);
      return [];
    }
    // Without base files: the entries whose own file the change touches.
    const touched = new Set(state.paths);
    return state.entries.filter((e) => touched.has(e.file)).map((e) => ({ ...e, change: "revised", unknown_base: true }));
  }

  function computeGoverning() {
    state.governing = state.paths.length ? request(state.head, "entries.governing", { paths: state.paths }).entries : [];
  }

  /** path → [{entry, rule, specificity}] (narrow first), matches below min dropped. */
  function governingByPath(min) {
    const by = new Map(state.paths.map((p) => [p, []]));
    for (const e of state.governing) {
      for (const m of e.matches || []) {
        if (m.specificity < min) continue;
        if (!by.has(m.path)) by.set(m.path, []);
        by.get(m.path).push({ entry: e, rule: m.rule, specificity: m.specificity });
      }
    }
    for (const list of by.values()) list.sort((a, b) => b.specificity - a.specificity || a.entry.id.localeCompare(b.entry.id));
    return by;
  }

  function minSpecificity() {
    const v = parseInt($("min-specificity").value, 10);
    return Number.isFinite(v) && v > 0 ? v : 0;
  }

  // -------------------------------------------------------------- history

  function hist(id) {
    const h0 = state.history[id];
    return h0 && typeof h0 === "object" ? h0 : {};
  }
  const isFailing = (id) => {
    const f = hist(id).failing;
    return f === true || (f && typeof f === "object" && !Array.isArray(f)) || (Array.isArray(f) && f.length > 0);
  };
  function failingIds() {
    const ids = new Set((state.status && state.status.failing) || []);
    for (const id of Object.keys(state.history)) if (isFailing(id)) ids.add(id);
    return [...ids].filter((id) => typeof id === "string");
  }

  // ------------------------------------------------------------- rendering

  function renderAll() {
    const repo = state.bundle.repository || {};
    const bits = [repo.name || "repository"];
    if (repo.base || repo.head) bits.push(`${short(repo.base) || "?"}..${short(repo.head) || "?"}${repo.dirty ? " (dirty)" : ""}`);
    if (state.bundle.generated_at) bits.push("bundle of " + state.bundle.generated_at);
    $("repo").textContent = bits.join(" · ");
    document.title = `kontext review · ${repo.name || "repository"}`;
    fillFilters();
    renderSummary();
    renderWarnings();
    renderFiles();
    renderChanges();
    renderResults();
    route();
  }

  const short = (sha) => (typeof sha === "string" && /^[0-9a-f]{12,}$/.test(sha) ? sha.slice(0, 12) : sha || "");

  function renderSummary() {
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
    );
  }

  function entryLink(id, title) {
    return h("a.entry-link", { href: entryHref(id), "data-entry-id": id, text: title || id });
  }

  function renderWarnings() {
    const body = clear($("warnings-body"));
    const ul = h("ul.warn");
    for (const d of state.drift) {
      const li = h("li", { "data-testid": "drift-entry" },
        h("span.badge.warn", { text: "drift" }), " ", entryLink(d.id, d.title || d.id),
        d.path || (d.changed && d.changed.length) ? h("div.rule", { text: "changed: " + (Array.isArray(d.changed) ? d.changed.join(", ") : d.path || "") }) : null);
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
    for (const d of state.diagnostics || []) {
      ul.append(h("li", { "data-testid": "diagnostic" }, h("span.badge.bad", { text: d.code || "diagnostic" }), " ", h("code", { text: d.file || d.path || "" }), " ", d.message || ""));
    }
    if (!ul.childElementCount) body.append(h("p.muted", { text: "No drift, no review due, no failing verifies." }));
    else body.append(ul);
  }

  function govItem(g) {
    const e = g.entry;
    return h("li", { "data-testid": "governing-entry", "data-entry-id": e.id, "data-specificity": g.specificity },
      h("span.spec" + (g.specificity >= NARROW ? ".narrow" : ""), { title: "specificity", text: g.specificity }),
      h("span.kind", { text: e.kind }),
      entryLink(e.id, e.title),
      h("code.rule", { "data-testid": "rule", text: g.rule }),
      e.status && !["accepted", "active"].includes(e.status) ? h("span.status", { text: e.status }) : null);
  }

  function renderFiles() {
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

  function markdownOf(map, file) {
    return map && file && typeof map[file] === "string" ? map[file] : null;
  }

  function renderChanges() {
    const ul = clear($("changed-entries"));
    if (!state.changes.length) {
      ul.append(h("li.none", { text: state.base ? "No entry changed." : "No entry file changed (the bundle has no base files to compare)." }));
      return;
    }
    const order = { added: 0, revised: 1, superseded: 2, deprecated: 3 };
    const changes = [...state.changes].sort((a, b) => (order[a.change] ?? 9) - (order[b.change] ?? 9) || a.id.localeCompare(b.id));
    for (const c of changes) {
      const baseEntry = state.baseById.get(c.id);
      const headEntry = state.byId.get(c.id);
      const before = c.unknown_base ? null : markdownOf(state.bundle.base_files, baseEntry ? baseEntry.file : c.file);
      const after = c.removed ? null : markdownOf(state.bundle.files, headEntry ? headEntry.file : c.file);
      const label = c.removed ? "removed" : c.change;
      const li = h("li.change", { "data-testid": "changed-entry", "data-entry-id": c.id, "data-change": c.change },
        h("span.badge." + label, { text: c.removed ? `${c.change} (removed)` : c.change }), " ",
        h("span.kind", { text: c.kind }), " ",
        headEntry ? entryLink(c.id, c.title) : h("strong", { text: c.title || c.id }),
        c.superseded_by && c.superseded_by.length ? h("span.rule", null, " → superseded by ", c.superseded_by.map((s, k) => [k ? ", " : "", entryLink(s, s)])) : null,
        h("div.rule", { text: c.file }));
      if (before != null || after != null) {
        const det = h("details", { open: changes.length <= 5 ? true : null }, h("summary", { text: "Markdown diff" }), renderDiff(before, after));
        li.append(det);
      }
      ul.append(li);
    }
  }

  // ---------------------------------------------------------- search, list

  function fillFilters() {
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

  function renderResults() {
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

  // ------------------------------------------------------------ entry view

  function fmtVerification(v) {
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
  function fmtSince(s) {
    if (s == null) return "—";
    if (typeof s !== "object") return String(s);
    const n = typeof s.commits === "number" ? s.commits : Array.isArray(s.commits) ? s.commits.length : null;
    return n == null ? JSON.stringify(s) : `${n} commit${n === 1 ? "" : "s"} since${s.truncated ? " (truncated)" : ""}${s.lower_bound ? " (at least)" : ""}`;
  }

  function supersedeChain(e) {
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

  function showEntry(id) {
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
    const chain = supersedeChain(e);
    const evidence = (e.commits || []).length ? h("ul", { "data-testid": "entry-evidence" }, e.commits.map((c) => h("li", null, h("code", { text: typeof c === "string" ? c : c.sha || JSON.stringify(c) })))) : null;
    const drift = state.drift.find((d) => d.id === e.id);

    append(view, [
      close,
      h("p.muted", null, h("span.kind", { text: e.kind }), " ", e.status ? h("span.status", { text: e.status }) : null),
      h("h2", { id: "entry-title", tabindex: "-1", text: e.title || e.id }),
      drift ? h("p", null, h("span.badge.warn", { text: "drift" }), " governed files changed since the last look: ", (drift.changed || [drift.path]).filter(Boolean).join(", ")) : null,
      meta,
      chain ? [h("h3", { text: "Supersede chain" }), chain] : null,
      premises.length ? [h("h3", { text: "Premises" }), h("ul", { "data-testid": "entry-premises" }, premises.map((p) => {
        const pid = typeof p === "string" ? p : p.id;
        return h("li", null, entryLink(pid, (p && p.title) || pid), p && p.status ? h("span.status", { text: " " + p.status }) : null);
      }))] : null,
      h("h3", { text: "Evidence and verification" }),
      ver,
      evidence,
      h("h3", { text: "Body" }),
      h("div", { "data-testid": "entry-body" }, renderMarkdown(e.body)),
    ]);
    view.scrollIntoView({ block: "start" });
    view.querySelector("h2").focus({ preventScroll: true });
  }

  function showFile(path) {
    $("entry-view").hidden = true;
    const view = clear($("file-view"));
    view.hidden = false;
    const r = state.head.request("entries.governing", { paths: [path], min_specificity: minSpecificity() });
    const list = [];
    if (r.ok) for (const e of r.result.entries) for (const m of e.matches || []) if (m.path === path) list.push({ entry: e, rule: m.rule, specificity: m.specificity });
    list.sort((a, b) => b.specificity - a.specificity || a.entry.id.localeCompare(b.entry.id));
    view.append(
      h("button.close.secondary", { type: "button", "aria-label": "Close file", text: "Close", onclick: closeView }),
      h("h2", { id: "file-view-title", tabindex: "-1" }, "Governing ", h("code", { text: path })),
      list.length ? h("ul.gov", null, list.map(govItem)) : h("p.none", { text: "No entries govern this file." }));
    for (const li of document.querySelectorAll("#changed-files .file")) li.classList.toggle("target", li.dataset.path === path);
    view.scrollIntoView({ block: "start" });
    view.querySelector("h2").focus({ preventScroll: true });
  }

  function closeView() {
    if (location.hash) history.pushState(null, "", location.pathname + location.search);
    route();
  }

  function route() {
    if (!state.head) return;
    const hash = location.hash.slice(1);
    const params = new URLSearchParams(hash);
    if (params.has("entry")) return showEntry(params.get("entry"));
    if (params.has("file")) return showFile(params.get("file"));
    $("entry-view").hidden = true;
    $("file-view").hidden = true;
    for (const li of document.querySelectorAll("#changed-files .file.target")) li.classList.remove("target");
  }

  // ---------------------------------------------------------------- events

  function wire() {
    let t = 0;
    $("search").addEventListener("input", () => {
      clearTimeout(t);
      t = setTimeout(() => state.head && renderResults(), 60);
    });
    $("search").addEventListener("keydown", (ev) => {
      if (ev.key === "Escape") { $("search").value = ""; renderResults(); $("search").blur(); }
      if (ev.key === "Enter") {
        const first = document.querySelector("#search-results a.entry-link");
        if (first) location.hash = first.getAttribute("href");
      }
    });
    for (const id of ["filter-kind", "filter-status", "filter-tag"]) $(id).addEventListener("change", () => state.head && renderResults());
    $("min-specificity").addEventListener("input", () => { if (state.head) { renderFiles(); if (!$("file-view").hidden) route(); } });
    $("apply-paths").addEventListener("click", () => {
      if (!state.head) return;
      state.paths = normalisePaths($("paste-paths").value.split(/\r?\n/));
      computeGoverning();
      if (!state.base) state.changes = computeChanges();
      renderSummary(); renderWarnings(); renderFiles(); renderChanges();
    });
    $("reset-paths").addEventListener("click", () => {
      if (!state.head) return;
      state.paths = normalisePaths(state.bundle.changed_paths || []);
      computeGoverning();
      if (!state.base) state.changes = computeChanges();
      renderSummary(); renderWarnings(); renderFiles(); renderChanges();
    });
    window.addEventListener("hashchange", route);
    window.addEventListener("popstate", route);
    document.addEventListener("keydown", (ev) => {
      const tag = ev.target && ev.target.tagName;
      const typing = tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (ev.target && ev.target.isContentEditable);
      if (ev.key === "/" && !typing && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
        ev.preventDefault();
        $("search").focus();
        $("search").select();
      } else if (ev.key === "Escape" && !typing && (!$("entry-view").hidden || !$("file-view").hidden)) {
        closeView();
      }
    });
    $("bundle-file").addEventListener("change", () => {
      const f = $("bundle-file").files && $("bundle-file").files[0];
      if (f) loadFile(f);
    });
    let depth = 0;
    const overlay = $("drop-overlay");
    document.addEventListener("dragenter", (ev) => { if (hasFiles(ev)) { depth++; overlay.hidden = false; } });
    document.addEventListener("dragleave", () => { if (--depth <= 0) { depth = 0; overlay.hidden = true; } });
    document.addEventListener("dragover", (ev) => { if (hasFiles(ev)) ev.preventDefault(); });
    document.addEventListener("drop", (ev) => {
      depth = 0;
      overlay.hidden = true;
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      const f = ev.dataTransfer.files[0];
      if (f) loadFile(f);
    });
  }
  const hasFiles = (ev) => ev.dataTransfer && [...(ev.dataTransfer.types || [])].includes("Files");

  async function loadFile(file) {
    try {
      const bundle = JSON.parse(await file.text());
      useBundle(bundle, file.name);
    } catch (err) {
      showError(`Could not open ${file.name}: ${err.message}`);
    }
  }

  function useBundle(bundle, source) {
    if (!state.engine) return;
    const t0 = performance.now();
    try {
      openBundle(bundle);
    } catch (err) {
      showError(`Could not open the bundle${source ? " " + source : ""}: ${err.message}`);
      return;
    }
    showError("");
    renderAll();
    const ms = Math.round(performance.now() - t0);
    setStatus(`${state.entries.length} entries, ${state.paths.length} changed files · opened in ${ms} ms${source ? " from " + source : ""}`);
    document.body.dataset.ready = "true";
    document.body.dataset.openMs = String(ms);
  }

  async function main() {
    wire();
    setStatus("Loading the engine…");
    let bundle = null;
    let bundleError = null;
    const bundleP = initialBundle().then((b) => { bundle = b; }, (err) => { bundleError = err; });
    try {
      state.engine = await startEngine();
    } catch (err) {
      setStatus("");
      showError(`Could not load the engine: ${err.message}`);
      return;
    }
    await bundleP;
    $("search").disabled = false;
    if (bundleError) {
      setStatus("Engine ready: no bundle loaded.");
      showError(bundleError.message);
      document.body.dataset.ready = "empty";
      return;
    }
    useBundle(bundle, null);
  }

  main();
}
