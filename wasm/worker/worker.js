// kontext edge worker: governing lookups over HTTP on workerd / Cloudflare
// Workers, from knowledge bundles (`kontext bundle`).
//
//   import wasm from "../kontext.wasm";           // a module binding: Workers may not compile bytes
//   import { createWorker } from "./worker/worker.js";
//   import app from "./repos/app.json";            // a Text module: the bundle's JSON
//   export default createWorker({ wasm, repos: [{ name: "app", bundle: app }] });
//
// `kontext edge build` writes that entry module, the wasm, the bundles and a
// wrangler config. The rules workerd imposes shape this file:
//
// - Nothing that needs timers or randomness may run at module top level, so
//   the Go runtime boots lazily inside the first fetch, once per isolate, and
//   boots again when the Go program has exited.
// - I/O objects may not cross requests: the hot path is one synchronous call
//   into the engine; the only asynchronous work (reading a bundle from a KV or
//   R2 binding) happens in JS inside the request that needs it, and the bytes
//   are handed to the engine.
// - Each JS→Go call costs ≈ 11 µs: one request is one engine call.
//
// Routes (every one also under /v1/repos/<name>/…; /v1/… is the default repository):
//   POST /v1/governing {paths, min_specificity?, exclude_ids?, limit?, cursor?, view?, detail?}
//   GET  /v1/governing?path=a&path=b[&min_specificity=N][&exclude_id=X][&limit=N][&cursor=C][&detail=1]
//   GET  /v1/entries/<id>   GET /v1/search?q=&limit=&cursor=&view=   GET /v1/status
//   GET  /v1/repos[?limit=N&cursor=C]   GET /healthz
//   POST /mcp, POST /v1/repos/<name>/mcp: MCP (Streamable HTTP, sessionless,
//        JSON answers) with the CLI's read tools, answered by the engine
//   GET  /v1/debug/memory (only with KONTEXT_DEBUG=1): the isolate's memory

import { loadEngine } from "../index.js";

/** Request bodies above this many bytes answer 413. */
export const MAX_BODY_BYTES = 1 << 20;
/** Governing requests naming more paths answer 400. */
export const MAX_PATHS = 10000;

const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const SNAPSHOT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The Go heap's soft limit (debug.SetMemoryLimit) in an isolate of 128 MB:
 * the rest is the compiled engine, JS and the bundle texts in flight.
 */
export const GO_MEMORY_LIMIT_MB = 92;
/**
 * The collector's pacing under that limit (debug.SetGCPercent): a heap may
 * grow to five times what is live before a collection, so a dense answer
 * (hundreds of KB of garbage) is not followed by one each time; near the
 * limit, the limit decides.
 */
export const GC_PERCENT = 400;
/**
 * Opened repositories are kept while their accounted memory (the engine's
 * own, KnowledgeBase.bytes) fits this: a hundred of 1,000 entries (about
 * 0.7 MB each), with the engine's own heap and the collector's room under
 * GO_MEMORY_LIMIT_MB.
 */
export const MEMORY_BUDGET_MB = 72;
/** GET /v1/repos answers at most this many a page (limit's default: 100). */
export const MAX_REPOS_PAGE = 1000;

/**
 * createWorker returns the Worker object (`export default createWorker(…)`).
 *
 * - wasm: the engine, a WebAssembly.Module (import "…/kontext.wasm").
 * - repos: [{name, bundle}] bundled at build time (bundle: the JSON text or
 *   object of `kontext bundle`); the first is the default repository.
 *
 * Bindings read from env (all optional):
 * - KONTEXT_TOKEN (a secret): when set, every route but /healthz and CORS
 *   preflights needs `Authorization: Bearer <token>` (compared in constant time).
 * - KONTEXT_CORS_ORIGINS: "*" or a comma-separated list of origins allowed
 *   to read the answers from a browser; unset, no CORS headers are sent.
 * - KONTEXT_STORE (a KV namespace or an R2 bucket) in the layout `kontext
 *   edge publish` writes: `repos.json` ({repos: [{name, snapshot, entries,
 *   updated}]}), `<name>/index.json` ({snapshot, entries, updated}) and
 *   `<name>/<snapshot>.bundle`. A repository is opened at its first
 *   request; its index is read in every request to it, so a new snapshot is
 *   served from the first request that sees the new index.
 * - KONTEXT_STORE_REPOS (deprecated; one release): comma-separated names in
 *   the earlier layout, each name's bundle at `<name>/bundle`, re-read when
 *   the key `<name>/snapshot` changes (a marker that is a SHA-256 must be
 *   the bundle's before it is taken).
 * - KONTEXT_MEMORY_MB: the budget of opened repositories (default
 *   MEMORY_BUDGET_MB); the least recently used are closed past it.
 * - KONTEXT_DEBUG: "1" serves GET /v1/debug/memory.
 */
