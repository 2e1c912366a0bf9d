// Line diff of two Markdown texts and its rendering.

import { h } from "./dom.js";

/** Line diff (LCS) of two texts: [{op: " "|"+"|"-", line}]. */
export function lineDiff(a, b) {
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

export function renderDiff(a, b) {
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
