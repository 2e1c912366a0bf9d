package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

func runDriftCmd(ctx context.Context, g *factory, args []string) int {
	stdout, stderr := g.io.Out, g.io.ErrOut
	fs := flags("drift", stderr)
	base := fs.String("base", "", "base revision (default: merge base with origin/HEAD, origin/main, the upstream…)")
	head := fs.String("head", "", "head revision (default: HEAD plus the working tree)")
	var kinds multi
	fs.Var(&kinds, "kind", "only this kind (repeatable)")
	failOn := fs.Bool("fail", false, "exit 3 when an entry drifted or no base could be found")
	if _, err := parseInterleaved(fs, args); err != nil {
		return exitUsage
	}
	d, err := read(ctx, g, (*engine.Engine).Drift, &api.DriftInput{Base: *base, Head: *head, Kinds: kinds})
	if err != nil {
		return fail(g, stderr, err)
	}
	code := emit(g, stdout, d, func(w io.Writer) { printDrift(w, d) })
	if code == exitOK && *failOn && (len(d.Entries) > 0 || d.BaseSource == "fallback-none") {
		return exitFound
	}
	return code
}

func printDrift(w io.Writer, d *api.DriftResult) {
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
	if len(d.Entries) == 0 {
		fmt.Fprintln(w, "no entry drifted")
		return
	}
	for _, e := range d.Entries {
		fmt.Fprintf(w, "\n%s  %s (%s)\n", e.ID, e.Title, e.Kind)
		fmt.Fprintf(w, "  changed: %s\n", strings.Join(e.Changed, ", "))
		for _, c := range e.Commits {
			fmt.Fprintf(w, "  %s %s\n", shortSHA(c.SHA), c.Subject)
		}
		if e.Verification != nil {
			fmt.Fprintf(w, "  last look: %s %s", e.Verification.Kind, e.Verification.At)
			if e.Verification.By != nil {
				fmt.Fprintf(w, " by %s", *e.Verification.By)
			}
			fmt.Fprintln(w)
		} else {
			fmt.Fprintln(w, "  never confirmed")
		}
	}
	fmt.Fprintf(w, "\n%d drifted — review them, then kontext confirm <id>\n", len(d.Entries))
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func runChangedCmd(ctx context.Context, g *factory, args []string) int {
	stdout, stderr := g.io.Out, g.io.ErrOut
	fs := flags("changed", stderr)
	var kinds multi
	fs.Var(&kinds, "kind", "only this kind (repeatable)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 2 {
		return usageErr(g, stderr, "usage: kontext changed <base> <head>")
	}
	r, err := read(ctx, g, (*engine.Engine).ChangedBetween, &api.ChangedInput{Base: pos[0], Head: pos[1], Kinds: kinds})
	if err != nil {
		return fail(g, stderr, err)
	}
	return emit(g, stdout, r, func(w io.Writer) {
		if len(r.Changes) == 0 {
			fmt.Fprintln(w, "no entry changed")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range r.Changes {
			note := ""
			if len(c.SupersededBy) > 0 {
				note = "by " + strings.Join(c.SupersededBy, ", ")
			}
			if c.Removed {
				note = "removed"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Change, c.Kind, c.ID, c.Title, note)
		}
		tw.Flush()
	})
}