export function createWorker({ wasm, repos = [] } = {}) {
  const bundled = [];
  const seen = new Set();
  for (const r of repos) {
    if (!r || typeof r.name !== "string" || !REPO_NAME.test(r.name)) {
      throw new TypeError(`createWorker: repository name ${JSON.stringify(r && r.name)} is not [A-Za-z0-9._-] (1-100 characters, no leading dot or dash)`);
    }
    if (seen.has(r.name)) throw new TypeError(`createWorker: repository ${r.name} is named twice`);
    seen.add(r.name);
    bundled.push({ name: r.name, bundle: r.bundle });
  }
  // opened: the open repositories by name, least recently used first.
  const state = { wasm, bundled, opened: new Map(), engine: null, booting: null, generation: 0, peak: 0, mcpVersions: null };
  return {
    async fetch(request, env = {}, ctx) {
      try {
        return await handle(state, request, env ?? {});
      } catch (err) {
        // The isolate keeps serving: an engine that died is booted again
        // by the next request; nothing of this request is kept.
        if (state.engine !== null && state.engine.exited) dropEngine(state);
        return answer(500, errorEnvelope("operation_failed", `the edge worker failed: ${err && err.message ? err.message : err}`), { env, request });
      }
    },
  };
}

class HTTPError extends Error {
  constructor(status, code, message, headers = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

// The API's envelope (schema_version 1), as `kontext api` prints it.
function errorEnvelope(code, message) {
  return { schema_version: 1, ok: false, error: { code, message } };
}

/** How the engine's envelope of a successful answer starts. */
const OK_ENVELOPE = '{"schema_version":1,"ok":true,';

const STATUS_OF_CODE = { invalid_input: 400, not_found: 404, unknown_entry: 404, unsupported_operation: 400 };

async function handle(state, request, env) {
  const url = new URL(request.url);
  const method = request.method;
  const ctx = { env, request };
  if (method === "OPTIONS" && corsOrigin(env, request) !== null) {
    return preflight(env, request);
  }
  try {
    if (url.pathname === "/healthz") {
      allow(method, ["GET", "HEAD"], url.pathname);
      return answer(200, { schema_version: 1, ok: true, result: { healthy: true, engine: state.engine !== null && !state.engine.exited ? "booted" : "idle" } }, ctx);
    }
    if (url.pathname === "/mcp") return await mcp(state, env, ctx, null);
    if (url.pathname !== "/v1" && !url.pathname.startsWith("/v1/")) {
      throw new HTTPError(404, "not_found", `no route ${url.pathname}: the routes are /v1/governing, /v1/entries/<id>, /v1/search, /v1/status, /v1/repos, /v1/repos/<name>/…, /mcp and /healthz`);
    }
    let rest = url.pathname.slice("/v1".length);
    let name = null;
    if (rest.startsWith("/repos/")) {
      const tail = rest.slice("/repos/".length);
      const slash = tail.indexOf("/");
      name = decode(slash < 0 ? tail : tail.slice(0, slash));
      rest = slash < 0 ? "" : tail.slice(slash);
      if (rest === "/mcp") return await mcp(state, env, ctx, name);
    }
    await authorize(env, request);
    if (name === null && rest === "/repos") {
      allow(method, ["GET", "HEAD"], url.pathname);
      return await listRepos(state, env, ctx, url);
    }
    if (name === null && rest === "/debug/memory" && env.KONTEXT_DEBUG === "1") {
      allow(method, ["GET"], url.pathname);
      return answer(200, { schema_version: 1, ok: true, result: await memoryReport(state) }, ctx);
    }
    const route = matchRoute(rest, url.pathname);
    allow(method, route.methods, url.pathname);
    const body = method === "POST" ? await readBody(request) : null;
    const repo = await repository(state, env, name);
    const input = route.input(url, body, rest);
    const detail = input.detail === true;
    delete input.detail;
    // Compact governing: the engine's own compact view where it has one
    // (the MCP answer), else the projection below.
    const governing = route.operation === "entries.governing";
    const engineCompact = governing && !detail && repo.info.compactView && input.view === undefined;
    if (engineCompact) input.view = "compact";
    const project = governing && !detail && !engineCompact && input.view === undefined;
    // The one synchronous engine call. A successful answer is sent as the
    // engine wrote it: parsed only to be projected or when it is an error.
    let text = repo.kb.requestText(route.operation, input);
    if (project || !text.startsWith(OK_ENVELOPE)) {
      const env0 = JSON.parse(text);
      if (!env0.ok) {
        const status = STATUS_OF_CODE[env0.error && env0.error.code] ?? 500;
        return answer(status, env0, ctx); // an error is not a representation: no ETag
      }
      if (project) env0.result = compactGoverning(env0.result);
      text = JSON.stringify(env0);
    }
    if ((method === "GET" || method === "HEAD") && notModified(request, repo.info.snapshot)) {
      return notModifiedAnswer(ctx, repo.info.snapshot);
    }
    return answerText(200, text, ctx, repo.info.snapshot);
  } catch (err) {
    if (err instanceof HTTPError) {
      return answer(err.status, errorEnvelope(err.code, err.message), ctx, null, err.headers);
    }
    throw err;
  }
}

// The routes under /v1 (or /v1/repos/<name>): path → operation and input.
function matchRoute(rest, full) {
  if (rest === "/governing") {
    return {
      methods: ["GET", "HEAD", "POST"],
      operation: "entries.governing",
      input: (url, body) => (body !== null ? governingFromBody(body) : governingFromQuery(url)),
    };
  }
  if (rest.startsWith("/entries/") && rest.length > "/entries/".length) {
    return {
      methods: ["GET", "HEAD"],
      operation: "entries.get",
      input: (url, body, r) => ({ id: decode(r.slice("/entries/".length)) }),
    };
  }
  if (rest === "/search") {
    return {
      methods: ["GET", "HEAD"],
      operation: "entries.search",
      input: (url) => {
        const input = { query: url.searchParams.get("q") ?? "" };
        const limit = url.searchParams.get("limit");
        if (limit !== null) input.limit = integerParam("limit", limit);
        // Pages and the compact view go to the engine as they are (it checks them).
        for (const k of ["cursor", "view"]) {
          const v = url.searchParams.get(k);
          if (v !== null) input[k] = v;
        }
        return input;
      },
    };
  }
  if (rest === "/status") {
    return { methods: ["GET", "HEAD"], operation: "status", input: () => ({}) };
  }
  throw new HTTPError(404, "not_found", `no route ${full}: the routes are /v1/governing, /v1/entries/<id>, /v1/search, /v1/status, /v1/repos, /v1/repos/<name>/…, /mcp and /healthz`);
}

function decode(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HTTPError(400, "invalid_input", `${JSON.stringify(segment)} is not a valid URL-encoded path segment`);
  }
}

function allow(method, methods, path) {
  if (!methods.includes(method)) {
    throw new HTTPError(405, "invalid_input", `${method} is not allowed on ${path}: use ${methods.join(" or ")}`, { Allow: methods.join(", ") });
  }
}

function integerParam(name, value) {
  if (!/^-?\d{1,9}$/.test(value)) {
    throw new HTTPError(400, "invalid_input", `${name}=${JSON.stringify(value)} is not an integer`);
  }
  return Number(value);
}

function checkPaths(paths) {
  if (Array.isArray(paths) && paths.length > MAX_PATHS) {
    throw new HTTPError(400, "invalid_input", `${paths.length} paths in one request; at most ${MAX_PATHS} (split the request)`);
  }
}

function governingFromBody(text) {
  let input;
  try {
    input = JSON.parse(text);
  } catch (err) {
    throw new HTTPError(400, "invalid_input", `the request body is not JSON: ${err.message}`);
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new HTTPError(400, "invalid_input", "the request body must be a JSON object {paths, min_specificity?, exclude_ids?, limit?, detail?}");
  }
  if ("detail" in input && typeof input.detail !== "boolean") {
    throw new HTTPError(400, "invalid_input", "detail must be true or false");
  }
  checkPaths(input.paths);
  return input;
}

function governingFromQuery(url) {
  const q = url.searchParams;
  const known = new Set(["path", "min_specificity", "exclude_id", "limit", "cursor", "detail"]);
  for (const k of q.keys()) {
    if (!known.has(k)) throw new HTTPError(400, "invalid_input", `unknown query parameter ${k}: use path (repeated), min_specificity, exclude_id (repeated), limit, cursor, detail`);
  }
  const input = { paths: q.getAll("path") };
  const cursor = q.get("cursor");
  if (cursor !== null) input.cursor = cursor;
  checkPaths(input.paths);
  const exclude = q.getAll("exclude_id");
  if (exclude.length > 0) input.exclude_ids = exclude;
  const min = q.get("min_specificity");
  if (min !== null) input.min_specificity = integerParam("min_specificity", min);
  const limit = q.get("limit");
  if (limit !== null) input.limit = integerParam("limit", limit);
  const detail = q.get("detail");
  if (detail !== null) {
    if (!["1", "true", "0", "false"].includes(detail)) throw new HTTPError(400, "invalid_input", `detail=${JSON.stringify(detail)}: use 1/true or 0/false`);
    input.detail = detail === "1" || detail === "true";
  }
  return input;
}

/**
 * compactGoverning (for engines without the compact view) keeps what an
 * agent or a CI check needs of each entry:
 * id, kind, title, summary, status, file, the rule and specificity of its
 * most specific match, and the requested paths it governs. `detail` gives
 * the whole entries (the entries.governing answer unchanged).
 */
export function compactGoverning(result) {
  return {
    entries: result.entries.map((e) => {
      const best = (e.matches ?? [])[0] ?? null;
      return {
        id: e.id,
        kind: e.kind,
        title: e.title,
        summary: e.summary,
        status: e.status,
        rule: best ? best.rule : null,
        specificity: e.specificity ?? (best ? best.specificity : null),
        file: e.file,
        paths: [...new Set((e.matches ?? []).map((m) => m.path))],
      };
    }),
    total: result.total,
    snapshot: result.snapshot,
  };
}

async function readBody(request) {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) {
    if (request.body !== null) await drain(request.body.getReader());
    throw tooLarge(Number(declared));
  }
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await drain(reader);
      throw tooLarge(size);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new HTTPError(400, "invalid_input", "the request body is not UTF-8");
  }
}

