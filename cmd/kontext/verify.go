package main

import (
	"bufio"
	"context"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/drafts"
	"github.com/kontext/kontext/engine/worktree"
	"github.com/kontext/kontext/native"
)

// exitVerifyFailed is the exit code of `kontext verify` when the command
// failed or timed out.
const exitVerifyFailed = 3

// runVerifyCmd is `kontext verify <id> [--because "…"]`: runs the entry's
// pinned verify command and stages a verify ledger line.
func runVerifyCmd(g *factory, fs *pflag.FlagSet) runFunc {
	because := fs.String("because", "", "why it was run (one line, kept in the ledger)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		ids := args
		if len(ids) != 1 {
			return usageErr(g, stderr, "usage: kontext verify <id> [--because \"…\"]")
		}
		g.prog.state("running the verify command of " + ids[0])
		r, err := call(ctx, g, drafts.Verify, &api.VerifyInput{ID: ids[0], Because: *because})
		if err != nil {
			if ae := apierr.As(err); ae.Code == apierr.UntrustedVerify && !g.json {
				fmt.Fprintf(stderr, "kontext: the verify command of %v is not pinned, so it was not run:\n\n    %v\n\n", ae.Extra["id"], ae.Extra["command"])
				fmt.Fprintf(stderr, "Read it; if you trust it, pin it from a terminal with: %v\n", ae.Extra["hint"])
				return exitFor(err)
			}
			return fail(g, stderr, err)
		}
		g.prog.fileDone(r.Path, "")
		code := emit(g, stdout, r, func(w io.Writer) {
			switch {
			case r.TimedOut:
				fmt.Fprintf(w, "TIMED OUT %s: %s (killed; no exit code)\n", r.ID, r.Command)
			case r.Passed:
				fmt.Fprintf(w, "passed %s: %s (exit code 0)\n", r.ID, r.Command)
			default:
				ec := "none"
				if r.ExitCode != nil {
					ec = fmt.Sprint(*r.ExitCode)
				}
				fmt.Fprintf(w, "FAILED %s: %s (exit code %s)\n", r.ID, r.Command, ec)
			}
			if r.Dirty {
				fmt.Fprintf(w, "ran with uncommitted changes: %s\n", strings.Join(r.DirtyPaths, ", "))
			}
			if t := strings.TrimRight(r.OutputTail, "\n"); t != "" {
				fmt.Fprintf(w, "\noutput (last 2 KiB):\n%s\n\n", t)
			}
			fmt.Fprintf(w, "ledger line staged in %s, not committed\n", r.Path)
		})
		if code == exitOK && !r.Passed {
			return exitVerifyFailed
		}
		return code
	}
}

// stdinTerminal reports whether stdin is an interactive terminal.
var stdinTerminal = func(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runTrustCmd is `kontext trust --verify <id>`: from a terminal only, it
// shows the entry's exact verify command and, when the person answers y,
// pins it for this repository in the user's trust file.
func runTrustCmd(g *factory, fs *pflag.FlagSet) runFunc {
	id := fs.String("verify", "", "the entry whose verify command to pin")
	return func(ctx context.Context, args []string) int {
		stdout, stderr, stdin := g.io.Out, g.io.ErrOut, g.io.In
		rest := args
		if *id == "" || len(rest) > 0 {
			return usageErr(g, stderr, "usage: kontext trust --verify <id>")
		}
		if !stdinTerminal(stdin) {
			fmt.Fprintln(stderr, "kontext: trust asks a person: run `kontext trust --verify "+*id+"` from a terminal (stdin is not one); nothing was pinned")
			return exitUsage
		}
		en, err := read(ctx, g, (*engine.Engine).Get, &api.GetInput{ID: *id})
		if err != nil {
			return fail(g, stderr, err)
		}
		pin, err := call(ctx, g, worktree.VerifyPin, &api.VerifyPinInput{ID: en.ID})
		if err != nil {
			return fail(g, stderr, err)
		}
		if pin.Command == nil {
			return fail(g, stderr, apierr.Invalid("%s has no verify command; nothing to pin", en.ID))
		}
		st, err := g.status(ctx)
		if err != nil {
			return fail(g, stderr, err)
		}
		root := st.Root
		command := *pin.Command
		fmt.Fprintf(stdout, "%s (%s) runs this command with `sh -c` from %s:\n\n    %s\n\nsha256 %s\n\n", en.ID, en.File, root, command, *pin.CommandSHA256)
		fmt.Fprintf(stdout, "Pin this command for %s in %s? [y/N] ", en.ID, root)
		answer, _ := bufio.NewReader(stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(stdout, "not pinned")
			return exitOK
		}
		path, err := native.PinVerify(root, en.ID, command, time.Now())
		if err != nil {
			return fail(g, stderr, apierr.Wrap(apierr.OperationFailed, err, "pinning the command"))
		}
		fmt.Fprintf(stdout, "pinned in %s; run it with: kontext verify %s\n", path, en.ID)
		return exitOK
	}
}
