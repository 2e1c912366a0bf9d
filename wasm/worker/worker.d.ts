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
 * KONTEXT_CORS_ORIGINS, KONTEXT_STORE (KV namespace or R2 bucket) with
 * KONTEXT_STORE_REPOS.
 */
export interface WorkerEnv {
  KONTEXT_TOKEN?: string;
  KONTEXT_CORS_ORIGINS?: string;
  KONTEXT_STORE?: { get(key: string): Promise<string | { text(): Promise<string> } | null> };
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

/** The worker's compact governing entries (engines without the compact view). */
export function compactGoverning(result: { entries: object[]; total: number; snapshot: string }): {
  entries: object[];
  total: number;
  snapshot: string;
};
