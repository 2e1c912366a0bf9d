package engine

import (
	"context"
	"sort"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/internal/ledger"
)

func runStatus(ctx context.Context, e *Engine, _ *api.StatusInput) (*api.StatusResult, error) {
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	src, err := e.ConfigSource(ctx, st)
	if err != nil {
		return nil, err
	}
	reason := "no model adapter is configured"
	res := &api.StatusResult{
		Version: Version, APIVersion: APIVersion, Root: e.opts.Root, Revision: strp(st.Head),
		Storage: st.Cfg.Storage, ConfigSource: src, Capabilities: e.capabilities(),
		LLM:    api.LLMStatus{Reason: &reason},
		Counts: map[string]map[string]int{}, ReviewDue: []string{}, Failing: []string{},
		Diagnostics: len(st.Snap.Diagnostics), Snapshot: st.Snap.ID, BriefBudgetLines: st.Cfg.BudgetLines,
	}
	res.Failing = failingIDs(st.Snap.LedgerLines)
	res.Skipped = []api.SkippedFile{}
	for _, sk := range st.Snap.Skipped {
		res.Skipped = append(res.Skipped, api.SkippedFile(sk))
	}
	today := e.Now().Format("2006-01-02")
	for _, en := range st.Snap.Entries {
		s := en.Status
		if s == "" {
			s = "none"
		}
		if res.Counts[en.Kind] == nil {
			res.Counts[en.Kind] = map[string]int{}
		}
		res.Counts[en.Kind][s]++
		if en.ReviewBy != "" && today > en.ReviewBy {
			res.ReviewDue = append(res.ReviewDue, en.ID)
		}
	}
	return res, nil
}

// failingIDs lists the entries whose newest verify line failed, sorted.
func failingIDs(lines []*ledger.Line) []string {
	newest := map[string]*ledger.Line{}
	for _, l := range lines {
		if l.Kind == ledger.KindVerify {
			if n := newest[l.ID]; n == nil || !l.At.Before(n.At) {
				newest[l.ID] = l
			}
		}
	}
	out := []string{}
	for id, l := range newest {
		if l.FailedVerify() {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
