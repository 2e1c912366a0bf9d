// The official MCP conformance suite (npm @modelcontextprotocol/conformance,
// a pinned root devDependency, run on the pinned node@22: it does not start
// on Node 20) against one MCP Streamable HTTP server, with every server
// scenario of the suite classified below: the ones kontext must pass, and
// the ones that do not apply to it (with the reason docs/mcp.md gives). A
// scenario the suite adds that is in neither list fails the run until it is
// classified. The machine's Node runs this script.
//
//   node build/conformance.mjs [--na SCENARIO=REASON]… URL
//   node build/conformance.mjs [--na SCENARIO=REASON]… -- CMD [ARG…]
//
// With a URL the server is already listening there. With -- the script
// starts CMD, takes the first http:// URL it prints on stdout (…/mcp, or
// the root with mcp appended), runs the suite, then stops CMD with SIGINT.
// --na marks one more scenario not applicable on this server.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

// Must pass: every check SUCCESS (or INFO).
const pass = {
  "server-initialize": "the initialize handshake (the legacy one; the server stays sessionless)",
  ping: "ping",
  "tools-list": "tools/list: every tool with a name, description and input schema",
  "dns-rebinding-protection": "a foreign Host/Origin is 4xx, a localhost one 2xx",
  "logging-set-level": "logging/setLevel (the SDK's logging capability)",
  "resources-list": "resources/list answers an empty list",
  "prompts-list": "prompts/list answers an empty list",
};

// Not applicable: the reason.
const fixtureTool = "calls the suite's fixture tool of that name (test_*); kontext serves its own six tools";
const notApplicable = {
  "completion-complete": "completes arguments of the suite's fixture prompts and resource templates; kontext has neither, so completion/complete is not offered",
  "tools-call-simple-text": fixtureTool,
  "tools-call-image": fixtureTool,
  "tools-call-audio": fixtureTool,
  "tools-call-embedded-resource": fixtureTool,
  "tools-call-mixed-content": fixtureTool,
  "tools-call-with-logging": fixtureTool,
  "tools-call-error": fixtureTool,
  "tools-call-with-progress": fixtureTool,
  "tools-call-sampling": fixtureTool + "; sampling is a server-to-client request, which a sessionless server cannot make",
  "tools-call-elicitation": fixtureTool + "; elicitation is a server-to-client request, which a sessionless server cannot make",
  "elicitation-sep1034-defaults": "elicitation through the fixture tool test_elicitation_sep1034_defaults: a server-to-client request, impossible sessionless",
  "elicitation-sep1330-enums": "elicitation through the fixture tool test_elicitation_sep1330_enums: a server-to-client request, impossible sessionless",
  "json-schema-2020-12": "lists the fixture tool json_schema_2020_12_tool; kontext's input schemas are its own (frozen in testdata/mcp/tools.json)",
  "server-sse-polling": "needs a session id and the fixture tool test_reconnection; a sessionless server has no session and answers a POST with JSON",
  "server-sse-multiple-streams": "needs a session id (the suite stops with a warning without one); a sessionless server has none — concurrent POSTs are tested in internal/mcpserver (TestHTTPConcurrent)",
  "resources-read-text": "reads the suite's fixture resources; kontext serves no resources",
  "resources-read-binary": "reads the suite's fixture resources; kontext serves no resources",
  "resources-templates-read": "reads the suite's fixture resource templates; kontext serves none",
  "resources-subscribe": "subscribes to a fixture resource; kontext serves no resources",
  "resources-unsubscribe": "unsubscribes from a fixture resource; kontext serves no resources",
  "prompts-get-simple": "gets the suite's fixture prompts; kontext serves no prompts",
  "prompts-get-with-args": "gets the suite's fixture prompts; kontext serves no prompts",
  "prompts-get-embedded-resource": "gets the suite's fixture prompts; kontext serves no prompts",
  "prompts-get-with-image": "gets the suite's fixture prompts; kontext serves no prompts",
};

