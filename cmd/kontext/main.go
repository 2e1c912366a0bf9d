// Command kontext is the native CLI of the kontext knowledge engine: the
// JSON application API (kontext api), and human commands over the same
// dispatcher.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native"
	"github.com/kontext/kontext/native/daemon"
	// relay answers an invocation a daemon serves while the program is
	// still initialising (before the packages below it): see its doc.
	_ "github.com/kontext/kontext/native/relay"
)

// Exit codes (README "The human CLI").
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitFound       = 3
	exitInterrupted = 130
)

// factory is what one invocation shares: the flags every command takes
// (before or after its name), the streams, and the engine, opened once on
// first use (engine()).
type factory struct {
	dir      string
	json     bool
	jq       string // a jq program (implies json)
	color    string // auto | always | never
	progress string // "" | jsonl
	// text is an explicit --text / --output-format text (the resolved
	// choice is json: --jq > --json > --text > --output-format).
	text bool
	wide bool // --wide: tables show every column whole, whatever the width
	// probing: a help probe runs the command only to collect its flags.
	probing bool
	// failure is the error fail() reported (the progress stream's error event).
	failure *apierr.Error
	prog    *reporter

	io     IOStreams
	host   host
	eng    *engine.Engine
	engErr error
}

// host is what an invocation takes from its process besides the command
// line and streams. A daemon runs a client's invocation (relay) with the
// client's working directory and $COLUMNS, and engines over its warm read.
type host struct {
	cwd     string // absolute; "" is the process's working directory
	columns string // $COLUMNS
	// open opens an engine (nil: native.OpenWith).
	open func(dir string, o native.Options) (*engine.Engine, error)
	// daemon: the invocation runs inside a daemon (never forwarded again).
	daemon bool
}

// openEngine opens the engine of dir the invocation's way.
func (h host) openEngine(dir string, o native.Options) (*engine.Engine, error) {
	if h.open != nil {
		return h.open(dir, o)
	}
	return native.OpenWith(dir, o)
}

type command struct {
	name    string
	args    string
	summary string
	example string
	run     func(ctx context.Context, g *factory, args []string) int
}

var commands []command

