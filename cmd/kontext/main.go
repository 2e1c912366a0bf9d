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
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
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
	// code is the exit code of the command that ran.
	code int
	root *cobra.Command // the command tree (root.go)
	// failure is the error fail() reported (the progress stream's error event).
	failure *apierr.Error
	prog    *reporter

	io      IOStreams
	columns string // $COLUMNS
	eng     *engine.Engine
	engErr  error
	// argv is the invocation's arguments as given: a write's stored plan
	// names them as the command that resumes it (opid.go).
	argv []string
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

// run is one invocation in this process: the command tree (root.go) over
// the streams, the exit code.
func run(ctx context.Context, args []string, streams IOStreams) int {
	g := &factory{dir: ".", color: "auto", io: streams, columns: os.Getenv("COLUMNS"), argv: append([]string(nil), args...)}
	args, jsonWanted := prepare(args)
	root := newRoot(g)
	if len(args) > 0 && strings.HasPrefix(args[0], cobra.ShellCompRequestCmd) {
		withTools(root) // completions describe the commands
	}
	root.SetArgs(args)
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	if _, err := root.ExecuteContextC(ctx); err != nil {
		return g.report(ctx, err, jsonWanted)
	}
	return g.code
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
		// A person reads this line: the message in CLI words (a command,
		// not an API operation); the envelope above keeps the API's.
		ae := apierr.As(inCLIWords(err))
		fmt.Fprintf(stderr, "kontext: %s (%s)\n", neutral(strings.TrimSpace(ae.Message)), ae.Code)
	}
	return exitFor(err)
}
