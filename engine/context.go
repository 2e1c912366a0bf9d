package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/brief"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

// The operations that answer what surfaces used to ask git for directly:
// the repository's state, the brief of some paths, and whether a verify
// command is pinned.

// runRepositoryState answers repository.state.
func runRepositoryState(ctx context.Context, e *Engine, in *api.RepositoryStateInput) (*api.RepositoryState, error) {
	h := e.opts.History
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
	res := &api.RepositoryState{Root: e.opts.Root, Head: strp(st.Head)}
	if res.Branch, err = h.Branch(); err != nil {
		return nil, err
	}
	if res.Uncommitted, err = h.Uncommitted(ctx); err != nil {
		return nil, err
	}
	res.Uncommitted = nonNil(res.Uncommitted)
	res.Dirty = len(res.Uncommitted) > 0
	if in.Since != "" {
		paths, err := h.ChangedSince(ctx, in.Since)
		if err != nil {
			return nil, err
		}
		res.ChangedSince = &api.ChangedSince{Base: in.Since, Paths: nonNil(paths)}
	}
	return res, nil
}

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
	case in.BudgetLines != nil && *in.BudgetLines < 1:
		return nil, jsonin.Errorf("budget_lines", "must be at least 1")
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	budget := st.Cfg.BudgetLines
	if in.BudgetLines != nil {
		budget = *in.BudgetLines
	}
	repo := api.BriefRepository{Root: e.opts.Root, Head: st.Head, PathsFrom: "given"}
	paths := append([]string(nil), in.Paths...)
	if h := e.opts.History; h == nil {
		if in.Diff != "" {
			return nil, jsonin.Errorf("diff", "needs a git repository; %s is not in one", e.opts.Root)
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
			if paths, err = h.ChangedSince(ctx, in.Diff); err != nil {
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
		g, err := runGoverning(ctx, e, &api.GoverningInput{Paths: paths})
		if err != nil {
			return nil, err
		}
		entries = g.Entries
	}
	return brief.Assemble(brief.Input{Repository: repo, Entries: entries, Budget: budget,
		Architecture: in.Architecture, GeneratedAt: e.Now()}), nil
}

// runVerifyPin answers verify.pin: the entry's verify command and whether
// the user pinned it. Pinning is never an operation.
func runVerifyPin(ctx context.Context, e *Engine, in *api.VerifyPinInput) (*api.VerifyPin, error) {
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
		sum := CommandSHA256(en.Verify)
		res.Command, res.CommandSHA256 = &en.Verify, &sum
		res.Pinned = e.opts.Trust != nil && e.opts.Trust.Pinned(e.opts.Root, en.ID, en.Verify)
	}
	return res, nil
}

// CommandSHA256 is the hex sha256 of a verify command (trust pins carry it).
func CommandSHA256(command string) string {
	h := sha256.Sum256([]byte(command))
	return hex.EncodeToString(h[:])
}

// UntrustedVerifyHint is what a person runs to pin an entry's command.
func UntrustedVerifyHint(id string) string { return "kontext trust --verify " + id }