// drain reads the rest of a refused body (up to 4 MiB, discarded) before
// the 413 is sent: a client still sending its body then reads the answer
// instead of finding the connection closed under it. A longer body is
// cancelled.
async function drain(reader) {
  let rest = 0;
  while (rest <= 4 * MAX_BODY_BYTES) {
    const next = await reader.read().catch(() => ({ done: true }));
    if (next.done) return;
    rest += next.value.byteLength;
  }
  reader.cancel().catch(() => {});
}

function tooLarge(size) {
  return new HTTPError(413, "invalid_input", `the request body is over 1 MiB (${size} bytes or more); at most ${MAX_BODY_BYTES} bytes are read: split the request`);
}

// ---- the engine and the repositories ----

async function ensureEngine(state, env) {
  if (state.engine !== null && state.engine.exited) dropEngine(state);
  if (state.engine !== null) return state.engine;
  // One boot at a time: requests that arrive while the runtime boots wait
  // for the same engine.
  state.booting ??= loadEngine({ wasm: state.wasm }).then(
    (engine) => {
      state.engine = engine;
      state.generation++;
      // The MCP revisions the engine speaks (an older engine: none known).
      state.mcpVersions = engine.abi().mcp_protocol_versions ?? null;
      state.booting = null;
      // The Go heap's soft limit: the collector works near it instead of
      // growing the instance's memory, which never shrinks; below it the
      // collector paces at GC_PERCENT, so a small heap is not collected
      // every few requests.
      if (typeof engine.memoryStats === "function") engine.memoryStats(GO_MEMORY_LIMIT_MB << 20, GC_PERCENT);
      return engine;
    },
    (err) => {
      state.booting = null;
      throw err;
    },
  );
  return state.booting;
}

