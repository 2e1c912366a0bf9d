package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/drafts"
	"github.com/kontext/kontext/internal/table"
)

func exitForEnvelope(out []byte) int {
	var env struct {
		OK    bool `json:"ok"`
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(out, &env) != nil {
		return exitFailed
	}
	if env.OK {
		return exitOK
	}
	return exitFor(&apierr.Error{Code: env.Error.Code})
}

// call runs one operation for a human command and returns its result.

// emit prints res as JSON under --json (filtered by --jq), else calls
// text, keeping stream integrity either way.
// text gets the *out as its writer (w.(*out)) for colour and width.
func emit(g *factory, stdout io.Writer, res any, text func(w io.Writer)) int {
	o := newOut(stdout, g)
	if g.json {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return exitFailed
		}
		if g.jq != "" {
			if err := runJQ(o, g.jq, buf.Bytes()); err != nil && o.err == nil {
				return fail(g, g.io.ErrOut, err)
			}
			return o.finish(g.io.ErrOut, exitOK, 0)
		}
		o.Write(buf.Bytes())
		return o.finish(g.io.ErrOut, exitOK, bytes.Count(buf.Bytes(), []byte("\n")))
	}
	o.human = newNeutraliser()
	text(o)
	o.flush()
	return o.finish(g.io.ErrOut, exitOK, 0)
}

func usageErr(g *factory, stderr io.Writer, format string, a ...any) int {
	return fail(g, stderr, apierr.Invalid(format, a...))
}

func runStatusCmd(ctx context.Context, g *factory, args []string) int {
	stdout, stderr := g.io.Out, g.io.ErrOut
	s, err := g.status(ctx)
	if err != nil {
		return fail(g, stderr, err)
	}
	return emit(g, stdout, s, func(w io.Writer) {
		rev := "(no commits)"
		if s.Revision != nil {
			rev = (*s.Revision)[:12]
		}
		src := s.ConfigSource.Kind
		if s.ConfigSource.Path != nil {
			src += " " + *s.ConfigSource.Path
		}
		fmt.Fprintf(w, "kontext %s — %s at %s\nstorage  %s\nconfig   %s\n\n", s.Version, s.Root, rev, s.Storage, src)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, k := range []string{"decision", "convention", "learning", "incident", "architecture"} {
			var parts []string
			for _, st := range sortedKeys(s.Counts[k]) {
				parts = append(parts, fmt.Sprintf("%d %s", s.Counts[k][st], st))
			}
			if len(parts) > 0 {
				fmt.Fprintf(tw, "%s\t%s\n", k, strings.Join(parts, ", "))
			}
		}
		tw.Flush()
		if len(s.ReviewDue) > 0 {
			fmt.Fprintf(w, "\nreview due: %s\n", strings.Join(s.ReviewDue, ", "))
		}
		if s.Diagnostics > 0 {
			history := false
			if l, err := read(ctx, g, (*engine.Engine).List, &api.ListInput{Limit: intp(1), History: &history}); err == nil {
				if c := diagnosticCounts(l.Diagnostics); c != "" {
					fmt.Fprintf(w, "\n%s — see %s\n", c, ciCommandFor(l.Diagnostics))
				}
			}
		}
		printAdoptionHint(w, s)
		printIncomplete(w, s.IncompleteOperations)
	})
}

// printIncomplete names each unfinished write and how to finish it: the
// same command again (or the same API request) resumes its stored plan.
func printIncomplete(w io.Writer, ops []api.IncompleteOperation) {
	if len(ops) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d unfinished write(s) — a process stopped after planning; nothing is lost:\n", len(ops))
	for _, op := range ops {
		since := ""
		if op.Since != nil {
			since = " since " + *op.Since
		}
		if strings.HasPrefix(op.Command, "kontext ") {
			fmt.Fprintf(w, "  %s (%s%s): to finish it, run again: %s\n", op.OperationID, op.Operation, since, op.Command)
		} else {
			fmt.Fprintf(w, "  %s (%s%s): to finish it, send %s again with operation_id %q\n", op.OperationID, op.Operation, since, op.Command, op.OperationID)
		}
	}
}

func runSetupCmd(g *factory, fs *pflag.FlagSet) runFunc {
	setupInput := setupFlags(fs)
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		input, err := setupInput(args, stderr)
		if err != nil {
			return exitUsage
		}
		s, err := call(ctx, g, drafts.Setup, input)
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, s, func(w io.Writer) { printSetup(w, s) })
	}
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }
func (m *multi) Type() string       { return "string" }

