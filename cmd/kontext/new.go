package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/drafts"
)

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// newOperationID is a fresh operation_id for one CLI invocation.
func newOperationID(cmd string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "cli-" + cmd + "-" + hex.EncodeToString(b)
}

// readBody takes the body from --body, else from $EDITOR at a terminal,
// else from stdin.
func readBody(flagBody string, set bool, stdout io.Writer, stdin io.Reader) (string, error) {
	if set {
		return flagBody, nil
	}
	if f, ok := stdin.(*os.File); ok && isTerminal(f) && isTerminal(stdout) {
		ed := os.Getenv("VISUAL")
		if ed == "" {
			ed = os.Getenv("EDITOR")
		}
		if ed == "" {
			return "", nil
		}
		dir, err := os.MkdirTemp("", "kontext-new-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		p := filepath.Join(dir, "BODY.md")
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			return "", err
		}
		cmd := exec.Command("sh", "-c", ed+` "$1"`, "sh", p)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("the editor failed: %w", err)
		}
		data, err := os.ReadFile(p)
		return string(data), err
	}
	if stdin == nil {
		return "", nil
	}
	data, err := io.ReadAll(io.LimitReader(stdin, 2<<20))
	return string(data), err
}

// stageEntryCmd is the shared part of new and supersede.
func stageEntryCmd(ctx context.Context, g *factory, name string, args []string, stdout, stderr io.Writer, stdin io.Reader, supersede bool) int {
	fs := flags(name, stderr)
	var paths, tags, supersedes multiFlag
	fs.Var(&paths, "path", "a governed path pattern (repeatable)")
	fs.Var(&tags, "tag", "a tag (repeatable)")
	if !supersede {
		fs.Var(&supersedes, "supersedes", "an entry the new one replaces (repeatable)")
	}
	summary := fs.String("summary", "", "one line for lists and briefs")
	body := fs.String("body", "", "the body (default: $EDITOR at a terminal, else stdin)")
	kind := fs.String("kind", "", "the kind (supersede: default the old entry's kind)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage
	}
	bodySet := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "body" {
			bodySet = true
		}
	})
	entryIn := &api.StageEntry{Paths: paths, Tags: tags, Summary: *summary}
	if supersede {
		if len(pos) != 2 {
			return usageErr(g, stderr, "usage: kontext supersede <id> \"<new title>\" [--path P]… [--tag T]… [--summary S] [--body B]")
		}
		oe, err := read(ctx, g, (*engine.Engine).Get, &api.GetInput{ID: pos[0]})
		if err != nil {
			return fail(g, stderr, err)
		}
		k := oe.Kind
		if *kind != "" {
			k = *kind
		}
		entryIn.Kind, entryIn.Title, entryIn.Supersedes = k, pos[1], []string{oe.ID}
		if len(paths) == 0 {
			entryIn.Paths = oe.Paths
		}
	} else {
		if len(pos) != 2 {
			return usageErr(g, stderr, "usage: kontext new <kind> \"<title>\" [--path P]… [--tag T]… [--supersedes ID]… [--summary S] [--body B]")
		}
		entryIn.Kind, entryIn.Title, entryIn.Supersedes = pos[0], pos[1], supersedes
	}
	b, err := readBody(*body, bodySet, stdout, stdin)
	if err != nil {
		return fail(g, stderr, err)
	}
	if strings.TrimSpace(b) != "" {
		entryIn.Body = b
	}
	res, err := call(ctx, g, drafts.Stage, &api.StageInput{OperationID: newOperationID(name), Entry: entryIn})
	if err != nil {
		return fail(g, stderr, err)
	}
	return emitStaged(g, stdout, res)
}

func emitStaged(g *factory, stdout io.Writer, res any) int {
	return emit(g, stdout, res, func(w io.Writer) {
		if r, ok := res.(*api.StageResult); ok {
			if r.Repository != "" {
				fmt.Fprintf(w, "staged %s in the nested repository %s (%s)\n", r.Path, r.Repository, r.Entry.ID)
			} else {
				fmt.Fprintf(w, "staged %s (%s)\n", r.Path, r.Entry.ID)
			}
			for _, n := range r.Notes {
				fmt.Fprintln(w, "  "+n)
			}
		}
		fmt.Fprintln(w, "staged, not committed: review and commit as usual")
	})
}

// runNewCmd is `kontext new <kind> "<title>" [--path P]… [--tag T]…
// [--supersedes ID]… [--summary S] [--body B]`.
func runNewCmd(ctx context.Context, g *factory, args []string) int {
	stdout, stderr, stdin := g.io.Out, g.io.ErrOut, g.io.In
	return stageEntryCmd(ctx, g, "new", args, stdout, stderr, stdin, false)
}

// runSupersedeCmd is `kontext supersede <id> "<new title>" [--path P]…`:
// stages a new entry that supersedes id.
func runSupersedeCmd(ctx context.Context, g *factory, args []string) int {
	stdout, stderr, stdin := g.io.Out, g.io.ErrOut, g.io.In
	return stageEntryCmd(ctx, g, "supersede", args, stdout, stderr, stdin, true)
}

// runRetireCmd is `kontext retire <id> --reason "…"`: the entry's current
// revision is read first, then it is retired (status deprecated).
func runRetireCmd(ctx context.Context, g *factory, args []string) int {
	stdout, stderr := g.io.Out, g.io.ErrOut
	fs := flags("retire", stderr)
	reason := fs.String("reason", "", "why the entry no longer applies")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 || strings.TrimSpace(*reason) == "" {
		return usageErr(g, stderr, "usage: kontext retire <id> --reason \"…\"")
	}
	en, err := read(ctx, g, (*engine.Engine).Get, &api.GetInput{ID: pos[0]})
	if err != nil {
		return fail(g, stderr, err)
	}
	res, err := call(ctx, g, drafts.Retire, &api.RetireInput{OperationID: newOperationID("retire"),
		EntryID: en.ID, EntryRevision: en.Revision, Reason: *reason})
	if err != nil {
		return fail(g, stderr, err)
	}
	return emitStaged(g, stdout, res)
}
