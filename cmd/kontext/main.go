// Command kontext is the native CLI of the kontext knowledge engine: the
// JSON application API (kontext api), and human commands over the same
// dispatcher.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

// Exit codes (07-surfaces.md).
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitFound       = 3
	exitInterrupted = 130
)

// globals are the flags that precede the command.
type globals struct {
	dir  string
	json bool
}

type command struct {
	name    string
	args    string
	summary string
	example string
	run     func(ctx context.Context, g *globals, args []string, stdout, stderr io.Writer, stdin io.Reader) int
}

var commands []command

func init() {
	commands = []command{
		{"api", "<operation> [<json>|-]", "call the JSON application API (one JSON document on stdout)",
			"kontext api entries.governing '{\"paths\":[\"src/billing/tax/vat.go\"]}'\n  kontext api drafts.stage - < request.json", runAPI},
		{"status", "", "storage, config source, counts per kind and status, review due", "kontext status", runStatusCmd},
		{"setup", "", "create the knowledge directories and a committed config (idempotent, no hooks)", "kontext setup", runSetupCmd},
		{"list", "[--kind K] [--tag T] [--all]", "table of entries", "kontext list --kind decision", runListCmd},
		{"show", "<id>", "one entry (id, id prefix, ADR number or file path)", "kontext show 7", runShowCmd},
		{"search", "<query>", "ranked search hits", "kontext search rounding", runSearchCmd},
		{"governing", "<path>… [--min-specificity N]", "which entries govern these files, and why (rule, specificity)",
			"kontext governing src/billing/tax/vat.go", runGoverningCmd},
		{"drift", "[--base R] [--head R] [--kind K]… [--fail]", "entries whose governed files changed after their last look",
			"kontext drift --base origin/main --fail", runDriftCmd},
		{"changed", "<base> <head>", "entries added, revised, superseded or deprecated between two revisions",
			"kontext changed origin/main HEAD", runChangedCmd},
		{"ci", "[--strict]", "diagnostics, drift, review due and failing verifies for a CI job",
			"kontext ci --strict", runCICmd},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Stdin)
	if ctx.Err() != nil {
		code = exitInterrupted
	}
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, stdin io.Reader) int {
	g := &globals{}
	fs := flag.NewFlagSet("kontext", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&g.dir, "C", ".", "run as if started in `dir`")
	fs.BoolVar(&g.json, "json", false, "print JSON (stable, for scripts)")
	version := fs.Bool("version", false, "print the version")
	help := fs.Bool("h", false, "help")
	fs.BoolVar(help, "help", false, "help")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "kontext: %v\n\n", err)
		usage(stderr)
		return exitUsage
	}
	if *version {
		fmt.Fprintf(stdout, "kontext %s (api %d)\n", engine.Version, engine.APIVersion)
		return exitOK
	}
	rest := fs.Args()
	if *help || len(rest) == 0 {
		usage(stdout)
		if len(rest) == 0 && !*help {
			return exitUsage
		}
		return exitOK
	}
	if rest[0] == "help" {
		if len(rest) > 1 {
			if c := find(rest[1]); c != nil {
				commandHelp(stdout, c)
				return exitOK
			}
		}
		usage(stdout)
		return exitOK
	}
	c := find(rest[0])
	if c == nil {
		fmt.Fprintf(stderr, "kontext: unknown command %q\n\n", rest[0])
		usage(stderr)
		return exitUsage
	}
	for _, a := range rest[1:] {
		if a == "-h" || a == "--help" {
			commandHelp(stdout, c)
			return exitOK
		}
	}
	return c.run(ctx, g, rest[1:], stdout, stderr, stdin)
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

Usage: kontext [-C dir] [--json] <command> [arguments]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, `
Global flags:
  -C dir       run as if started in dir
  --json       print JSON instead of text (stable; errors go to stderr as the API envelope)
  --version    print the version

Examples:
  kontext governing src/billing/tax/vat.go
  kontext api status
  kontext help governing

Exit codes: 0 ok, 1 operational error, 2 usage or invalid input, 3 a check found something, 130 interrupted.
`)
}

func commandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "Usage: kontext %s %s\n\n%s\n\nExample:\n  %s\n", c.name, c.args, c.summary, c.example)
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
func fail(g *globals, stderr io.Writer, err error) int {
	if g.json {
		stderr.Write(engine.ErrorEnvelope(err))
		io.WriteString(stderr, "\n")
	} else {
		ae := apierr.As(err)
		fmt.Fprintf(stderr, "kontext: %s (%s)\n", strings.TrimSpace(ae.Message), ae.Code)
	}
	return exitFor(err)
}