func init() {
	commands = []command{
		{"api", "<operation> [<json>|-]", "call the JSON application API (one JSON document on stdout)",
			"kontext api entries.governing '{\"paths\":[\"src/billing/tax/vat.go\"]}'\n  kontext api drafts.stage - < request.json", runAPI},
		{"status", "", "storage, config source, counts per kind and status, review due", "kontext status", runStatusCmd},
		{"setup", "[--detect|--no-detect] [--dry-run]", "detect the knowledge the repository keeps (ADR logs, Cursor/Copilot rules, AGENTS.md) and write the config; create the knowledge directories (idempotent, no hooks)",
			"kontext setup --dry-run", runSetupCmd},
		{"list", "[--kind K] [--tag T] [--all]", "table of entries", "kontext list --kind decision", runListCmd},
		{"show", "<id>", "one entry (id, id prefix, ADR number or file path)", "kontext show 7", runShowCmd},
		{"search", "<query>", "ranked search hits", "kontext search rounding", runSearchCmd},
		{"governing", "<path>… [--min-specificity N]", "which entries govern these files, and why (rule, specificity)",
			"kontext governing src/billing/tax/vat.go", runGoverningCmd},
		{"paths", "<entry> | add|remove <entry> <glob>… | suggest [<entry>…|--all] [--max N] [--apply [--min-confidence 0.6]]", "an entry's paths and where they come from (file, overlay); stage globs into the path overlay (add, remove); suggest globs for entries without paths (staged only with --apply)",
			"kontext paths 0007\n  kontext paths add 0007 'src/db/**'\n  kontext paths suggest --all --apply", runPathsCmd},
		{"drift", "[--base R] [--head R] [--kind K]… [--fail]", "entries whose governed files changed after their last look",
			"kontext drift --base origin/main --fail", runDriftCmd},
		{"changed", "<base> <head>", "entries added, revised, superseded or deprecated between two revisions",
			"kontext changed origin/main HEAD", runChangedCmd},
		{"ci", "[--strict] [--base R] [--head R] [--notice] [--format text|github|sarif|codeclimate|json] [--fail-on none|drift|any]", "diagnostics, drift, review due and failing verifies for a CI job; with a base only what touches the change; annotations, SARIF, Code Climate",
			"kontext ci --base origin/main --format github --notice", runCICmd},
		{"pr", "comment [--pr N] [--base R] [--head R] [--provider github|gitlab] [--require]", "post or update the one pull-request (GitHub) or merge-request (GitLab) comment with the review of the change",
			"kontext pr comment --base origin/main", runPRCmd},
		{"confirm", "<id>… [--because \"…\"] [--kind read|agent] [--migrate-legacy]", "record that entries still hold: checked line + ledger line, staged (never committed)",
			"kontext confirm 2026-04-14-nightly-export-is-a-cronjob --because \"re-read after the lock fix\"", runConfirmCmd},
		{"new", "<kind> \"<title>\" [--path P]… [--tag T]… [--supersedes ID]… [--summary S] [--status S] [--body B | --edit] [--force]", "stage a new entry (never committed); the body from --body, $EDITOR on the kind's template at a terminal, or stdin",
			"kontext new convention \"Log with slog\" --path 'src/**/*.go'", runNewCmd},
		{"supersede", "<id> \"<new title>\" [--path P]…", "stage a new entry that supersedes id",
			"kontext supersede 0003 \"Use PostgreSQL\"", runSupersedeCmd},
		{"related", "\"<text>\" [--path P]… [--llm]", "entries related to a new insight (wording, overlapping paths); --llm asks the local model how they relate",
			"kontext related \"VAT is rounded per invoice\" --llm", runRelatedCmd},
		{"extract", "[<file>|-] [--max N] [--source S]", "candidate entries a local model finds in a text (nothing written)",
			"kontext extract review-thread.md --max 3", runExtractCmd},
		{"revise", "<id> --objection \"…\"…", "a replacement draft from the local model that answers the objections (nothing written)",
			"kontext revise 2026-01-14-vat-is-rounded-per-line --objection \"loses cents on long invoices\"", runReviseCmd},
		{"extend", "<id> \"<text>\" [--dry-run]", "add text verbatim under ## Added <today> to a convention, learning or incident, staged (the rest of the file unchanged)",
			"kontext extend 2026-08-28-log-with-slog \"Use slog.Group for request attributes.\"", runExtendCmd},
		{"accept", "<id>", "a proposed decision becomes accepted: its status word is rewritten where the file keeps it, staged",
			"kontext accept 0007", runAcceptCmd},
		{"reject", "<id>", "a proposed decision becomes rejected, staged", "kontext reject 0007", runRejectCmd},
		{"retire", "<id> --reason \"…\"", "mark an entry deprecated with a ## Retired note, staged",
			"kontext retire 2026-01-12-export-runs-in-api-process --reason \"replaced by the CronJob\"", runRetireCmd},
		{"verify", "<id> [--because \"…\"]", "run the entry's pinned verify command; ledger line staged (exit 3 when it fails or times out)",
			"kontext verify 2026-01-14-vat-is-rounded-per-line", runVerifyCmd},
		{"trust", "--verify <id>", "show an entry's verify command and pin it in your trust.toml (asks; terminal only)",
			"kontext trust --verify 2026-01-14-vat-is-rounded-per-line", runTrustCmd},
		{"brief", "[<path>…] [--diff <base>] [--budget-lines N] [--architecture]", "budgeted context for an agent or reviewer: governing rules in authority order, and what was left out",
			"kontext brief src/billing/tax/vat.go --budget-lines 80", runBriefCmd},
		{"bundle", "[--base R] [--head R | --worktree] -o file.json", "write a knowledge bundle (kontext.bundle/v1) for the review console or the edge worker: committed, team-visible entries at HEAD (--worktree: uncommitted too)",
			"kontext bundle --base origin/main -o bundle.json", runBundleCmd},
		{"edge", "build -o DIR --bundle [NAME=]FILE… [--name N] | serve [--port P] --bundle [NAME=]FILE… [--store DIR]", "the edge worker: governing lookups over HTTP on Cloudflare Workers / workerd from bundles (build: a deployable directory; serve: a local workerd on 127.0.0.1)",
			"kontext edge build -o edge --bundle app=bundle.json\n  kontext edge serve --bundle bundle.json --port 8787", runEdgeCmd},
		{"review", "[--base R] [--head R] [--port P] [--no-open] [--out file.html] [--format markdown]", "the review console for this change: served on 127.0.0.1, or one self-contained HTML file, or (--format markdown) the pull-request comment body",
			"kontext review --out review.html\n  kontext review --format markdown --base origin/main", runReviewCmd},
		{"capture", "--kind K --title T [--path P]… [--tag T]… [--source S] [--body B]", "keep an insight as a local inbox candidate (secrets and e-mail addresses redacted; body from stdin)",
			"kontext capture --kind learning --title \"VAT ids are checked upstream\" --path 'src/billing/**' < note.md", runCaptureCmd},
		{"promote", "<candidate> [--path P]", "stage a captured candidate as a new entry (never committed)", "kontext promote cand-1a2b3c4d5e6f", runPromoteCmd},
		{"repair", "", "rewrite lagging checked lines from the ledger and restore missing reciprocal supersede metadata; staged", "kontext repair", runRepairCmd},
		{"inbox", "[--state pending|dismissed|promoted|all]", "this worktree's captured candidates and challenges", "kontext inbox --state all", runInboxCmd},
		{"drop", "<candidate> [--reason \"…\"]", "dismiss an inbox candidate", "kontext drop cand-1a2b3c4d5e6f --reason \"duplicate\"", runDropCmd},
		{"challenge", "<id> --because \"…\"", "record in the inbox that an entry may no longer hold (never staged)",
			"kontext challenge 2026-01-12-money-is-integer-cents --because \"we store micros now\"", runChallengeCmd},
		{"version", "", "the version, API version and license (--json: also commit, Go version, os/arch)", "kontext version --json", runVersionCmd},
		{"completion", "bash|zsh|fish|powershell", "a shell completion script for the commands and their flags", "kontext completion bash > /etc/bash_completion.d/kontext", runCompletionCmd},
		{"man", "", "the man page kontext(1) in roff", "kontext man > kontext.1", runManCmd},
		{"daemon", "start|run|stop|status [--idle D]", "the opt-in file-system monitor: a background process per repository that answers read-only kontext api calls from memory, told of changes by inotify (Linux)",
			"kontext daemon start\n  kontext daemon status --json", runDaemonCmd},
		{"mcp", "", "MCP server over stdio (tools ctx_api, ctx_brief, ctx_capture, ctx_challenge, ctx_governing, ctx_prepare_commit)",
			"kontext -C ~/src/app mcp", runMCPCmd},
	}
}