function usage(msg) {
  console.error(`conformance: ${msg}\nusage: node build/conformance.mjs [--na SCENARIO=REASON]… (URL | -- CMD [ARG…])`);
  process.exit(2);
}

const args = process.argv.slice(2);
const na = { ...notApplicable };
while (args[0] === "--na") {
  const [name, ...why] = (args[1] ?? "").split("=");
  if (!name || why.length === 0) usage("--na takes SCENARIO=REASON");
  delete pass[name];
  na[name] = why.join("=");
  args.splice(0, 2);
}
if (args.length === 0) usage("name a URL or -- CMD");

const node22 = join(root, "node_modules", ".bin", "node");
const suite = join(root, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
if (!existsSync(node22) || !existsSync(suite)) {
  usage("node_modules lacks node@22 or @modelcontextprotocol/conformance: run make node-deps");
}

let server;
let url;
if (args[0] === "--") {
  if (args.length < 2) usage("-- needs a command");
  ({ server, url } = await start(args.slice(1)));
} else {
  url = args[0];
}

const out = mkdtempSync(join(tmpdir(), "kontext-conformance-"));
let failed = [];
try {
  const run = spawnSync(node22, [suite, "server", "--url", url, "--suite", "all", "-o", out], { encoding: "utf8", timeout: 300_000 });
  if (run.error) throw run.error;
  const results = {};
  for (const d of readdirSync(out)) {
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(d);
    if (m) results[m[1]] = JSON.parse(readFileSync(join(out, d, "checks.json"), "utf8"));
  }
  for (const [name, checks] of Object.entries(results)) {
    const bad = checks.filter((c) => c.status !== "SUCCESS" && c.status !== "INFO");
    if (name in pass) {
      if (bad.length > 0 || !checks.some((c) => c.status === "SUCCESS")) {
        failed.push(`${name}: must pass; ${bad.map((c) => `${c.id} ${c.status}: ${c.errorMessage ?? c.details?.message ?? ""}`).join("; ") || "no check succeeded"}`);
      } else {
        console.log(`pass  ${name}`);
      }
    } else if (name in na) {
      console.log(`n/a   ${name} (${checks.map((c) => c.status).filter((s, i, a) => a.indexOf(s) === i).join(", ")}): ${na[name]}`);
    } else {
      failed.push(`${name}: a scenario this script does not know; classify it in build/conformance.mjs and docs/mcp.md`);
    }
  }
  for (const name of Object.keys(pass)) {
    if (!(name in results)) failed.push(`${name}: must pass, but the suite did not run it (renamed in a newer suite?)`);
  }
  if (failed.length > 0) {
    console.error(run.stdout.slice(-4000));
    console.error(run.stderr.slice(-4000));
  }
} finally {
  if (server) await stop(server);
}
if (failed.length > 0) {
  console.error(`conformance against ${url} FAILED (results in ${out}):\n  ${failed.join("\n  ")}`);
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
console.log(`conformance: ${url}: ${Object.keys(pass).length} scenarios pass, ${Object.keys(na).length} not applicable`);

// start runs cmd and resolves once it printed its URL.
function start(cmd) {
  const proc = spawn(cmd[0], cmd.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
  let seen = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd.join(" ")} printed no URL: ${seen}`)), 120_000);
    proc.on("exit", (code) => reject(new Error(`${cmd.join(" ")} exited (${code}) before printing a URL: ${seen}`)));
    proc.stdout.on("data", (d) => {
      seen += d;
      const m = /http:\/\/\S+(?=\s)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        const u = m[0].endsWith("/mcp") ? m[0] : m[0].replace(/\/?$/, "/mcp");
        resolve({ server: proc, url: u });
      }
    });
  });
}

function stop(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.removeAllListeners("exit");
    proc.on("exit", () => resolve());
    proc.kill("SIGINT");
  });
}