// dropEngine forgets an engine whose Go program exited: every knowledge
// base it held is gone, so every repository is opened again.
function dropEngine(state) {
  state.engine = null;
  state.opened.clear();
}

function open(engine, name, bundle) {
  let kb;
  try {
    // immutable: the snapshot is never updated, so the engine need not
    // list its files again per request (ignored by engines without it).
    kb = engine.openBundle(bundle, { immutable: true });
  } catch (err) {
    throw new HTTPError(500, err.code ?? "operation_failed", `repository ${name}: its bundle cannot be opened: ${err.message}`);
  }
  const st = kb.request("status", {});
  if (!st.ok) throw new HTTPError(500, st.error.code, `repository ${name}: ${st.error.message}`);
  let entries = 0;
  for (const byStatus of Object.values(st.result.counts ?? {})) for (const n of Object.values(byStatus)) entries += n;
  const compactView = (st.result.capabilities ?? []).includes("entries.governing.view");
  // The engine's own accounting of what the repository holds open.
  return { kb, info: { snapshot: st.result.snapshot, entries, compactView }, bytes: kb.bytes };
}

function budgetBytes(env) {
  const mb = Number(env.KONTEXT_MEMORY_MB);
  return Math.round((Number.isFinite(mb) && mb > 0 ? mb : MEMORY_BUDGET_MB) * 1048576);
}