func runListCmd(g *factory, fs *pflag.FlagSet) runFunc {
	var kinds, tags multi
	fs.Var(&kinds, "kind", "only this kind (repeatable)")
	fs.Var(&tags, "tag", "only entries with this tag (repeatable)")
	all := fs.Bool("all", false, "include superseded, deprecated and rejected entries")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		var entries []*api.Entry
		var diags []api.Diagnostic
		offset := 0
		// The table shows no history-derived field: only --json/--jq read the
		// commit index.
		history := g.json || g.jq != ""
		for {
			l, err := read(ctx, g, (*engine.Engine).List, &api.ListInput{Kinds: kinds, Tags: tags, ActiveOnly: !*all, Limit: intp(500), Offset: offset, History: &history})
			if err != nil {
				return fail(g, stderr, err)
			}
			entries = append(entries, l.Entries...)
			diags = l.Diagnostics
			if l.NextOffset == nil {
				break
			}
			offset = *l.NextOffset
		}
		// The table says how many inactive entries it left out.
		hidden := 0
		if !*all && !g.json && g.jq == "" {
			off := false
			l, err := read(ctx, g, (*engine.Engine).List, &api.ListInput{Kinds: kinds, Tags: tags, Limit: intp(1), History: &off})
			if err != nil {
				return fail(g, stderr, err)
			}
			hidden = l.Total - len(entries)
		}
		return emit(g, stdout, map[string]any{"entries": entries, "total": len(entries)}, func(w io.Writer) {
			t := newTable(w.(*out), "ID", "KIND", "STATUS", "TITLE", "")
			t.IDCol, t.FlexCol, t.Colors[0], t.Colors[4] = 0, 3, "36", "31"
			t.Short = idShortener(ctx, g)
			t.ColorOf = func(col int, cell string) string {
				if col == 2 {
					return statusColor(&cell)
				}
				return ""
			}
			for _, e := range entries {
				flag := ""
				if e.ReviewDue {
					flag = "review due"
				}
				t.Row(e.ID, e.Kind, deref(e.Status, "-"), e.Title, flag)
			}
			t.Render()
			fmt.Fprintf(w, "\n%d entries", len(entries))
			if len(entries) == 0 && hidden == 0 {
				defer printAdoptionHintOf(ctx, g, stderr)
			}
			if hidden > 0 {
				fmt.Fprintf(w, "; %d inactive (superseded, deprecated, rejected) not shown: kontext list --all", hidden)
			}
			if c := diagnosticCounts(diags); c != "" {
				fmt.Fprintf(w, "; %s: %s", c, ciCommandFor(diags))
			}
			fmt.Fprintln(w)
		})
	}
}

func runShowCmd(ctx context.Context, g *factory, args []string) int {
	stdout, stderr := g.io.Out, g.io.ErrOut
	if len(args) != 1 {
		return usageErr(g, stderr, "usage: kontext show <id>")
	}
	ref, err := entryRef(g, args[0])
	if err != nil {
		return fail(g, stderr, err)
	}
	e, err := read(ctx, g, (*engine.Engine).Get, &api.GetInput{ID: ref})
	if err != nil {
		return fail(g, stderr, err)
	}
	return emit(g, stdout, e, func(w io.Writer) {
		fmt.Fprintf(w, "%s\n%s\n", e.Title, strings.Repeat("=", min(len(e.Title), 72)))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "id\t%s\nkind\t%s\nstatus\t%s\nfile\t%s (%s)\n", e.ID, e.Kind, deref(e.Status, "-"), e.File, e.Publication.State)
		if e.Date != nil {
			fmt.Fprintf(tw, "date\t%s\n", *e.Date)
		}
		if len(e.Paths) > 0 {
			fmt.Fprintf(tw, "paths\t%s\n", strings.Join(e.Paths, " "))
		}
		if len(e.Tags) > 0 {
			fmt.Fprintf(tw, "tags\t%s\n", strings.Join(e.Tags, ", "))
		}
		if len(e.Supersedes) > 0 {
			fmt.Fprintf(tw, "supersedes\t%s\n", strings.Join(e.Supersedes, ", "))
		}
		if len(e.SupersededBy) > 0 {
			fmt.Fprintf(tw, "superseded by\t%s\n", strings.Join(e.SupersededBy, ", "))
		}
		if e.ReviewBy != nil {
			due := ""
			if e.ReviewDue {
				due = " (review due)"
			}
			fmt.Fprintf(tw, "review by\t%s%s\n", *e.ReviewBy, due)
		}
		tw.Flush()
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(e.Body))
	})
}

