// Shared fixtures of the package tests: the demo files, the native CLI and
// the ONE place that normalises what legitimately differs between the
// native answer (a git repository) and the WASM answer (an in-memory
// snapshot).
//
// `make test-wasm` builds the native binary, the demo repository and the
// package tarball once and passes them in KONTEXT_BIN, KONTEXT_DEMO_REPO and
// KONTEXT_PACK; run alone (node --test wasm/test/), the tests build what is
// missing themselves.

import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const demoDir = join(repoRoot, "testdata", "demo");
export const NOW = "2026-11-30T12:00:00Z";

/** Every file of testdata/demo as {path: text}: the same tree as the demo repository. */
export function demoFiles() {
  const out = {};
  const walk = (dir) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (d.isFile()) out[relative(demoDir, p).split(sep).join("/")] = readFileSync(p, "utf8");
    }
  };
  walk(demoDir);
  return out;
}

let scratch = null;
function scratchDir() {
  scratch ??= mkdtempSync(join(tmpdir(), "kontext-wasm-test-"));
  return scratch;
}

const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", KONTEXT_NOW: NOW };

/** The native binary (built from ./cmd/kontext when KONTEXT_BIN is unset). */
export function nativeBin() {
  if (process.env.KONTEXT_BIN) return process.env.KONTEXT_BIN;
  const bin = join(scratchDir(), "kontext");
  if (!existsSync(bin)) execFileSync("go", ["build", "-o", bin, "./cmd/kontext"], { cwd: repoRoot, env, stdio: "inherit" });
  return bin;
}

/** The demo repository built by build/demo-repo.sh. */
export function demoRepo() {
  if (process.env.KONTEXT_DEMO_REPO) return process.env.KONTEXT_DEMO_REPO;
  const dir = join(scratchDir(), "demo");
  if (!existsSync(dir)) execFileSync("bash", ["build/demo-repo.sh", dir], { cwd: repoRoot, env, stdio: "ignore" });
  return dir;
}

/** The npm pack tarball of the package. */
export function packTarball() {
  let dir = process.env.KONTEXT_PACK;
  if (!dir) {
    dir = join(scratchDir(), "pack");
    if (!existsSync(dir)) execFileSync("bash", ["build/wasm.sh", dir], { cwd: repoRoot, env, stdio: "ignore" });
  }
  const tgz = readdirSync(dir).filter((f) => f.endsWith(".tgz"));
  if (tgz.length !== 1) throw new Error(`expected one tarball in ${dir}, found ${tgz}`);
  return join(dir, tgz[0]);
}

/** `kontext -C <demo repo> api <op> <input>`: the raw stdout (one JSON document). */
export function nativeRaw(op, input) {
  const doc = typeof input === "string" ? input : JSON.stringify(input ?? {});
  const r = spawnSync(nativeBin(), ["-C", demoRepo(), "api", op, doc], { env, encoding: "utf8" });
  if (r.error) throw r.error;
  return r.stdout.trimEnd();
}

/** The native envelope, parsed. */
export function native(op, input) {
  return JSON.parse(nativeRaw(op, input));
}

/** The demo repository's bundle (`kontext api bundle.build`): its head files and compiled snapshot. */
export function demoBundle() {
  const env = JSON.parse(nativeRaw("bundle.build", {}));
  if (!env.ok) throw new Error(`bundle.build: ${JSON.stringify(env.error)}`);
  return env.result;
}

/** Reads of the demo that answer from every entry (the snapshot tests ask them). */
export const DEMO_READS = [
  ["status", {}],
  ["entries.list", { limit: 500 }],
  ["entries.governing", { paths: ["src/billing/tax/vat.go", "src/export/nightly.go", "docs/x.md"] }],
  ["entries.search", { query: "invoice rounding" }],
  ["entries.get", { id: "2026-01-12-money-is-integer-cents" }],
  ["entries.related", { text: "VAT is rounded per invoice", paths: ["src/billing/tax/vat.go"] }],
];

export { env as nativeEnv };

const PLACEHOLDER = "<differs>";

/**
 * normalise returns a copy of an envelope with the fields that legitimately
 * differ between native and WASM replaced by one placeholder. It is the ONLY
 * place the parity tests allow a difference:
 *
 * - `root`: native reports the repository's absolute path, WASM "";
 * - `publication.state` and `publication.revision`: native says how far the
 *   file travelled in git (committed at HEAD), WASM "snapshot" at the
 *   optional revision given to open() (null here);
 * - `config_source.kind`: committed vs snapshot;
 * - status `capabilities` (native: every operation; WASM: the read subset)
 *   and status `revision` (HEAD vs the open() revision);
 * - status `incomplete_operations`: this worktree's unfinished writes, which
 *   only a native engine (the one that writes) has; the in-memory engine
 *   omits the field;
 * - every `snapshot` id, since HEAD is part of it, and every `next_cursor`,
 *   which carries it;
 * - the history-derived `landed`, `since`, `since_verified` and
 *   `amended_since` (native reads git history; the in-memory engine has
 *   none and answers null);
 * - the model selection's words: status `llm.reason` and the message of a
 *   `model_unavailable` error (native names the local selection; the
 *   in-memory engine has no model at all). The code and every other field
 *   of `llm` must match.
 *
 * Everything else — entries, bodies, blob ids, scores, matches, errors and
 * key order — must be byte-for-byte equal.
 */
export function normalise(op, envelope) {
  const walk = (v, key) => {
    if (Array.isArray(v)) return v.map((x) => walk(x, null));
    if (v === null || typeof v !== "object") return v;
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      // A cursor carries the snapshot id (native and in-memory ids differ).
      if (k === "root" || k === "snapshot" || k === "next_cursor") out[k] = PLACEHOLDER;
      // History-derived values need git: the native side has them, the
      // in-memory engine answers null (or omits amended_since).
      else if (k === "landed" || k === "since" || k === "since_verified") out[k] = PLACEHOLDER;
      else if (k === "amended_since") continue;
      else if (key === "publication" && (k === "state" || k === "revision")) out[k] = PLACEHOLDER;
      else if (key === "config_source" && k === "kind") out[k] = PLACEHOLDER;
      else out[k] = walk(x, k);
    }
    return out;
  };
  const env = walk(envelope, null);
  if (op === "status" && env.ok) {
    env.result.capabilities = PLACEHOLDER;
    env.result.revision = PLACEHOLDER;
    delete env.result.incomplete_operations;
    if (env.result.llm) env.result.llm.reason = PLACEHOLDER;
  }
  if (op === "context.brief" && env.ok) {
    // A brief's REPOSITORY section is the working tree's (branch, HEAD,
    // dirty); a file set has none. Every other section is the same.
    env.result.repository = PLACEHOLDER;
    env.result.sections = env.result.sections.filter((s) => s.id !== "repository");
  }
  if (!env.ok && env.error && env.error.code === "model_unavailable") env.error.message = PLACEHOLDER;
  return JSON.stringify(env);
}
