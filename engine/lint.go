package engine

import (
	"context"
	"slices"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/lint"
)

// lintLoading says where rules.lint's per-client loading comes from.
const lintLoading = "style table: which client reads which rule file kind without being asked (docs/cli.md, lint)"

func runLint(ctx context.Context, e *Engine, in *api.LintInput) (*api.LintResult, error) {
	if in.Client != "" && !slices.Contains(lint.Clients, in.Client) {
		return nil, jsonin.Errorf("client", "%q is not a client kontext knows; use one of codex, cursor, copilot, copilot-review, claude, gemini", in.Client)
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	var docs []lint.Doc
	real := map[string]bool{}
	for _, en := range st.Snap.Entries() {
		if _, rule := en.Extra["source_style"]; !rule || en.Visibility == "private" {
			continue
		}
		target, _ := en.Extra["link_target"].(string)
		d := lint.Doc{File: en.File, Real: target, Style: en.Style, Paths: en.Paths, Markdown: en.Markdown,
			Described: en.Summary != "", Loads: lint.StyleLoads(en.File, en.Style, en.Paths, en.Extra)}
		if target != "" {
			// A link is read under both names (CLAUDE.md -> AGENTS.md).
			d.Loads = lint.Merge(d.Loads, lint.StyleLoads(target, en.Style, en.Paths, en.Extra))
		}
		// Other names of the same file: further links to it, and files that
		// only import it (CLAUDE.md holding "@AGENTS.md"), which Claude
		// Code follows and no other client does.
		aliases, _ := en.Extra["aliases"].([]any)
		for _, a := range aliases {
			if name, ok := a.(string); ok && name != target {
				d.Aliases = append(d.Aliases, name)
				d.Loads = lint.Merge(d.Loads, lint.ImportLoads(name, en.Style, en.Paths, en.Extra))
			}
		}
		docs = append(docs, d)
		if target == "" {
			target = en.File
		}
		real[target] = true
	}
	res := &api.LintResult{Snapshot: st.Snap.ID, Files: len(real), Findings: []api.LintFinding{}, Counts: map[string]int{},
		Similarity: lint.Similarity, Loading: lintLoading}
	for _, f := range lint.Check(docs) {
		if in.Client != "" && f.Client != nil && *f.Client != in.Client {
			continue
		}
		res.Findings = append(res.Findings, f)
		res.Counts[f.RuleID]++
	}
	return res, nil
}