// keep records r as the most recently used repository, and closes the
// least recently used ones while the opened repositories' accounted
// memory is over the budget (r itself is never closed).
function keep(state, env, r) {
  state.opened.delete(r.name);
  state.opened.set(r.name, r);
  let total = 0;
  for (const o of state.opened.values()) total += o.bytes;
  for (const [n, o] of state.opened) {
    if (total <= budgetBytes(env) || o === r) break;
    o.kb.close();
    state.opened.delete(n);
    total -= o.bytes;
  }
  if (state.engine !== null && typeof state.engine.memory === "object") {
    state.peak = Math.max(state.peak, state.engine.memory.buffer.byteLength);
  }
  return r;
}

function legacyNames(env) {
  const raw = typeof env.KONTEXT_STORE_REPOS === "string" ? env.KONTEXT_STORE_REPOS : "";
  const names = raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const n of names) {
    if (!REPO_NAME.test(n)) throw new HTTPError(500, "invalid_input", `KONTEXT_STORE_REPOS names ${JSON.stringify(n)}, not a repository name ([A-Za-z0-9._-])`);
  }
  if (names.length > 0 && !hasStore(env)) {
    throw new HTTPError(500, "invalid_input", "KONTEXT_STORE_REPOS is set but the KONTEXT_STORE binding (a KV namespace or R2 bucket) is missing");
  }
  return names;
}

function hasStore(env) {
  return env.KONTEXT_STORE != null && typeof env.KONTEXT_STORE.get === "function";
}

async function storeText(binding, key) {
  const v = await binding.get(key);
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return v;
  if (typeof v.text === "function") return v.text(); // an R2 object
  return String(v);
}

async function storeJSON(binding, key) {
  const text = await storeText(binding, key);
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HTTPError(500, "operation_failed", `the store's ${key} is not JSON (${err.message}): publish again with kontext edge publish`);
  }
}

// published reads repos.json: the organisation's list ([] when the store
// has none).
async function published(env) {
  if (!hasStore(env)) return [];
  const doc = await storeJSON(env.KONTEXT_STORE, "repos.json");
  if (doc === null) return [];
  if (!doc || !Array.isArray(doc.repos)) throw new HTTPError(500, "operation_failed", "the store's repos.json has no repos list: publish again with kontext edge publish");
  return doc.repos.filter((r) => r && typeof r.name === "string" && REPO_NAME.test(r.name));
}

// defaultName: the first bundled repository, else the first of the earlier
// store layout, else the first published one.
async function defaultName(state, env) {
  if (state.bundled.length > 0) return state.bundled[0].name;
  const legacy = legacyNames(env);
  if (legacy.length > 0) return legacy[0];
  const pub = await published(env);
  if (pub.length > 0) return pub[0].name;
  throw new HTTPError(500, "not_found", "this worker serves no repository: build it with kontext edge build --bundle FILE, or publish to its KONTEXT_STORE with kontext edge publish");
}

