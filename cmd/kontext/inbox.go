package main

import (
	"context"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"os"
	"sort"
	"strings"

	"golang.org/x/term"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/drafts"
)

// runCaptureCmd is `kontext capture --kind K --title T [--path P]… [--tag
// T]… [--source S] [--body B]`: keep an insight as a local inbox candidate
// (redacted). The body comes from --body, else from stdin when it is not a
// terminal.
func runCaptureCmd(g *factory, fs *pflag.FlagSet) runFunc {
	kind := fs.String("kind", "", "decision (adr), convention, learning, incident or architecture")
	title := fs.String("title", "", "one-line title (at most 200 characters)")
	body := fs.String("body", "", "Markdown body (default: stdin when it is not a terminal)")
	source := fs.String("source", "", "where the insight came from")
	var paths, tags multi
	fs.Var(&paths, "path", "a glob of the source paths it governs (repeatable)")
	fs.Var(&tags, "tag", "a tag (repeatable)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr, stdin := g.io.Out, g.io.ErrOut, g.io.In
		rest := args
		if len(rest) > 0 || *kind == "" || *title == "" {
			return usageErr(g, stderr, "usage: kontext capture --kind K --title T [--path P]… [--tag T]… [--source S] [--body B | < body.md]")
		}
		text := *body
		if text == "" && stdin != nil && !stdinIsTerminal(stdin) {
			data, err := io.ReadAll(io.LimitReader(stdin, 1<<20))
			if err != nil {
				return fail(g, stderr, err)
			}
			text = string(data)
		}
		res, err := call(ctx, g, drafts.Capture, &api.CaptureInput{Source: *source,
			Entry: &api.CaptureEntry{Kind: *kind, Title: *title, Body: text, Paths: paths, Tags: tags}})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, res, func(w io.Writer) { printCapture(w, res) })
	}
}

func stdinIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func printCapture(w io.Writer, res any) {
	r, ok := res.(*api.CaptureResult)
	if !ok {
		return
	}
	c := r.Candidate
	fmt.Fprintf(w, "captured %s (%s) %s\n", c.ID, c.Kind, c.Entry.Title)
	if len(r.Redactions) > 0 {
		var parts []string
		for _, k := range sortedKeys(r.Redactions) {
			parts = append(parts, fmt.Sprintf("%d %s", r.Redactions[k], k))
		}
		fmt.Fprintf(w, "redacted: %s\n", strings.Join(parts, ", "))
	}
	for _, ev := range r.Evidence {
		fmt.Fprintf(w, "evidence %s: %s\n", ev.Ref, ev.Verification)
	}
	for _, rel := range r.RelatedEntries {
		fmt.Fprintf(w, "related: %s  %s (%s)\n", rel.ID, rel.Title, rel.Reason)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintln(w, "kept in this worktree's inbox (local, not staged): kontext inbox")
}

// runInboxCmd is `kontext inbox [--state S]`: the local candidates.
func runInboxCmd(g *factory, fs *pflag.FlagSet) runFunc {
	state := fs.String("state", "pending", "pending, dismissed, promoted or all")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		rest := args
		if len(rest) > 0 {
			return usageErr(g, stderr, "usage: kontext inbox [--state pending|dismissed|promoted|all]")
		}
		l, err := call(ctx, g, drafts.InboxList, &api.InboxListInput{State: *state})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, l, func(w io.Writer) {
			o := w.(*out)
			if len(l.Candidates) == 0 {
				fmt.Fprintf(w, "no %s candidates\n", *state)
				return
			}
			t := newTable(o, "ID", "KIND", "TITLE", "STATE", "CREATED")
			t.FlexCol, t.Colors[0] = 2, "36"
			for _, c := range l.Candidates {
				t.Row(c.ID, c.Kind, c.Entry.Title, c.State, c.CreatedAt)
			}
			t.Render()
			fmt.Fprintf(w, "\n%d candidates\n", len(l.Candidates))
		})
	}
}

// runDropCmd is `kontext drop <candidate> [--reason R]`.
func runDropCmd(g *factory, fs *pflag.FlagSet) runFunc {
	reason := fs.String("reason", "", "why it is dismissed (one line)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		ids := args
		if len(ids) != 1 {
			return usageErr(g, stderr, "usage: kontext drop <candidate> [--reason \"…\"]")
		}
		c, err := call(ctx, g, drafts.InboxDrop, &api.InboxDropInput{ID: ids[0], Reason: *reason})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, c, func(w io.Writer) {
			fmt.Fprintf(w, "dismissed %s (%s) %s\n", c.ID, c.Kind, c.Entry.Title)
		})
	}
}

// runChallengeCmd is `kontext challenge <id> --because "…"`: an inbox
// candidate saying an entry may no longer hold.
func runChallengeCmd(g *factory, fs *pflag.FlagSet) runFunc {
	because := fs.String("because", "", "why the entry may no longer hold")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		ids := args
		if len(ids) != 1 || strings.TrimSpace(*because) == "" {
			return usageErr(g, stderr, "usage: kontext challenge <id> --because \"…\"")
		}
		r, err := call(ctx, g, drafts.Challenge, &api.InboxChallengeInput{ID: ids[0], Because: *because})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, r, func(w io.Writer) {
			against, _ := r.Candidate.Extra["against"].(string)
			fmt.Fprintf(w, "challenged %s as %s\n", against, r.Candidate.ID)
			keys := make([]string, 0, len(r.Redactions))
			for k := range r.Redactions {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(w, "redacted: %d %s\n", r.Redactions[k], k)
			}
			for _, n := range r.Notes {
				fmt.Fprintf(w, "note: %s\n", n)
			}
		})
	}
}
