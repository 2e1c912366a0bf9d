package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/detect"
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
	// BriefBudgetLines is [brief] budget_lines of the committed config.
	BriefBudgetLines int `json:"brief_budget_lines"`
	// On a repository with no entries: the knowledge sources detection
	// finds that the configuration does not read yet, and Hint names the
	// command that adds them.
	Detected []detect.Source `json:"detected,omitempty"`
	Hint     *string         `json:"hint,omitempty"`
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
	if len(st.snap.Entries) == 0 {
		if err := e.adoptionHint(st, res); err != nil {
			return nil, err
		}
	}
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
	// Detected lists the knowledge sources detection found, each with its
	// entry count; configured ones were read already.
	Detected      []detect.Source `json:"detected"`
	ConfigWritten bool            `json:"config_written"`
	// With dry_run: nothing is written; ConfigText is the configuration
	// setup would write (null when it would not change it).
	DryRun     bool    `json:"dry_run,omitempty"`
	ConfigText *string `json:"config_text,omitempty"`
}

const setupConfig = `# kontext configuration (committed). Keys: see the README.
version = 1
storage = ".ai"

# Read an existing ADR log as decisions:
# [[kinds.decision.include]]
# dir = "docs/adr"
# style = "adr"
`

// runSetup detects the knowledge the repository keeps (appending new
// include sources to the configuration, never rewriting it), then creates
// the configuration, the storage and kind directories when absent. It is
// idempotent and installs no hooks.
func runSetup(ctx context.Context, e *Engine, v any) (any, error) {
	in := v.(*SetupInput)
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
	var existing []byte
	if cfgPath == "" {
		cfgPath = config.Candidates()[0]
	} else {
		data, err := util.ReadFile(fs, cfgPath)
		if err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "reading %s", cfgPath)
		}
		existing = data
	}
	text, changed, detected := existing, existing == nil, []detect.Source{}
	if text == nil {
		text = []byte(setupConfig)
	}
	if in.Detect == nil || *in.Detect {
		plan, err := detect.PlanConfig(fs, e.roots(), cfgPath, existing, []byte(setupConfig))
		if err != nil {
			return nil, err
		}
		text, changed, detected = plan.Text, plan.Changed, plan.Sources
	}
	cfg, err := config.Parse(cfgPath, text)
	if err != nil {
		return nil, err
	}
	if in.DryRun {
		res := &SetupResult{Root: e.opts.Root, Storage: cfg.Storage, Created: []string{}, Detected: detected, DryRun: true,
			ConfigSource: ConfigSource{Kind: "defaults"}}
		if changed {
			t := string(text)
			res.ConfigText = &t
		}
		if existing != nil {
			st, err := e.read(ctx)
			if err != nil {
				return nil, err
			}
			if res.ConfigSource, err = e.configSource(ctx, st); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	if changed {
		if err := util.WriteFile(fs, cfgPath, text, 0o644); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "writing %s", cfgPath)
		}
		if existing == nil {
			created = append(created, cfgPath)
		}
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
	return &SetupResult{Root: e.opts.Root, Storage: st.cfg.Storage, Created: created, ConfigSource: src,
		Detected: detected, ConfigWritten: changed}, nil
}

// adoptionHint fills status.detected and status.hint on a repository with
// no entries whose knowledge kontext could read after setup --detect.
func (e *Engine) adoptionHint(st *state, res *StatusResult) error {
	found, err := detect.Find(e.opts.FS, detect.Options{Skip: []string{st.cfg.Storage}, Known: st.cfg.Sources(), Roots: e.roots()})
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

// roots are the absolute spellings of the repository root (none without
// a disk root), for symlinks with absolute targets.
func (e *Engine) roots() []string {
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
