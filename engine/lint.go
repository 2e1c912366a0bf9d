package engine

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/lint"
	"github.com/kontext/kontext/engine/internal/match"
)

// lintLoading says where rules.lint's per-client loading comes from.
const lintLoading = "each client's answer (governing --client: the loading rules of docs/agents.md) for a path in the file's scope, started in the file's directory"

func runLint(ctx context.Context, e *Engine, in *api.LintInput) (*api.LintResult, error) {
	var clients []string
	for _, r := range ClientRules() {
		clients = append(clients, r.Name)
	}
	if in.Client != "" {
		if _, _, err := e.normClient(in.Client, ""); err != nil {
			return nil, err
		}
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
		d := lint.Doc{File: en.File, Real: target, Style: en.Style, Paths: en.Paths, Markdown: en.Markdown}
		if d.Views, err = e.lintViews(st, en, clients); err != nil {
			return nil, err
		}
		docs = append(docs, d)
		if target == "" {
			target = en.File
		}
		real[target] = true
	}
	res := &api.LintResult{Snapshot: st.Snap.ID, Files: len(real), Findings: []api.LintFinding{}, Counts: map[string]int{},
		Similarity: lint.Similarity, Loading: lintLoading}
	for _, f := range lint.Check(docs, clients) {
		if in.Client != "" && f.Client != nil && *f.Client != in.Client {
			continue
		}
		res.Findings = append(res.Findings, f)
		res.Counts[f.RuleID]++
	}
	return res, nil
}

// lintViews asks each client how it loads en: for a path in en's scope,
// started in en's directory (an agent file's; the root for the others),
// with the files it has in the same context.
func (e *Engine) lintViews(st *State, en *entry.Entry, clients []string) (map[string]lint.View, error) {
	cwd := ""
	if en.Style == entry.StyleAgents || en.Style == entry.StyleClaude {
		cwd = agentDir(en.File)
	}
	probes := probePaths(en.Paths)
	views := make(map[string]lint.View, len(clients))
	for _, c := range clients {
		ls, err := e.ClientLoad(st, c, cwd, probes)
		if err != nil {
			return nil, err
		}
		var v lint.View
		for _, l := range ls.Entries {
			if l.Entry.File == en.File {
				v.Load, v.Reason, v.Why, v.Loaded = l.Load, l.Reason, l.Why, l.BytesLoaded > 0
			}
		}
		if v.Loaded {
			for _, l := range ls.Entries {
				if l.Entry.File != en.File && l.BytesLoaded > 0 {
					name := l.Entry.File
					if t, ok := l.Entry.Extra["link_target"].(string); ok {
						name = t
					}
					v.With = append(v.With, name)
				}
			}
		}
		views[c] = v
	}
	return views, nil
}

// probeRE finds the wildcard parts of a glob: a brace group, a class, a
// run of stars, a question mark.
var probeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]|\*\*/|/\*\*$|^\*\*$|\*+|\?`) })

// probePaths are paths that a file's patterns match, one per pattern
// that yields one: "services/**" gives services/x, "**/*.{ts,tsx}" x.ts.
func probePaths(patterns []string) []string {
	var out []string
	for _, raw := range patterns {
		if strings.HasPrefix(raw, "!") {
			continue
		}
		p := probeRE().ReplaceAllStringFunc(raw, func(m string) string {
			switch {
			case m[0] == '{':
				alt, _, _ := strings.Cut(m[1:len(m)-1], ",")
				return alt
			case m[0] == '[':
				if c := strings.TrimLeft(m[1:len(m)-1], "!^"); c != "" {
					return c[:1]
				}
				return "x"
			case m == "**/":
				return ""
			case m == "/**":
				return "/x"
			}
			return "x"
		})
		p = strings.TrimPrefix(p, "/")
		pat, err1 := match.Compile(raw)
		lit, err2 := match.Compile(p)
		if p == "" || err1 != nil || err2 != nil || !match.Overlap(pat, lit) {
			continue // no path found: the file is asked about without it
		}
		out = append(out, p)
	}
	return out
}
