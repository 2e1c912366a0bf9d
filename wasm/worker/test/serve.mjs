// serveEdge starts `kontext edge serve` (the binary bin, environment env
// plus extraEnv, args after --port 0) from the repository root and
// resolves to {url, proc, stderr()} once it prints its URL; it rejects when
// the server exits first or says nothing for two minutes.
import { spawn } from "node:child_process";

import { repoRoot } from "../../test/helpers.mjs";

export function serveEdge(bin, env, args, extraEnv = {}) {
  const proc = spawn(bin, ["edge", "serve", "--port", "0", ...args], { cwd: repoRoot, env: { ...env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  proc.stderr.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`edge serve did not start: ${err}`)), 120000);
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], proc, stderr: () => err });
      }
    });
    proc.on("exit", (code) => reject(new Error(`edge serve exited ${code}: ${err}`)));
  });
}
