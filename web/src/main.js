// kontext review console: the entry module (bundled with the engine into
// web/app.js by build/webbundle). It wires the page's events and opens the
// first bundle: the one inlined by `kontext review --out`, ?bundle=<url>,
// or ./bundle.json.

import { $ } from "./dom.js";
import { state, normalisePaths, setStatus, showError } from "./state.js";
import { startEngine, initialBundle, openBundle, finishOpen, computeChanges, computeGoverning } from "./engine.js";
import { renderAll, renderFirst, renderSummary, renderWarnings, renderFiles, renderChanges } from "./views/overview.js";
import { renderResults } from "./views/search.js";
import { route, closeView } from "./router.js";

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
    if (!state.hasBase) state.changes = computeChanges();
    renderSummary(); renderWarnings(); renderFiles(); renderChanges();
  });
  $("reset-paths").addEventListener("click", () => {
    if (!state.head) return;
    state.paths = normalisePaths(state.bundle.changed_paths || []);
    computeGoverning();
    if (!state.hasBase) state.changes = computeChanges();
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

// useBundle opens a bundle in two steps (engine.js): the changed files
// with their governing entries are rendered and painted first, the rest of
// the page once finishOpen has the entries, status and changes.
async function useBundle(bundle, source) {
  if (!state.engine) return;
  const t0 = performance.now();
  try {
    await openBundle(bundle);
  } catch (err) {
    showError(`Could not open the bundle${source ? " " + source : ""}: ${err.message}`);
    return;
  }
  showError("");
  renderFirst();
  const first = Math.round(performance.now() - t0);
  performance.mark("kontext:governing-rendered");
  setStatus(`${state.paths.length} changed files · reading the entries…`);
  let done;
  try {
    done = await finishOpen(pauser());
  } catch (err) {
    showError(`Could not open the bundle${source ? " " + source : ""}: ${err.message}`);
    return;
  }
  if (!done) return; // another bundle was opened meanwhile
  renderAll();
  performance.mark("kontext:opened");
  const ms = Math.round(performance.now() - t0);
  setStatus(`${state.entries.length} entries, ${state.paths.length} changed files · opened in ${ms} ms${source ? " from " + source : ""}`);
  document.body.dataset.ready = "true";
  document.body.dataset.openMs = String(ms);
  document.body.dataset.firstMs = String(first);
}

// pauser returns the pause of one open: it lets the page paint and answer
// input between engine calls, the first time after the next frame (the
// governing results are on screen before the rest is computed), then
// after the tasks queued meanwhile. A page hidden meanwhile gets no frames:
// a timer stands in for the frame.
function pauser() {
  let painted = false;
  return () => new Promise((resolve) => {
    if (painted) return void setTimeout(resolve, 0);
    painted = true;
    let fired = false;
    const once = () => { if (!fired) { fired = true; setTimeout(resolve, 0); } };
    // The frame after the one that draws the results: by then it is
    // presented (after one frame it is drawn, but in headless Chromium
    // the work queued next still delays its presentation).
    requestAnimationFrame(() => requestAnimationFrame(once));
    setTimeout(once, 200);
  });
}

async function main() {
  wire();
  setStatus("Loading the engine…");
  let bundle = null;
  let bundleError = null;
  // performance marks (kontext:*) time the start-up steps for
  // web/bench/console-steps.mjs.
  const bundleP = initialBundle().then((b) => {
    bundle = b;
    performance.mark("kontext:bundle-parsed");
  }, (err) => { bundleError = err; });
  try {
    state.engine = await startEngine();
    performance.mark("kontext:engine-ready");
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
  await useBundle(bundle, null);
}


main();
