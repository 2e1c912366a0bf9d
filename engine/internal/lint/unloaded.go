package lint

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/kontext/kontext/engine/api"
)

// CodexBudget is Codex's default project_doc_max_bytes: it stops adding
// AGENTS.md files to its chain once their combined size reaches it.
const CodexBudget = 32 << 10

// neverLoaded adds a finding per rule file a client will never put into
// context: an AGENTS.md past Codex's byte budget on every chain that
// reaches it, or shadowed by an AGENTS.override.md beside it; a Cursor
// rule that is only loaded when @-mentioned and that no rule file
// mentions; a Copilot instructions file excluded from code review.
func neverLoaded(docs []Doc, byDoc [][]para, out *[]api.LintFinding) {
	add := func(i int, client, severity, msg string) {
		f := api.LintFinding{RuleID: RuleNeverLoaded, Severity: severity, Client: &client, Message: docs[i].File + ": " + msg,
			Locations: []api.LintLocation{{File: docs[i].File, Line: 1}}, Quotes: []string{firstLine(docs[i].Markdown)}}
		if len(byDoc[i]) > 0 {
			f.Locations[0].Line, f.Quotes[0] = byDoc[i][0].p.Line[0], byDoc[i][0].p.Lines[0]
		}
		*out = append(*out, f)
	}
	// Codex: one file per directory (the override first), root first.
	chain := map[string]int{} // directory → the doc Codex reads there
	for i, d := range docs {
		if d.Style != "agents" {
			continue
		}
		switch strings.ToLower(path.Base(d.File)) {
		case "agents.override.md":
			chain[path.Dir(d.File)] = i
		case "agents.md":
			if _, ok := chain[path.Dir(d.File)]; !ok {
				chain[path.Dir(d.File)] = i
			}
		}
	}
	for i, d := range docs {
		if d.Style != "agents" || !strings.EqualFold(path.Base(d.File), "agents.md") {
			continue
		}
		dir := path.Dir(d.File)
		if j := chain[dir]; j != i {
			add(i, "codex", "warning", fmt.Sprintf("Codex reads %s in this directory instead (an override wins)", path.Base(docs[j].File)))
			continue
		}
		before := 0
		for _, a := range ancestors(dir) {
			if j, ok := chain[a]; ok {
				before += len(docs[j].Markdown)
			}
		}
		if before >= CodexBudget {
			add(i, "codex", "warning", fmt.Sprintf("cut: the AGENTS.md files above it hold %d bytes, and Codex stops at %d (project_doc_max_bytes), so it never reads this one", before, CodexBudget))
		}
	}
	// Cursor: manual rules nobody mentions.
	for i, d := range docs {
		if d.Style != "cursor" || len(d.Paths) > 0 || d.Described || !strings.HasSuffix(strings.ToLower(d.File), ".mdc") {
			continue
		}
		name := strings.ToLower(strings.TrimSuffix(path.Base(d.File), path.Ext(d.File)))
		mentioned := slices.ContainsFunc(docs, func(o Doc) bool {
			return o.File != d.File && mentions(strings.ToLower(o.Markdown), name)
		})
		if !mentioned {
			add(i, "cursor", "warning", "a manual Cursor rule (no alwaysApply, globs or description): Cursor loads it only when @-mentioned, and no rule file mentions "+name)
		}
	}
	// Copilot code review: excluded by the file itself.
	for i, d := range docs {
		if d.Style != "copilot" {
			continue
		}
		if ok, _ := d.loads("copilot-review"); !ok {
			add(i, "copilot-review", "note", "excludeAgent: code-review, so Copilot code review never reads it")
		}
	}
}

// ancestors are the directories above dir, the root (".") first; dir
// itself is not one.
func ancestors(dir string) []string {
	if dir == "." {
		return nil
	}
	out := []string{"."}
	parts := strings.Split(dir, "/")
	for i := 1; i < len(parts); i++ {
		out = append(out, strings.Join(parts[:i], "/"))
	}
	return out
}

// mentions reports whether text names a rule: "@name" or "name.mdc".
func mentions(text, name string) bool {
	return strings.Contains(text, "@"+name) || strings.Contains(text, name+".mdc")
}

// firstLine is the first non-blank line of s.
func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}
