package main

import (
	"context"
	"fmt"
	"github.com/kontext/kontext/internal/table"
	"github.com/spf13/pflag"
	"io"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

func runDriftCmd(g *factory, fs *pflag.FlagSet) runFunc {
	base := fs.String("base", "", "base revision (default: merge base with origin/HEAD, origin/main, the upstream…)")
	head := fs.String("head", "", "head revision (default: HEAD plus the working tree)")
	var kinds multi
	fs.Var(&kinds, "kind", "only this kind (repeatable)")
	failOn := fs.Bool("fail", false, "exit 3 when an entry drifted or no base could be found (broad entries never count)")
	broad := fs.Bool("broad", false, broadUsage)
	verbose := fs.Bool("verbose", false, "list every changed file and commit (the text report shows the first 5)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		d, err := read(ctx, g, (*engine.Engine).Drift, &api.DriftInput{Base: *base, Head: *head, Kinds: kinds, Broad: *broad})
		if err != nil {
			return fail(g, stderr, err)
		}
		code := emit(g, stdout, d, func(w io.Writer) { printDrift(w, d, *verbose) })
		narrow := 0 // --fail ignores broad entries, even with --broad
		for _, e := range d.Entries {
			if !e.Broad {
				narrow++
			}
		}
		if code == exitOK && *failOn && (narrow > 0 || d.BaseSource == "fallback-none") {
			return exitFound
		}
		return code
	}
}

// driftShown is how many changed files and commits an entry shows in the
// text report (--verbose or --json: all).
const driftShown = 5

func printDrift(w io.Writer, d *api.DriftResult, verbose bool) {
	base := "(none)"
	if d.Base != nil {
		base = shortSHA(*d.Base)
	}
	head := d.Head
	if head != "working" {
		head = shortSHA(head)
	}
	fmt.Fprintf(w, "drift %s..%s (base: %s)\n", base, head, d.BaseSource)
	if d.Warning != "" {
		fmt.Fprintf(w, "warning: %s\n", d.Warning)
	}
	for _, warning := range d.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	omitted := ""
	if d.BroadOmitted > 0 {
		omitted = fmt.Sprintf("%s (always-on rules) also drifted: not listed, --broad lists them", count(d.BroadOmitted, "broad entry"))
	}
	if len(d.Entries) == 0 {
		fmt.Fprintln(w, "no entry drifted")
		if omitted != "" {
			fmt.Fprintln(w, omitted)
		}
		return
	}
	shortened := false
	width := 0 // lines are cut at the width (ids never: they are the handle)
	if o, ok := w.(*out); ok {
		width = o.width
	}
	line := func(format string, a ...any) {
		s := fmt.Sprintf(format, a...)
		if width > 0 {
			s = table.Cut(s, width)
		}
		fmt.Fprintln(w, s)
	}
	for _, e := range d.Entries {
		fmt.Fprintln(w)
		title := e.Title
		if width > 0 {
			title = table.Cut(title, max(10, width-table.RuneLen(e.ID)-table.RuneLen(e.Kind)-5))
		}
		fmt.Fprintf(w, "%s  %s (%s)\n", e.ID, title, e.Kind)
		files, commits := e.Changed, e.Commits
		if !verbose && len(files) > driftShown {
			files, shortened = files[:driftShown], true
		}
		if !verbose && len(commits) > driftShown {
			commits, shortened = commits[:driftShown], true
		}
		summary := strings.Join(files, ", ")
		if len(files) < len(e.Changed) {
			summary = fmt.Sprintf("%s in %s (first %d: %s)", count(len(e.Changed), "file"), count(len(e.Commits), "commit"), len(files), summary)
		}
		line("  changed: %s", summary)
		for _, c := range commits {
			line("  %s %s", shortSHA(c.SHA), c.Subject)
		}
		if n := len(e.Commits) - len(commits); n > 0 {
			fmt.Fprintf(w, "  … and %s\n", strings.Replace(count(n, "commit"), " ", " more ", 1))
		}
		switch {
		case e.Verification != nil:
			fmt.Fprintf(w, "  last look: %s %s", e.Verification.Kind, e.Verification.At)
			if e.Verification.By != nil {
				fmt.Fprintf(w, " by %s", *e.Verification.By)
			}
			fmt.Fprintln(w)
		case e.LastEdited != nil:
			// Editing the entry is a look at it too: say when and by whom.
			fmt.Fprintf(w, "  last edited %s by %s (%s), never confirmed since\n", day(e.LastEdited.At), e.LastEdited.By, shortSHA(e.LastEdited.SHA))
		default:
			fmt.Fprintln(w, "  never confirmed, not committed yet")
		}
	}
	fmt.Fprintf(w, "\n%s drifted — review them, then kontext confirm <id>\n", count(len(d.Entries), "entry"))
	if omitted != "" {
		fmt.Fprintln(w, omitted)
	}
	if shortened {
		fmt.Fprintln(w, "lists cut at 5: kontext drift --verbose (or --json) shows every file and commit")
	}
}

// count writes n with thousands separators and the noun, plural when n != 1.
func count(n int, noun string) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if n != 1 {
		if strings.HasSuffix(noun, "y") {
			noun = noun[:len(noun)-1] + "ie"
		}
		noun += "s"
	}
	return s + " " + noun
}

// day is the date part of an RFC 3339 time.
func day(at string) string {
	if len(at) >= 10 {
		return at[:10]
	}
	return at
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func runChangedCmd(g *factory, fs *pflag.FlagSet) runFunc {
	var kinds multi
	fs.Var(&kinds, "kind", "only this kind (repeatable)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		pos := args
		if len(pos) != 2 {
			return usageErr(g, stderr, "usage: kontext changed <base> <head>")
		}
		r, err := read(ctx, g, (*engine.Engine).ChangedBetween, &api.ChangedInput{Base: pos[0], Head: pos[1], Kinds: kinds})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, r, func(w io.Writer) {
			for _, warning := range r.Warnings {
				fmt.Fprintf(w, "warning: %s\n", warning)
			}
			if len(r.Changes) == 0 {
				fmt.Fprintln(w, "no entry changed")
				return
			}
			t := headless(w.(*out), 5)
			t.IDCol, t.FlexCol, t.Colors[2] = 2, 3, "36"
			t.Short = idShortener(ctx, g)
			for _, c := range r.Changes {
				note := ""
				if len(c.SupersededBy) > 0 {
					note = "by " + strings.Join(c.SupersededBy, ", ")
				}
				if c.Removed {
					note = "removed"
				}
				t.Row(c.Change, c.Kind, c.ID, c.Title, note)
			}
			t.Render()
		})
	}
}