func main() {
	shortCallGC() // a call is short: see gc.go
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// A reader that goes away (| head) must end the output quietly: with
	// SIGPIPE caught, writes fail with EPIPE instead of killing the process.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	stampVersion()
	code := run(ctx, os.Args[1:], System())
	if ctx.Err() != nil {
		code = exitInterrupted
	}
	stop()
	os.Exit(code)
}

// run is one invocation in this process.
func run(ctx context.Context, args []string, streams IOStreams) int {
	return runIn(ctx, args, streams, host{columns: os.Getenv("COLUMNS")})
}

// runIn is one invocation on the host h.
func runIn(ctx context.Context, args []string, streams IOStreams, h host) int {
	stdout, stderr := streams.Out, streams.ErrOut
	g := &factory{dir: ".", color: "auto", io: streams, host: h}
	rest, version, help, err := parseGlobals(g, args)
	if err != nil {
		fmt.Fprintf(stderr, "kontext: %v\n", err)
		shortUsage(stderr)
		return exitUsage
	}
	if h.cwd != "" && !filepath.IsAbs(g.dir) {
		g.dir = filepath.Join(h.cwd, g.dir)
	}
	if version && g.json {
		return runVersionCmd(ctx, g, nil) // --version --json: the version object
	}
	if version {
		fmt.Fprintf(stdout, "kontext %s (api %d)\n", engine.Version, engine.APIVersion)
		return exitOK
	}
	if help || len(rest) == 0 {
		usage(stdout)
		if len(rest) == 0 && !help {
			return exitUsage
		}
		return exitOK
	}
	if rest[0] == "help" {
		if len(rest) > 1 {
			c := find(rest[1])
			if c == nil {
				return unknownCommand(stderr, rest[1])
			}
			commandHelp(stdout, c, rest[2:])
			return exitOK
		}
		usage(stdout)
		return exitOK
	}
	c := find(rest[0])
	if c == nil {
		return unknownCommand(stderr, rest[0])
	}
	for _, a := range rest[1:] {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			commandHelp(stdout, c, rest[1:])
			return exitOK
		}
	}
	if g.json {
		g.io.ErrOut = jsonErrs{g.io.ErrOut}
	}
	g.prog = newReporter(g, c.name)
	code := c.run(ctx, g, rest[1:])
	code = g.prog.end(ctx, code)
	read := c.name != "api" || len(rest) > 1 && daemon.Forwardable(rest[1])
	if !h.daemon && daemonCommands[c.name] && read && os.Getenv("KONTEXT_DAEMON") == "auto" {
		autoStartDaemon(g)
	}
	return code
}

