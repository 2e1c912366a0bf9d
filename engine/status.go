package engine

import (
	"context"
	"errors"
	"github.com/kontext/kontext/engine/internal/kb"
	"os"
	"path"
	"sort"

	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/ledger"
)

// LLMStatus is status.llm: the actual model selection.
type LLMStatus struct {
	Selected  bool    `json:"selected"`
	Adapter   *string `json:"adapter"`
	Model     *string `json:"model,omitempty"`
	Available bool    `json:"available"`
	Reason    *string `json:"reason,omitempty"`
}

// StatusResult is the result of status.
// SkippedFile is a Markdown file of a source that is not a record: {file,
// reason}.
type SkippedFile = kb.Skipped

type StatusResult struct {
	Version      string                    `json:"version"`
	APIVersion   int                       `json:"api_version"`
	Root         string                    `json:"root"`
	Revision     *string                   `json:"revision"`
	Storage      string                    `json:"storage"`
	ConfigSource ConfigSource              `json:"config_source"`
	Capabilities []string                  `json:"capabilities"`
	LLM          LLMStatus                 `json:"llm"`
	Counts       map[string]map[string]int `json:"counts"`
	ReviewDue    []string                  `json:"review_due"`
	Failing      []string                  `json:"failing"`
	Diagnostics  int                       `json:"diagnostics"`
	Snapshot     string                    `json:"snapshot"`
	// Skipped lists the Markdown files of the sources that are not records
	// (README, index, templates), with the reason.
	Skipped []SkippedFile `json:"skipped"`
	// BriefBudgetLines is [brief] budget_lines of the committed config.
	BriefBudgetLines int `json:"brief_budget_lines"`
}

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
	res := &StatusResult{
		Version: Version, APIVersion: APIVersion, Root: e.opts.Root, Revision: strp(st.head),
		Storage: st.cfg.Storage, ConfigSource: src, Capabilities: e.capabilities(),
		LLM:    LLMStatus{Reason: &reason},
		Counts: map[string]map[string]int{}, ReviewDue: []string{}, Failing: []string{},
		Diagnostics: len(st.snap.Diagnostics), Snapshot: st.snap.ID, BriefBudgetLines: st.cfg.BudgetLines,
	}
	res.Failing = failingIDs(st.snap.LedgerLines)
	res.Skipped = append([]SkippedFile{}, st.snap.Skipped...)
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

// SetupResult is the result of setup.
type SetupResult struct {
	Root         string       `json:"root"`
	Storage      string       `json:"storage"`
	Created      []string     `json:"created"`
	ConfigSource ConfigSource `json:"config_source"`
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
	return &SetupResult{Root: e.opts.Root, Storage: st.cfg.Storage, Created: created, ConfigSource: src}, nil
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
