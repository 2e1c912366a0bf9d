// Entry bodies: the engine renders the Markdown (engine.render: goldmark,
// raw HTML dropped, dangerous link targets removed), and this module turns
// that HTML into DOM through an allow-list. The HTML is parsed into an
// inert document (DOMParser: no script runs, nothing loads) and only known
// elements are rebuilt with createElement/textContent; every other element
// keeps just its text, links pass safeHref, images are never loaded.

import { h, safeHref, entryHref } from "./dom.js";
import { state } from "./state.js";

/** Elements copied as they are (without attributes). */
const KEEP = new Set(["p", "ul", "li", "blockquote", "pre", "em", "strong", "del", "hr", "br",
  "table", "thead", "tbody", "tr", "th", "td"]);

/** The body of an entry as a div.md of safe nodes. */
export function renderBody(markdown) {
  const root = h("div.md");
  let rendered;
  try {
    rendered = state.engine.render(String(markdown ?? ""));
  } catch (err) {
    root.append(h("pre", null, h("code", { text: String(markdown ?? "") })));
    return root;
  }
  const doc = new DOMParser().parseFromString(rendered.html, "text/html");
  copyChildren(doc.body, root);
  if (rendered.plain) root.prepend(h("p.muted", { text: "This body is too large to render: shown as text." }));
  return root;
}

function copyChildren(from, to) {
  for (const node of from.childNodes) {
    const out = copy(node);
    if (out) to.append(out);
  }
}

/** A safe copy of node (null to drop it): text, or an allowed element. */
function copy(node) {
  if (node.nodeType === Node.TEXT_NODE) return document.createTextNode(node.data);
  if (node.nodeType !== Node.ELEMENT_NODE) return null; // comments ("raw HTML omitted")
  const tag = node.localName;
  let out;
  if (KEEP.has(tag)) {
    out = document.createElement(tag);
  } else if (/^h[1-6]$/.test(tag)) {
    // The entry's title is the view's h2: body headings sit below it.
    out = document.createElement("h" + Math.min(6, Number(tag[1]) + 1));
  } else if (tag === "ol") {
    out = document.createElement("ol");
    const start = node.getAttribute("start");
    if (start && /^\d{1,9}$/.test(start)) out.setAttribute("start", start);
  } else if (tag === "code") {
    out = document.createElement("code");
    const lang = /(?:^|\s)language-(\S+)/.exec(node.getAttribute("class") || "");
    if (lang) out.dataset.lang = lang[1];
  } else if (tag === "a") {
    return link(node);
  } else if (tag === "img") {
    // Images are never loaded: their alt text stands in, inert.
    return h("span.unsafe-link", { title: "image not loaded", text: node.getAttribute("alt") || "image" });
  } else {
    // Not produced by the engine's renderer: keep the text only.
    return document.createTextNode(node.textContent);
  }
  copyChildren(node, out);
  return out;
}

function link(node) {
  const id = node.getAttribute("data-entry-id");
  if (id != null && node.classList.contains("wikilink")) {
    return h("a.wikilink", { href: entryHref(id), text: node.textContent });
  }
  const href = safeHref(node.getAttribute("href"));
  const out = href
    ? h("a", { href, rel: "noopener noreferrer nofollow" })
    : h("span.unsafe-link", { title: "link removed: unsafe target" });
  copyChildren(node, out);
  return out;
}