// parseGlobals takes the global flags out of args wherever they stand
// (before "--"), so `kontext list --json` works like `kontext --json list`.
func parseGlobals(g *factory, args []string) (rest []string, version, help bool, err error) {
	value := func(i *int, name string) (string, error) {
		a := args[*i]
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, nil
		}
		if *i+1 >= len(args) {
			return "", fmt.Errorf("%s needs a value", name)
		}
		*i++
		return args[*i], nil
	}
	seenCommand := false
	jsonFlag, format := false, ""
	// The output choice is resolved once: --jq > --json > --text > --output-format.
	defer func() {
		switch {
		case g.jq != "" || jsonFlag:
			g.json, g.text = true, false
		case g.text:
			g.json = false
		case format != "":
			g.json, g.text = format == "json", format == "text"
		}
	}()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(rest, args[i:]...), version, help, nil
		case a == "--json" || a == "-json":
			jsonFlag = true
		case a == "--text":
			g.text = true
		case a == "--wide":
			g.wide = true
		case a == "--output-format" || strings.HasPrefix(a, "--output-format="):
			if format, err = value(&i, "--output-format"); err != nil {
				return
			}
			if format != "json" && format != "text" {
				return nil, false, false, fmt.Errorf("--output-format takes json or text, not %q", format)
			}
		case a == "--jq" || strings.HasPrefix(a, "--jq="):
			if g.jq, err = value(&i, "--jq"); err != nil {
				return
			}
		case a == "--color" || strings.HasPrefix(a, "--color="):
			if g.color, err = value(&i, "--color"); err != nil {
				return
			}
			if g.color != "auto" && g.color != "always" && g.color != "never" {
				return nil, false, false, fmt.Errorf("--color takes auto, always or never, not %q", g.color)
			}
		case a == "--progress" || strings.HasPrefix(a, "--progress="):
			if g.progress, err = value(&i, "--progress"); err != nil {
				return
			}
			if g.progress != "jsonl" {
				return nil, false, false, fmt.Errorf("--progress takes jsonl, not %q", g.progress)
			}
		case a == "-C" || strings.HasPrefix(a, "-C="):
			if g.dir, err = value(&i, "-C"); err != nil {
				return
			}
		case strings.HasPrefix(a, "-C") && !seenCommand:
			g.dir = a[2:]
		case (a == "--version" || a == "-version") && !seenCommand:
			version = true
		case (a == "-h" || a == "--help" || a == "-help") && !seenCommand:
			help = true
		default:
			if !strings.HasPrefix(a, "-") {
				seenCommand = true
			}
			rest = append(rest, a)
		}
	}
	return rest, version, help, nil
}

func find(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `kontext — git-native project knowledge: which decisions, conventions and
learnings govern these files, and why.

Usage: kontext [-C dir] [--json | --jq expr | --text] [--color auto|always|never] <command> [arguments]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, `
Global flags (before or after the command):
  -C dir       run as if started in dir
  --json       print JSON instead of text (stable, never truncated; errors go to stderr as the API envelope)
  --jq expr    filter the JSON with a jq program (implies --json)
  --text       human text (the default; kontext api: the envelope indented)
  --output-format json|text  the same choice as a value (precedence: --jq > --json > --text > --output-format)
  --wide       tables show every column whole (default: fit the terminal or $COLUMNS)
  --color m    auto (default: only on a terminal; NO_COLOR disables, CLICOLOR_FORCE forces), always, never
  --progress jsonl  stream progress events as JSON lines on stderr
                    ({"type":"state|progress|file_done|complete|error","flow":"<command>",…})
  --version    print the version

Examples:
  kontext governing src/billing/tax/vat.go
  kontext api status
  kontext help governing

Exit codes: 0 ok, 1 operational error, 2 usage or invalid input, 3 a check found something,
10 brief over budget, 130 interrupted.
`)
}

// exitFor maps an API error to the exit code.
func exitFor(err error) int {
	switch apierr.CodeOf(err) {
	case "":
		return exitOK
	case apierr.InvalidInput, apierr.UnsupportedOperation:
		return exitUsage
	}
	return exitFailed
}

// fail reports err: the JSON envelope on stderr under --json, else a line.
func fail(g *factory, stderr io.Writer, err error) int {
	if errors.Is(err, context.Canceled) {
		return exitInterrupted // interrupted: no error line
	}
	g.failure = apierr.As(err)
	if g.progress == "jsonl" && !g.json {
		return exitFor(err) // the stream's closing error event carries it: stderr stays JSON lines
	}
	if g.json {
		stderr.Write(engine.ErrorEnvelope(err))
		io.WriteString(stderr, "\n")
	} else {
		ae := apierr.As(err)
		fmt.Fprintf(stderr, "kontext: %s (%s)\n", neutral(strings.TrimSpace(ae.Message)), ae.Code)
	}
	return exitFor(err)
}
