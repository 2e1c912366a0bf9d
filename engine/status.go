package engine

import (
	"context"
	"errors"
	"os"
	"path"
	"sort"

	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/ledger"
)

func runStatus(ctx context.Context, e *Engine, _ any) (any, error) {
	st, err := e.read(ctx)
	if err != nil {
		return nil, err
	}
	src, err := e.configSource(ctx, st)
	if err != nil {
		return nil, err
	}
	reason := "no model adapter is configured"
	res := &api.StatusResult{
		Version: Version, APIVersion: APIVersion, Root: e.opts.Root, Revision: strp(st.head),
		Storage: st.cfg.Storage, ConfigSource: src, Capabilities: e.capabilities(),
		LLM:    api.LLMStatus{Reason: &reason},
		Counts: map[string]map[string]int{}, ReviewDue: []string{}, Failing: []string{},
		Diagnostics: len(st.snap.Diagnostics), Snapshot: st.snap.ID, BriefBudgetLines: st.cfg.BudgetLines,
	}
	res.Failing = failingIDs(st.snap.LedgerLines)
	today := e.now().Format("2006-01-02")
	for _, en := range st.snap.Entries {
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

const setupConfig = `# kontext configuration (committed). Keys: see the README.
version = 1
storage = ".ai"

# Read an existing ADR log as decisions:
# [[kinds.decision.include]]
# dir = "docs/adr"
# style = "adr"
`

// runSetup creates the storage and kind directories and a committed config
// when none exists. It is idempotent and installs no hooks.
func runSetup(ctx context.Context, e *Engine, _ any) (any, error) {
	fs := e.opts.FS
	var created []string
	cfgPath := ""
	for _, c := range config.Candidates() {
		if _, err := fs.Stat(c); err == nil {
			cfgPath = c
			break
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "checking %s", c)
		}
	}
	if cfgPath == "" {
		cfgPath = config.Candidates()[0]
		if err := util.WriteFile(fs, cfgPath, []byte(setupConfig), 0o644); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "writing %s", cfgPath)
		}
		created = append(created, cfgPath)
	}
	st, err := e.read(ctx)
	if err != nil {
		return nil, err
	}
	dirs := []string{st.cfg.Storage}
	for _, k := range entry.Kinds {
		dirs = append(dirs, st.cfg.Kinds[k].Dir)
	}
	for _, d := range dirs {
		if _, err := fs.Stat(d); err == nil {
			continue
		}
		if err := fs.MkdirAll(d, 0o755); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "creating %s", d)
		}
		created = append(created, path.Clean(d)+"/")
	}
	sort.Strings(created)
	if created == nil {
		created = []string{}
	}
	src, err := e.configSource(ctx, st)
	if err != nil {
		return nil, err
	}
	return &api.SetupResult{Root: e.opts.Root, Storage: st.cfg.Storage, Created: created, ConfigSource: src}, nil
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