async function repository(state, env, name) {
  if (name === null) name = await defaultName(state, env);
  else if (!REPO_NAME.test(name)) throw new HTTPError(404, "not_found", `no repository ${JSON.stringify(name)}: names are [A-Za-z0-9._-] (GET /v1/repos lists them)`);
  const engine = await ensureEngine(state, env);
  const b = state.bundled.find((r) => r.name === name);
  if (b !== undefined) {
    return keep(state, env, state.opened.get(name) ?? { name, ...open(engine, name, b.bundle), version: null });
  }
  if (legacyNames(env).includes(name)) return legacyRepository(state, env, name);
  if (!hasStore(env)) {
    throw new HTTPError(404, "not_found", `no repository ${JSON.stringify(name)}: this worker serves ${state.bundled.map((r) => r.name).join(", ")} (GET /v1/repos)`);
  }
  const index = await storeJSON(env.KONTEXT_STORE, `${name}/index.json`);
  // Another request may have closed or replaced it while the index was read.
  let had = state.opened.get(name);
  if (index === null) {
    const known = [...state.bundled.map((r) => r.name), ...legacyNames(env)];
    const served = known.length > 0 ? `this worker serves ${known.join(", ")}, and ` : "";
    throw new HTTPError(404, "not_found", `no repository ${JSON.stringify(name)}: ${served}the store has no ${name}/index.json (GET /v1/repos lists them; kontext edge publish --repo ${name} adds it)`);
  }
  if (!index || typeof index.snapshot !== "string" || !SNAPSHOT_ID.test(index.snapshot)) {
    throw new HTTPError(500, "operation_failed", `the store's ${name}/index.json names no snapshot: publish again with kontext edge publish --repo ${name}`);
  }
  if (had !== undefined && had.version === index.snapshot) return keep(state, env, had);
  const text = await storeText(env.KONTEXT_STORE, `${name}/${index.snapshot}.bundle`);
  had = state.opened.get(name);
  if (text === null) {
    // The index arrived before its bundle (KV is eventually consistent):
    // the opened snapshot answers until the bundle is there.
    if (had !== undefined) return keep(state, env, had);
    throw new HTTPError(503, "not_found", `repository ${name}: the store has no ${name}/${index.snapshot}.bundle yet (its index names it; publish again if this lasts)`);
  }
  const eng = await ensureEngine(state, env); // a boot may have happened while reading
  const opened = open(eng, name, text);
  const now = state.opened.get(name);
  if (now !== undefined && now.kb !== opened.kb) {
    now.kb.close();
    state.opened.delete(name);
  }
  return keep(state, env, { name, ...opened, version: index.snapshot });
}

// legacyRepository: the store layout of KONTEXT_STORE_REPOS (deprecated).
async function legacyRepository(state, env, name) {
  const version = await storeText(env.KONTEXT_STORE, `${name}/snapshot`);
  let had = state.opened.get(name);
  if (version === null) {
    throw new HTTPError(503, "not_found", `repository ${name}: the store has no key ${name}/snapshot (publish with kontext edge publish, which writes the current layout)`);
  }
  const marker = version.trim();
  if (had !== undefined && had.version === marker) return keep(state, env, had);
  const text = await storeText(env.KONTEXT_STORE, `${name}/bundle`);
  if (text === null) throw new HTTPError(503, "not_found", `repository ${name}: the store has no key ${name}/bundle`);
  // A marker that is a SHA-256 must be the bundle's: KV is eventually
  // consistent, and a new marker may arrive before its bundle. Until they
  // match the opened snapshot keeps answering (and the marker is read
  // again by the next request).
  const mismatch = /^[0-9a-f]{64}$/.test(marker) && (await sha256Hex(text)) !== marker;
  had = state.opened.get(name); // another request may have closed or replaced it meanwhile
  if (mismatch) {
    if (had !== undefined) return keep(state, env, had);
    throw new HTTPError(503, "not_found", `repository ${name}: the store's ${name}/bundle does not match ${name}/snapshot yet (publish the bundle, then its SHA-256)`);
  }
  const eng = await ensureEngine(state, env);
  const opened = open(eng, name, text);
  const now = state.opened.get(name);
  if (now !== undefined) {
    now.kb.close();
    state.opened.delete(name);
  }
  return keep(state, env, { name, ...opened, version: marker });
}

