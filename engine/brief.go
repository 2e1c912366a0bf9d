package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/brief"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

// runBrief answers context.brief: the entries governing the paths (given,
// changed since diff, or uncommitted) assembled into the kontext.brief/v1
// document, cut to the budget. Over budget is over_budget: true in the
// result; exiting 10 on it is the CLI's rule.
func runBrief(ctx context.Context, e *Engine, in *api.BriefInput) (*api.Brief, error) {
	switch {
	case in.Diff != "" && len(in.Paths) > 0:
		return nil, apierr.Invalid("pass paths or diff, not both")
	case strings.HasPrefix(in.Diff, "-"):
		return nil, jsonin.Errorf("diff", "%q starts with '-'; pass a git revision such as origin/main", in.Diff)
	case in.BudgetLines != nil && (*in.BudgetLines < 1 || *in.BudgetLines > MaxBudgetLines):
		return nil, jsonin.Errorf("budget_lines", "must be between 1 and %d, got %d", MaxBudgetLines, *in.BudgetLines)
	}
	compact := in.View == "compact"
	if in.View != "" && in.View != "full" && !compact {
		return nil, jsonin.Errorf("view", "must be full or compact, got %q", in.View)
	}
	// Pinned: governing below answers this read instead of listing the
	// knowledge base again.
	ctx, err := e.Pin(ctx)
	if err != nil {
		return nil, err
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	budget := st.Cfg.BudgetLines
	if in.BudgetLines != nil {
		budget = *in.BudgetLines
	}
	repo := api.BriefRepository{Root: e.Options().Root, Head: st.Head, PathsFrom: "given"}
	// Given paths are normalised as every surface normalises them, so
	// "./a" and "a" brief alike.
	paths, err := e.RepoPaths("paths", in.Paths)
	if err != nil {
		return nil, err
	}
	if h := e.Options().History; h == nil {
		if in.Diff != "" {
			return nil, jsonin.Errorf("diff", "needs a git repository; %s is not in one", e.Options().Root)
		}
	} else {
		if repo.Branch, err = h.Branch(); err != nil {
			return nil, err
		}
		dirty, err := h.Uncommitted(ctx)
		if err != nil {
			return nil, err
		}
		repo.Dirty = len(dirty) > 0
		switch {
		case in.Diff != "":
			if paths, err = changedSince(ctx, h, st.Head, in.Diff, dirty); err != nil {
				return nil, err
			}
			repo.PathsFrom = "changed since " + in.Diff
		case len(paths) == 0:
			paths = dirty
			repo.PathsFrom = "uncommitted"
		}
	}
	for i, p := range paths {
		paths[i] = strings.TrimSuffix(p, "/") // an untracked nested repository
	}
	repo.Paths = paths
	var entries []*api.Entry
	if len(paths) > 0 {
		// The brief uses no history-derived field and no boundaries:
		// governing without the commit index and without one lstat per
		// directory of the paths.
		noHistory := false
		g, err := e.Governing(WithoutBoundaries(ctx), &api.GoverningInput{Paths: paths, History: &noHistory})
		if err != nil {
			return nil, err
		}
		entries = g.Entries
	}
	note := ""
	if len(entries) == 0 && len(paths) > 0 {
		note = UnscopedNote(st.Unscoped()) // why nothing governs, and what to run
	}
	b := brief.Assemble(brief.Input{Repository: repo, Entries: entries, Budget: budget,
		Architecture: in.Architecture, GeneratedAt: e.Now(), Note: note})
	if compact {
		b.Repository.PathCount, b.Repository.Paths = len(b.Repository.Paths), []string{}
	}
	return b, nil
}

// changedSince is History.ChangedSince with the uncommitted paths the
// brief already read (dirty): the committed changes from the merge base of
// base and head to head, plus dirty, sorted. Walking the working tree once
// instead of twice is most of what a brief of a big change costs.
func changedSince(ctx context.Context, h History, head, base string, dirty []string) ([]string, error) {
	set := make(map[string]bool, len(dirty))
	for _, p := range dirty {
		set[p] = true
	}
	if head != "" {
		from, err := h.Resolve(ctx, base)
		if err != nil {
			return nil, err
		}
		mb, err := h.MergeBase(ctx, from, head)
		if err != nil {
			return nil, err
		}
		if mb != "" {
			from = mb
		}
		committed, err := h.Diff(ctx, from, head)
		if err != nil {
			return nil, err
		}
		for _, p := range committed {
			set[p] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// Brief answers context.brief.
func (e *Engine) Brief(ctx context.Context, in *api.BriefInput) (*api.Brief, error) {
	return Invoke(ctx, e, "context.brief", runBrief, in)
}