func runSearchCmd(g *factory, fs *pflag.FlagSet) runFunc {
	limit := fs.Int("limit", 20, "at most this many hits")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		pos := args
		if len(pos) == 0 {
			return usageErr(g, stderr, "usage: kontext search <query>")
		}
		s, err := read(ctx, g, (*engine.Engine).Search, &api.SearchInput{Query: strings.Join(pos, " "), Limit: limit})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, s, func(w io.Writer) {
			if len(s.Entries) == 0 {
				fmt.Fprintln(w, "no entries match")
				return
			}
			t := newTable(w.(*out), "SCORE", "ID", "KIND", "STATUS", "TITLE", "")
			t.IDCol, t.FlexCol, t.Colors[1], t.Colors[5] = 1, 4, "36", "31"
			t.Short = idShortener(ctx, g)
			for _, e := range s.Entries {
				flag := ""
				if e.ReviewDue {
					flag = "review due"
				}
				t.Row(fmt.Sprintf("%.3f", *e.Score), e.ID, e.Kind, deref(e.Status, "-"), e.Title, flag)
			}
			t.Render()
		})
	}
}

func runGoverningCmd(g *factory, fs *pflag.FlagSet) runFunc {
	minSpec := fs.Int("min-specificity", 0, "drop matches less specific than N")
	client := fs.String("client", "", "what this coding agent loads for the paths: "+strings.Join(clientNames(), ", "))
	cwdFlag := fs.String("cwd", "", "with --client: the directory the agent starts in (default: the current directory)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		paths := args
		var err error
		if len(paths) == 0 {
			return usageErr(g, stderr, "usage: kontext governing <path>… [--min-specificity N] [--client C [--cwd DIR]]")
		}
		if msg := badClient(*client); msg != "" {
			return usageErr(g, stderr, "%s", msg)
		}
		if *cwdFlag != "" && *client == "" {
			return usageErr(g, stderr, "--cwd is the start directory of a client: pass --client too (%s)", strings.Join(clientNames(), ", "))
		}
		if paths, err = repoArgs(g, paths); err != nil {
			return fail(g, stderr, err)
		}
		cwd := ""
		if *client != "" {
			if cwd, err = clientCwd(g, *cwdFlag); err != nil {
				return fail(g, stderr, err)
			}
		}
		// The table shows no history-derived field: only --json/--jq (the
		// stable result object) reads the commit index.
		history := g.json || g.jq != ""
		r, err := read(ctx, g, (*engine.Engine).Governing, &api.GoverningInput{Paths: paths, MinSpecificity: *minSpec, History: &history, Client: *client, Cwd: cwd})
		if err != nil {
			return fail(g, stderr, err)
		}
		if r.Client != nil {
			return emit(g, stdout, r, func(w io.Writer) { clientTable(w.(*out), r) })
		}
		code := emit(g, stdout, r, func(w io.Writer) {
			var ids map[string]string
			o := w.(*out)
			style := table.Style{Width: o.width, Paint: o.paint, Short: func() map[string]string { // read once for every path's table
				if ids == nil {
					ids = idShortener(ctx, g)()
				}
				return ids
			}}
			table.Governing(w, style, paths, governedRows(r), boundaryRows(r))
		})
		if code == exitOK && !g.json && g.jq == "" && len(r.Entries) == 0 {
			// "No entry governs" is only true when kontext reads the
			// repository's knowledge and its entries have paths: an ADR log
			// not set up yet, or records without paths, get a hint naming
			// the command, never a silent empty answer. (After the listing
			// is flushed, so the two never run into one line.)
			printEmptyHint(ctx, g, stderr)
		}
		return code
	}
}

// governedRows are a governing answer's entries as the listing shows them.
func governedRows(r *api.GoverningResult) []table.Governed {
	out := make([]table.Governed, len(r.Entries))
	for i, e := range r.Entries {
		ms := make([]table.Match, len(e.Matches))
		for k, m := range e.Matches {
			ms[k] = table.Match{Path: m.Path, Rule: m.Rule, Specificity: m.Specificity}
		}
		out[i] = table.Governed{Kind: e.Kind, ID: e.ID, Title: e.Title, Status: e.Status, Authority: e.Authority, Matches: ms}
	}
	return out
}

func boundaryRows(r *api.GoverningResult) []table.Boundary {
	out := make([]table.Boundary, len(r.Boundaries))
	for i, b := range r.Boundaries {
		out[i] = table.Boundary{Path: b.Path, Repository: b.Repository, RepositoryPath: b.RepositoryPath}
	}
	return out
}

func deref(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// statusColor marks inactive entries grey and proposals yellow.
func statusColor(status *string) string {
	switch deref(status, "") {
	case "superseded", "deprecated", "rejected":
		return "90"
	case "proposed":
		return "33"
	}
	return "39"
}
