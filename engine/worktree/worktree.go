// Package worktree holds the read operations that only a native worktree
// answers: repository.state, bundle.build, verify.pin and
// entries.suggest_paths —
// what surfaces used to ask git for directly. Like engine/drafts it is
// passed to engine.New by the native opener (Operations), so the WASM
// engine links none of it.
package worktree

import (
	"context"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
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
