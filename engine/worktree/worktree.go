// Package worktree holds the read operations that only a native worktree
// answers: repository.state, context.brief, bundle.build, verify.pin and
// entries.suggest_paths —
// what surfaces used to ask git for directly. Like engine/drafts it is
// passed to engine.New by the native opener (Operations), so the WASM
// engine links none of it.
package worktree

import (
	"context"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/brief"
	"github.com/kontext/kontext/engine/internal/detect"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

// runRepositoryState answers repository.state.
func runRepositoryState(ctx context.Context, e *engine.Engine, in *api.RepositoryStateInput) (*api.RepositoryState, error) {
	h := e.Options().History
	if h == nil {
		return nil, apierr.New(apierr.UnsupportedOperation, "repository.state needs a git repository; run it with the native CLI inside one")
	}
	if strings.HasPrefix(in.Since, "-") {
		return nil, jsonin.Errorf("since", "%q starts with '-'; pass a git revision such as origin/main", in.Since)
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	res := &api.RepositoryState{Root: e.Options().Root, Head: strp(st.Head)}
	if res.Branch, err = h.Branch(); err != nil {
		return nil, err
	}
	if res.Uncommitted, err = h.Uncommitted(ctx); err != nil {
		return nil, err
	}
	if res.Uncommitted == nil {
		res.Uncommitted = []string{}
	}
	res.Dirty = len(res.Uncommitted) > 0
	if in.Since != "" {
		paths, err := h.ChangedSince(ctx, in.Since)
		if err != nil {
			return nil, err
		}
		if paths == nil {
			paths = []string{}
		}
		res.ChangedSince = &api.ChangedSince{Base: in.Since, Paths: paths}
	}
	return res, nil
}

// runBrief answers context.brief: the entries governing the paths (given,
// changed since diff, or uncommitted) assembled into the kontext.brief/v1
// document, cut to the budget. Over budget is over_budget: true in the
// result; exiting 10 on it is the CLI's rule.
func runBrief(ctx context.Context, e *engine.Engine, in *api.BriefInput) (*api.Brief, error) {
	switch {
	case in.Diff != "" && len(in.Paths) > 0:
		return nil, apierr.Invalid("pass paths or diff, not both")
	case strings.HasPrefix(in.Diff, "-"):
		return nil, jsonin.Errorf("diff", "%q starts with '-'; pass a git revision such as origin/main", in.Diff)
	case in.BudgetLines != nil && (*in.BudgetLines < 1 || *in.BudgetLines > engine.MaxBudgetLines):
		return nil, jsonin.Errorf("budget_lines", "must be between 1 and %d, got %d", engine.MaxBudgetLines, *in.BudgetLines)
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
		g, err := e.Governing(engine.WithoutBoundaries(ctx), &api.GoverningInput{Paths: paths, History: &noHistory})
		if err != nil {
			return nil, err
		}
		entries = g.Entries
	}
	note := ""
	if len(entries) == 0 && len(paths) > 0 {
		note = engine.UnscopedNote(st.Unscoped()) // why nothing governs, and what to run
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
func changedSince(ctx context.Context, h engine.History, head, base string, dirty []string) ([]string, error) {
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

// runVerifyPin answers verify.pin: the entry's verify command and whether
// the user pinned it. Pinning is never an operation.
func runVerifyPin(ctx context.Context, e *engine.Engine, in *api.VerifyPinInput) (*api.VerifyPin, error) {
	if strings.TrimSpace(in.ID) == "" {
		return nil, jsonin.Errorf("id", "is required")
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	en, err := st.Snap.Lookup(in.ID)
	if err != nil {
		return nil, err
	}
	res := &api.VerifyPin{ID: en.ID}
	if en.Verify != "" {
		sum := engine.CommandSHA256(en.Verify)
		res.Command, res.CommandSHA256 = &en.Verify, &sum
		res.Pinned = e.Options().Trust != nil && e.Options().Trust.Pinned(e.Options().Root, en.ID, en.Verify)
	}
	return res, nil
}

// Operations are the rows of this package's operations.
func Operations() []engine.Operation {
	return []engine.Operation{
		engine.Op("repository.state", engine.NeedsHistory, runRepositoryState),
		engine.Op("context.brief", 0, runBrief),
		engine.Op("verify.pin", 0, runVerifyPin),
		engine.Op("bundle.build", 0, runBundle),
		engine.Op("entries.suggest_paths", engine.NeedsHistory, runSuggestPaths),
	}
}

// Typed functions for Go callers (the CLI, internal/bundle).

// FindAdoptable is the native AdoptionFinder (engine.UseAdoptionFinder):
// the knowledge sources detection finds in the working tree.
func FindAdoptable(e *engine.Engine, st *engine.State) ([]api.DetectedSource, error) {
	found, err := detect.Find(e.FS(), detect.Options{Skip: []string{st.Cfg.Storage}, Known: st.Cfg.Sources(), Roots: e.Roots()})
	if err != nil {
		return nil, err
	}
	out := make([]api.DetectedSource, len(found))
	for i, s := range found {
		out[i] = api.DetectedSource(s)
	}
	return out, nil
}

// SuggestPaths answers entries.suggest_paths.
func SuggestPaths(ctx context.Context, e *engine.Engine, in *api.SuggestPathsInput) (*api.SuggestPathsResult, error) {
	return engine.Invoke(ctx, e, "entries.suggest_paths", runSuggestPaths, in)
}

// RepositoryState answers repository.state.
func RepositoryState(ctx context.Context, e *engine.Engine, in *api.RepositoryStateInput) (*api.RepositoryState, error) {
	return engine.Invoke(ctx, e, "repository.state", runRepositoryState, in)
}

// Brief answers context.brief.
func Brief(ctx context.Context, e *engine.Engine, in *api.BriefInput) (*api.Brief, error) {
	return engine.Invoke(ctx, e, "context.brief", runBrief, in)
}

// VerifyPin answers verify.pin.
func VerifyPin(ctx context.Context, e *engine.Engine, in *api.VerifyPinInput) (*api.VerifyPin, error) {
	return engine.Invoke(ctx, e, "verify.pin", runVerifyPin, in)
}

// Bundle answers bundle.build.
func Bundle(ctx context.Context, e *engine.Engine, in *api.BundleInput) (*api.Bundle, error) {
	return engine.Invoke(ctx, e, "bundle.build", runBundle, in)
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
