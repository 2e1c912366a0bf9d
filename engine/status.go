package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

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
	reason := "no model adapter is available in this engine; models are used only by the native CLI"
	res := &api.StatusResult{
		Version: Version, APIVersion: APIVersion, Root: e.opts.Root, Revision: strp(st.Head),
		Storage: st.Cfg.Storage, ConfigSource: src, Capabilities: e.capabilities(),
		LLM:       api.LLMStatus{Reason: &reason},
		ReviewDue: []string{}, Failing: []string{},
		Diagnostics: len(st.Snap.Diagnostics), Snapshot: st.Snap.ID, BriefBudgetLines: st.Cfg.BudgetLines,
	}
	if e.opts.Models != nil {
		res.LLM = e.opts.Models.Status()
	}
	res.Failing = failingIDs(st.Snap.LedgerLines)
	if e.incomplete != nil && e.opts.Writer != nil {
		if res.IncompleteOperations, err = e.incomplete(e); err != nil {
			return nil, err
		}
		if res.IncompleteOperations == nil {
			res.IncompleteOperations = []api.IncompleteOperation{}
		}
	}
	res.Skipped = []api.SkippedFile{}
	for _, sk := range st.Snap.Skipped {
		res.Skipped = append(res.Skipped, api.SkippedFile(sk))
	}
	if st.Snap.Len() == 0 {
		if err := e.adoptionHint(st, res); err != nil {
			return nil, err
		}
	}
	// The tally, not the entries: a warm status decodes no entry.
	t := st.Snap.Tally()
	res.Counts = t.Counts
	today := e.Today()
	for _, r := range t.Reviews {
		if today > r.By {
			res.ReviewDue = append(res.ReviewDue, r.ID)
		}
	}
	return res, nil
}

// AdoptionFinder finds the knowledge sources of a working tree (ADR logs,
// rule files) with their entry counts, configured or not.
type AdoptionFinder func(e *Engine, st *State) ([]api.DetectedSource, error)

// UseAdoptionFinder makes status name, on a repository with no entries,
// the sources setup --detect would add. Detection walks a working tree,
// so the native opener installs it; the WASM engine, which never calls
// this, links none of it.
func (e *Engine) UseAdoptionFinder(f AdoptionFinder) { e.adoption = f }

// adoptionHint fills status.detected and status.hint on a repository with
// no entries whose knowledge kontext could read after setup --detect.
func (e *Engine) adoptionHint(st *State, res *api.StatusResult) error {
	if e.adoption == nil {
		return nil
	}
	found, err := e.adoption(e, st)
	if err != nil {
		return err
	}
	var parts []string
	for _, s := range found {
		if !s.Configured && s.Entries > 0 {
			res.Detected = append(res.Detected, s)
			parts = append(parts, fmt.Sprintf("%s (%s, %d)", s.Dir, s.Style, s.Entries))
		}
	}
	if len(parts) > 0 {
		h := "no entries are read yet, but this repository keeps knowledge kontext can read: " + strings.Join(parts, ", ") +
			"; run kontext setup --detect to add these sources to the configuration"
		res.Hint = &h
	}
	return nil
}

// IncompleteLister lists the writes of this worktree that stored a plan
// and never finished (the receipts of engine/drafts).
type IncompleteLister func(e *Engine) ([]api.IncompleteOperation, error)

// UseIncompleteLister makes status list the unfinished writes
// (status.incomplete_operations). The native opener installs the receipt
// store's lister; an engine without writes lists none.
func (e *Engine) UseIncompleteLister(f IncompleteLister) { e.incomplete = f }

// Roots are the absolute spellings of the repository root (none without
// a disk root), for symlinks with absolute targets.
func (e *Engine) Roots() []string {
	if e.opts.Surface != Native || e.opts.Root == "" {
		return nil
	}
	return append([]string{e.opts.Root}, e.opts.RootAliases...)
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