async function sha256Hex(text) {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

// listRepos: GET /v1/repos, paged (limit, cursor: the offset of the next
// page). Bundled repositories and those of the earlier store layout are
// opened to be described; published ones are listed from repos.json
// without opening any.
async function listRepos(state, env, ctx, url) {
  const q = url.searchParams;
  for (const k of q.keys()) {
    if (k !== "limit" && k !== "cursor") throw new HTTPError(400, "invalid_input", `unknown query parameter ${k}: use limit and cursor`);
  }
  const limit = q.get("limit") === null ? 100 : integerParam("limit", q.get("limit"));
  if (limit < 1 || limit > MAX_REPOS_PAGE) throw new HTTPError(400, "invalid_input", `limit=${limit}: between 1 and ${MAX_REPOS_PAGE}`);
  const cursor = q.get("cursor");
  const from = cursor === null ? 0 : integerParam("cursor", cursor);
  if (from < 0) throw new HTTPError(400, "invalid_input", `cursor=${cursor} is not a cursor of this list: ask again without it`);
  const names = [...state.bundled.map((r) => r.name)];
  for (const n of legacyNames(env)) if (!names.includes(n)) names.push(n);
  const pub = (await published(env)).filter((r) => !names.includes(r.name));
  const total = names.length + pub.length;
  const repos = [];
  for (let i = from; i < Math.min(total, from + limit); i++) {
    if (i < names.length) {
      const r = await repository(state, env, names[i]);
      repos.push({ name: names[i], snapshot: r.info.snapshot, entries: r.info.entries, default: i === 0 });
    } else {
      const p = pub[i - names.length];
      const item = { name: p.name, snapshot: String(p.snapshot ?? ""), entries: Number(p.entries ?? 0), default: i === 0 };
      if (typeof p.updated === "string") item.updated = p.updated;
      repos.push(item);
    }
  }
  const result = { repos, total };
  if (from + limit < total) result.next_cursor = String(from + limit);
  const tag = repos.length === 0 ? `none.${total}` : `${from}.${total}.` + repos.map((r) => r.snapshot).join(".");
  const etagValue = tag.length > 200 ? await sha256Hex(tag) : tag;
  if (notModified(ctx.request, etagValue)) return notModifiedAnswer(ctx, etagValue);
  return answer(200, { schema_version: 1, ok: true, result }, ctx, etagValue);
}

// memoryReport: GET /v1/debug/memory (KONTEXT_DEBUG=1): the instance's
// memory now and at its peak, the Go heap, and the opened repositories
// with their accounted bytes, least recently used first.
async function memoryReport(state) {
  const engine = state.engine;
  const buffer = engine !== null && typeof engine.memory === "object" ? engine.memory.buffer.byteLength : 0;
  state.peak = Math.max(state.peak, buffer);
  return {
    buffer_bytes: buffer,
    peak_buffer_bytes: state.peak,
    go: engine !== null && typeof engine.memoryStats === "function" ? engine.memoryStats() : null,
    opened: [...state.opened.values()].map((r) => ({ name: r.name, snapshot: r.info.snapshot, bytes: r.bytes })),
  };
}

// ---- MCP ----

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/** The MCP headers a browser client sends and reads. */
const MCP_HEADERS = ["MCP-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID"];

// mcp answers POST /mcp and /v1/repos/<name>/mcp: the MCP Streamable HTTP
// transport without sessions (no Mcp-Session-Id is issued, one sent is
// served and never echoed) and with JSON answers, never a stream. The
// JSON-RPC message goes to the engine as it is; its answer is the CLI's
// MCP server's, byte for byte.
async function mcp(state, env, ctx, name) {
  const { request } = ctx;
  const method = request.method;
  // DNS rebinding: a browser's Origin is refused before anything else
  // unless KONTEXT_CORS_ORIGINS allows it or it is a loopback origin the
  // request was sent to (a page of evil.example whose name resolves to
  // 127.0.0.1 sends Origin http://evil.example: refused).
  const origin = request.headers.get("origin");
  if (origin !== null && corsOrigin(env, request) === null && !(origin === new URL(request.url).origin && LOOPBACK.test(new URL(request.url).hostname))) {
    throw new HTTPError(403, "invalid_input", `origin ${origin} is not allowed: add it to KONTEXT_CORS_ORIGINS`);
  }
  await authorize(env, request);
  if (method !== "POST") {
    // No server-initiated stream and no session to delete.
    allow(method, ["POST"], new URL(request.url).pathname);
  }
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    throw new HTTPError(415, "invalid_input", "an MCP message is Content-Type: application/json");
  }
  const accept = request.headers.get("accept");
  if (accept !== null && !/(^|,)\s*(application\/json|application\/\*|\*\/\*)\s*(;|,|$)/i.test(accept)) {
    throw new HTTPError(406, "invalid_input", "this server answers MCP with application/json: accept it");
  }
  // A revision this server does not speak is refused before the body is
  // read, as the CLI's server (the MCP SDK) refuses it; none given is the
  // client's first message or an older client.
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null) {
    await ensureEngine(state, env); // the engine knows its revisions
    if (Array.isArray(state.mcpVersions) && !state.mcpVersions.includes(version.trim())) {
      throw new HTTPError(400, "invalid_input", `MCP-Protocol-Version ${JSON.stringify(version)} is not a revision this server speaks (${state.mcpVersions.join(", ")})`);
    }
  }
  const body = await readBody(request);
  const repo = await repository(state, env, name);
  const out = repo.kb.mcp(body); // the one synchronous engine call
  const headers = { "Content-Type": "application/json", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", ...corsHeaders(env, request) };
  if (out === "") return new Response(null, { status: 202, headers });
  // A frame that is not a request (not JSON, a batch, no method) is the
  // client's error: 400 with the JSON-RPC error.
  const framing = /^\{"jsonrpc":"2\.0","id":(?:null|"(?:[^"\\]|\\.)*"|[-+.\deE]+),"error":\{"code":(-\d+),/.exec(out);
  const status = framing !== null && (framing[1] === "-32700" || framing[1] === "-32600") ? 400 : 200;
  return new Response(out, { status, headers });
}

