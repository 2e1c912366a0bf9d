// Types of @kontext/engine/worker (wasm/worker/worker.js).

/** A repository bundled with the worker: the JSON text (or object) of `kontext bundle`. */
export interface BundledRepository {
  /** [A-Za-z0-9._-], 1-100 characters; the first repository is the default. */
  name: string;
  bundle: string | object;
}

export interface WorkerOptions {
  /** The engine: `import wasm from "@kontext/engine/kontext.wasm"`. */
  wasm: WebAssembly.Module;
  repos?: BundledRepository[];
}

/**
 * The bindings the worker reads (all optional): KONTEXT_TOKEN (secret),
 * KONTEXT_CORS_ORIGINS, KONTEXT_STORE (a KV namespace in the layout of
 * `kontext edge publish`: repos.json, <repo>/index.json,
 * <repo>/<snapshot>.bundle), KONTEXT_MEMORY_MB (the budget of opened
 * repositories), KONTEXT_DEBUG ("1": GET /v1/debug/memory) and, deprecated
 * for one release, KONTEXT_STORE_REPOS (the earlier layout).
 */
export interface WorkerEnv {
  KONTEXT_TOKEN?: string;
  KONTEXT_CORS_ORIGINS?: string;
  KONTEXT_STORE?: { get(key: string): Promise<string | { text(): Promise<string> } | null> };
  KONTEXT_MEMORY_MB?: string;
  KONTEXT_DEBUG?: string;
  /** @deprecated the earlier store layout, read for one more release. */
  KONTEXT_STORE_REPOS?: string;
}

export interface KontextWorker {
  fetch(request: Request, env?: WorkerEnv, ctx?: unknown): Promise<Response>;
}

/** The Worker object: `export default createWorker({wasm, repos})`. */
export function createWorker(options: WorkerOptions): KontextWorker;

/** Request bodies above this many bytes answer 413. */
export const MAX_BODY_BYTES: number;
/** Governing requests naming more paths answer 400. */
export const MAX_PATHS: number;
/** The Go heap's soft limit set at boot, in MB. */
export const GO_MEMORY_LIMIT_MB: number;
/** The collector's pacing under GO_MEMORY_LIMIT_MB (debug.SetGCPercent). */
export const GC_PERCENT: number;
/** The default budget of opened repositories, in MB (KONTEXT_MEMORY_MB). */
export const MEMORY_BUDGET_MB: number;
/** GET /v1/repos answers at most this many a page. */
export const MAX_REPOS_PAGE: number;

/** The worker's compact governing entries (engines without the compact view). */
export function compactGoverning(result: { entries: object[]; total: number; snapshot: string }): {
  entries: object[];
  total: number;
  snapshot: string;
};
