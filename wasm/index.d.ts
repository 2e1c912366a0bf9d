// Type declarations of @kontext/engine.

/** The envelope every operation answers, the same JSON as `kontext api`. */
export type Envelope<T = any> =
  | { schema_version: 1; ok: true; result: T }
  | { schema_version: 1; ok: false; error: ApiError };

export interface ApiError {
  code: string;
  message: string;
  [key: string]: unknown;
}

/** Files of a knowledge base: repository-relative path → text (or UTF-8 bytes). */
export type Files = Record<string, string | Uint8Array> | Map<string, string | Uint8Array>;

export type WasmSource =
  | WebAssembly.Module
  | ArrayBuffer
  | ArrayBufferView
  | URL
  | string
  | Response
  | Promise<Response>;

export interface LoadOptions {
  /** The engine; defaults to the package's kontext.wasm. Gzip-compressed bytes are accepted. */
  wasm?: WasmSource;
}

export interface OpenOptions {
  files: Files;
  /** publication.revision of the snapshot (e.g. a bundle's head commit); null by default. */
  revision?: string | null;
  /** The clock (RFC 3339 or a Date) for review_due; the current time by default. */
  now?: string | Date | null;
}

export interface UpdateOptions {
  files?: Files;
  remove?: string[];
  revision?: string | null;
}

export interface ABI {
  abi: 1;
  version: string;
  /** The operations request() serves (status.capabilities). */
  operations: string[];
  /** The functions of the wasm table. */
  functions: string[];
}

export interface Change {
  id: string;
  kind: string;
  title: string;
  file: string;
  paths: string[];
  revision: string;
  status: string | null;
  change: "added" | "revised" | "superseded" | "deprecated";
  superseded_by?: string[];
  removed?: boolean;
  base_revision: string | null;
  head_revision: string | null;
}

export interface ChangedResult {
  base: string | null;
  head: string | null;
  changes: Change[];
}

export interface Rendered {
  /** The HTML fragment: no raw HTML from the source, no dangerous link targets. */
  html: string;
  /** True when the text was too large to parse: html is the escaped text in one <pre>. */
  plain: boolean;
}

export declare class KontextError extends Error {
  readonly code: string;
  readonly error: ApiError;
}

export interface KnowledgeBase {
  readonly handle: number;
  /** The current snapshot id (status.snapshot). */
  readonly snapshot: string;
  /** Runs one operation of the read subset; a string input is passed as raw JSON. */
  request<T = any>(operation: string, input?: object | string): Envelope<T>;
  /** Writes and removes files; throws KontextError on invalid input. */
  update(options: UpdateOptions): { written: string[]; removed: string[] };
  close(): void;
}

export interface Engine {
  /** True when the Go runtime has exited. */
  readonly exited: boolean;
  /** The wasm instance's memory. */
  readonly memory: WebAssembly.Memory;
  abi(): ABI;
  /** Throws KontextError on invalid input. */
  open(options: OpenOptions): KnowledgeBase;
  /** Entries changed between two snapshots. */
  changed(base: KnowledgeBase, head: KnowledgeBase): Envelope<ChangedResult>;
  /** Renders Markdown (an entry body) to safe HTML; throws KontextError when markdown is not a string. */
  render(markdown: string): Rendered;
  /** KnowledgePolicy.inspect: parse one file's text under a config (null = defaults). */
  inspect(path: string, text: string, options?: { config?: string | null; storage?: string | null }): Envelope;
}

export declare function loadEngine(options?: LoadOptions): Promise<Engine>;
