// DOM helpers: every node is built with createElement/textContent; nothing
// from a bundle is ever parsed as HTML here (see markdown.js for entry bodies).

export const $ = (id) => document.getElementById(id);

/** h("tag.class", {attrs}, ...children): builds a node; strings become text nodes. */
export function h(spec, attrs, ...children) {
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
export function append(node, children) {
  for (const c of children) {
    if (c == null || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.append(typeof c === "string" || typeof c === "number" ? String(c) : c);
  }
  return node;
}
export function clear(node) {
  node.replaceChildren();
  return node;
}


/** Only http(s), mailto, relative and fragment targets; null otherwise. */
export function safeHref(raw) {
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
export const entryHref = (id) => "#entry=" + encodeURIComponent(id);
export const fileHref = (p) => "#file=" + encodeURIComponent(p);

export const short = (sha) => (typeof sha === "string" && /^[0-9a-f]{12,}$/.test(sha) ? sha.slice(0, 12) : sha || "");

/** Names at most max items of list, then "and N more" (a drift card never prints every changed file). */
export function bounded(list, max) {
  const items = (list || []).filter(Boolean);
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${(items.length - max).toLocaleString("en-US")} more` : shown;
}

export function entryLink(id, title) {
  return h("a.entry-link", { href: entryHref(id), "data-entry-id": id, text: title || id });
}