// ---- HTTP: auth, CORS, ETags ----

async function authorize(env, request) {
  const token = typeof env.KONTEXT_TOKEN === "string" ? env.KONTEXT_TOKEN : "";
  if (token === "") return;
  const header = request.headers.get("authorization") ?? "";
  const m = /^Bearer[ ]+(.+)$/i.exec(header.trim());
  const given = m ? m[1] : "";
  if (!(await sameSecret(given, token))) {
    throw new HTTPError(401, "invalid_input", header === "" ? "this worker needs Authorization: Bearer <token>" : "the bearer token is wrong", {
      "WWW-Authenticate": 'Bearer realm="kontext"',
    });
  }
}

// sameSecret compares two strings in time independent of where they differ:
// both are hashed to 32 bytes first, so neither length nor content leaks.
async function sameSecret(a, b) {
  const enc = new TextEncoder();
  const [x, y] = await Promise.all([crypto.subtle.digest("SHA-256", enc.encode(a)), crypto.subtle.digest("SHA-256", enc.encode(b))]);
  if (typeof crypto.subtle.timingSafeEqual === "function") return crypto.subtle.timingSafeEqual(x, y);
  const u = new Uint8Array(x), v = new Uint8Array(y);
  let diff = 0;
  for (let i = 0; i < u.length; i++) diff |= u[i] ^ v[i];
  return diff === 0;
}

function corsOrigin(env, request) {
  const conf = typeof env.KONTEXT_CORS_ORIGINS === "string" ? env.KONTEXT_CORS_ORIGINS.trim() : "";
  if (conf === "") return null;
  if (conf === "*") return "*";
  const origin = request.headers.get("origin");
  if (origin === null) return null;
  return conf.split(",").map((s) => s.trim()).includes(origin) ? origin : null;
}

function corsHeaders(env, request) {
  const origin = corsOrigin(env, request);
  if (origin === null) return {};
  const h = { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": ["ETag", ...MCP_HEADERS].join(", ") };
  if (origin !== "*") h.Vary = "Origin";
  return h;
}

function preflight(env, request) {
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(env, request),
      "Access-Control-Allow-Methods": "GET, HEAD, POST, OPTIONS",
      "Access-Control-Allow-Headers": ["Authorization", "Content-Type", "If-None-Match", "Accept", ...MCP_HEADERS].join(", "),
      "Access-Control-Max-Age": "86400",
    },
  });
}

function etag(snapshot) {
  return `"${snapshot}"`;
}

// notModified: If-None-Match (RFC 9110 13.1.2) with the weak comparison:
// "*" or any listed tag equal to the current one, W/ ignored.
function notModified(request, snapshot) {
  const header = request.headers.get("if-none-match");
  if (header === null) return false;
  if (header.trim() === "*") return true;
  const want = etag(snapshot);
  for (const part of header.split(",")) {
    const t = part.trim().replace(/^W\//, "");
    if (t === want) return true;
  }
  return false;
}

function notModifiedAnswer(ctx, snapshot) {
  return new Response(null, { status: 304, headers: { ETag: etag(snapshot), "Cache-Control": "no-cache", ...corsHeaders(ctx.env, ctx.request) } });
}

// answer sends an envelope. 2xx answers carry the snapshot's ETag; error
// answers never do (they are not a representation of the snapshot).
function answer(status, envelope, ctx, snapshot = null, extra = {}) {
  return answerText(status, JSON.stringify(envelope), ctx, snapshot, extra);
}

// answerText is answer with the envelope's JSON text.
function answerText(status, text, ctx, snapshot = null, extra = {}) {
  const headers = {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    ...corsHeaders(ctx.env, ctx.request),
    ...extra,
  };
  if (snapshot !== null && status >= 200 && status < 300) headers.ETag = etag(snapshot);
  const body = ctx.request.method === "HEAD" ? null : text;
  return new Response(body, { status, headers });
}
