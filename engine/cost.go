package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/kb"
)

// CostEstimator is how context.cost turns bytes into tokens: no tokenizer
// module is available to the engine, so a token is taken as four bytes.
const CostEstimator = "bytes/4"

// costTop is how many of the largest contributors a client's cost lists.
const costTop = 5

// runCost answers context.cost: for each client (or the one asked), the
// bytes and estimated tokens of what it loads for the paths, the largest
// files and what its budget cut — from the same governing hits and
// clientLoad as entries.governing with a client.
func runCost(ctx context.Context, e *Engine, in *api.CostInput) (*api.CostResult, error) {
	if in.Diff != "" && len(in.Paths) > 0 {
		return nil, apierr.Invalid("pass paths or diff, not both")
	}
	rules := clientTable
	if in.Client != "" {
		rule, ok := clientRuleOf(in.Client)
		if !ok {
			return nil, jsonin.Errorf("client", "must be one of %s, got %q", clientNames(), in.Client)
		}
		rules = []ClientRule{rule}
	}
	_, cwd, err := e.normClient(rules[0].Name, in.Cwd)
	if err != nil {
		return nil, err
	}
	paths, err := e.normPaths("paths", in.Paths)
	if err != nil {
		return nil, err
	}
	if len(in.Paths) == 0 {
		if paths, err = e.costPaths(ctx, in.Diff); err != nil {
			return nil, err
		}
	}
	for i, p := range paths {
		paths[i] = strings.TrimSuffix(p, "/") // an untracked nested repository
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	hits := governingHits(st.Snap.Governing().Lookup(paths), 0, nil,
		func(o int) (int, string) { en := st.Snap.Entry(o); return kb.KindRank(en.Kind), en.ID })
	res := &api.CostResult{Estimator: CostEstimator, Cwd: cwd, PathCount: len(paths), Snapshot: st.Snap.ID, Clients: []api.ClientCost{}}
	for _, rule := range rules {
		res.Clients = append(res.Clients, clientCost(e.clientLoad(st, rule, cwd, paths, hits)))
	}
	return res, nil
}

// costPaths are the paths of a cost without given paths: the files
// changed since diff, else the uncommitted ones — both need git history.
func (e *Engine) costPaths(ctx context.Context, diff string) ([]string, error) {
	h := e.opts.History
	if !nativeBuild || h == nil {
		if diff != "" {
			return nil, jsonin.Errorf("diff", "needs a git repository on a native surface; pass paths instead")
		}
		return nil, jsonin.Errorf("paths", "is required here (there is no git repository for the uncommitted files): pass the repo-relative paths")
	}
	if diff != "" {
		if diff[0] == '-' {
			return nil, jsonin.Errorf("diff", "%q starts with '-'; pass a git revision such as origin/main", diff)
		}
		return h.ChangedSince(ctx, diff)
	}
	return h.Uncommitted(ctx)
}

// clientCost sums one client's loads.
func clientCost(l *ClientLoads) api.ClientCost {
	c := api.ClientCost{Client: l.Rule.Name, Cut: []api.CostFile{}, Top: []api.CostFile{}, Notes: l.Notes}
	if c.Notes == nil {
		c.Notes = []string{}
	}
	var loaded []api.CostFile
	for _, x := range l.Entries {
		f := api.CostFile{ID: x.Entry.ID, File: x.Entry.File, Load: x.Load, Bytes: x.Bytes, BytesLoaded: x.BytesLoaded}
		c.Bytes += x.BytesLoaded
		switch {
		case x.Load == LoadNotLoaded:
			c.NotLoaded++
		case x.Load == LoadCut:
			c.Cut = append(c.Cut, f)
		}
		if x.BytesLoaded > 0 {
			c.Loaded++
			loaded = append(loaded, f)
		}
	}
	sort.SliceStable(loaded, func(i, j int) bool { return loaded[i].BytesLoaded > loaded[j].BytesLoaded })
	if len(loaded) > costTop {
		loaded = loaded[:costTop]
	}
	c.Top = append(c.Top, loaded...)
	c.Tokens = (c.Bytes + 3) / 4
	return c
}

// Cost answers context.cost.
func (e *Engine) Cost(ctx context.Context, in *api.CostInput) (*api.CostResult, error) {
	return Invoke(ctx, e, "context.cost", runCost, in)
}
