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
	add := func(i int, file, client, severity, msg string) {
		f := api.LintFinding{RuleID: RuleNeverLoaded, Severity: severity, Client: &client, Message: file + ": " + msg,
			Locations: []api.LintLocation{{File: file, Line: 1}}, Quotes: []string{firstLine(docs[i].Markdown)}}
		if len(byDoc[i]) > 0 {
			f.Locations[0].Line, f.Quotes[0] = byDoc[i][0].p.Line[0], byDoc[i][0].p.Lines[0]
		}
		*out = append(*out, f)
	}
	// Codex: one file per directory (the override first), root first. A
	// file read through a link counts under each of its names.
	type named struct {
		doc  int
		name string
	}
	var agents []named
	for i, d := range docs {
		for _, n := range d.names() {
			if b := strings.ToLower(path.Base(n)); b == "agents.md" || b == "agents.override.md" {
				agents = append(agents, named{i, n})
			}
		}
	}
	chain := map[string]named{} // directory → the file Codex reads there
	for _, pass := range []string{"agents.override.md", "agents.md"} {
		for _, a := range agents {
			if _, ok := chain[path.Dir(a.name)]; !ok && strings.ToLower(path.Base(a.name)) == pass {
				chain[path.Dir(a.name)] = a
			}
		}
	}
	for _, a := range agents {
		if strings.ToLower(path.Base(a.name)) != "agents.md" {
			continue
		}
		dir := path.Dir(a.name)
		if c := chain[dir]; c.name != a.name {
			add(a.doc, a.name, "codex", "warning", fmt.Sprintf("Codex reads %s in this directory instead (an override wins)", path.Base(c.name)))
			continue
		}
		before := 0
		for _, up := range ancestors(dir) {
			if c, ok := chain[up]; ok {
				before += len(docs[c.doc].Markdown)
			}
		}
		if before >= CodexBudget {
			add(a.doc, a.name, "codex", "warning", fmt.Sprintf("cut: the AGENTS.md files above it hold %d bytes, and Codex stops at %d (project_doc_max_bytes), so it never reads this one", before, CodexBudget))
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
			add(i, d.File, "cursor", "warning", "a manual Cursor rule (no alwaysApply, globs or description): Cursor loads it only when @-mentioned, and no rule file mentions "+name)
		}
	}
	// Copilot code review: excluded by the file itself.
	for i, d := range docs {
		if d.Style != "copilot" {
			continue
		}
		if ok, _ := d.loads("copilot-review"); !ok {
			add(i, d.File, "copilot-review", "note", "excludeAgent: code-review, so Copilot code review never reads it")
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
