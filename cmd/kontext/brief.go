package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"strings"
	"time"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/internal/brief"
	"github.com/kontext/kontext/internal/gogit"
)

// exitOverBudget: the brief exceeds its budget with nothing left to drop.
const exitOverBudget = 10

// runBriefCmd is `kontext brief [<path>…] [--diff <base>] [--budget-lines N]
// [--architecture] [--json]`: the entries.governing result for the paths
// (given, changed since --diff <base>, or uncommitted), assembled by
// internal/brief.
func runBriefCmd(ctx context.Context, g *globals, args []string, stdout, stderr io.Writer, _ io.Reader) int {
	fs := flags("brief", stderr)
	diff := fs.String("diff", "", "brief the files changed since this revision (its merge base with HEAD) plus uncommitted ones")
	budget := fs.Int("budget-lines", 0, "at most this many lines; lower-authority content is dropped first (default: [brief] budget_lines of the config, 300)")
	arch := fs.Bool("architecture", false, "include the ARCHITECTURE section")
	fs.BoolVar(&g.json, "json", g.json, "print the brief as JSON (kontext.brief/v1)")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage
	}
	budgetSet := false
	fs.Visit(func(f *flag.Flag) { budgetSet = budgetSet || f.Name == "budget-lines" })
	if budgetSet && *budget < 1 {
		return usageErr(g, stderr, "--budget-lines must be at least 1")
	}
	if *diff != "" && len(paths) > 0 {
		return usageErr(g, stderr, "pass paths or --diff <base>, not both")
	}
	if strings.HasPrefix(*diff, "-") {
		return usageErr(g, stderr, "--diff %q starts with '-'; pass a git revision such as origin/main", *diff)
	}
	if len(paths) > 0 {
		if paths, err = repoArgs(g, paths); err != nil {
			return fail(g, stderr, err)
		}
	}

	res, err := call(ctx, g, "status", map[string]any{})
	if err != nil {
		return fail(g, stderr, err)
	}
	st := res.(*engine.StatusResult)
	if !budgetSet {
		*budget = st.BriefBudgetLines
	}
	repo := brief.Repository{Root: st.Root, PathsFrom: "given"}
	if st.Revision != nil {
		repo.Head = *st.Revision
	}

	git, err := gogit.Open(st.Root)
	switch {
	case errors.Is(err, gogit.ErrNoRepository):
		git = nil
		if *diff != "" {
			return usageErr(g, stderr, "--diff needs a git repository; %s is not in one", st.Root)
		}
	case err != nil:
		return fail(g, stderr, err)
	}
	if git != nil {
		if repo.Branch, err = git.Branch(); err != nil {
			return fail(g, stderr, err)
		}
		dirty, err := git.Uncommitted(ctx)
		if err != nil {
			return fail(g, stderr, err)
		}
		repo.Dirty = len(dirty) > 0
		switch {
		case *diff != "":
			if paths, err = git.ChangedSince(ctx, *diff); err != nil {
				return fail(g, stderr, err)
			}
			repo.PathsFrom = "changed since " + *diff
		case len(paths) == 0:
			paths = dirty
			repo.PathsFrom = "uncommitted"
		}
	}
	for i, p := range paths {
		paths[i] = strings.TrimSuffix(p, "/") // an untracked nested repository
	}
	repo.Paths = paths

	var entries []*engine.Entry
	if len(paths) > 0 {
		res, err := call(ctx, g, "entries.governing", map[string]any{"paths": paths})
		if err != nil {
			return fail(g, stderr, err)
		}
		entries = res.(*engine.GoverningResult).Entries
	}
	now, err := briefNow()
	if err != nil {
		return fail(g, stderr, err)
	}
	b := brief.Assemble(brief.Input{Repository: repo, Entries: entries, Budget: *budget, Architecture: *arch, GeneratedAt: now})
	code := emit(g, stdout, b, func(w io.Writer) { io.WriteString(w, b.Text()) })
	if code == exitOK && b.OverBudget() {
		return exitOverBudget
	}
	return code
}

// briefNow is generated_at: KONTEXT_NOW (RFC 3339) when set, like the
// engine's clock, else the current time.
func briefNow() (time.Time, error) {
	v := os.Getenv("KONTEXT_NOW")
	if v == "" {
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, apierr.Invalid("KONTEXT_NOW=%q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", v)
	}
	return t.UTC(), nil
}
