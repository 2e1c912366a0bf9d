package lint

import (
	"path"
	"slices"
	"strings"

	"github.com/kontext/kontext/engine/api"
)

// neverLoaded adds a finding per rule file a client will never put into
// context, as the client's own answer says: cut whole (an AGENTS.md past
// Codex's byte budget on the chain to its own directory), shadowed (an
// AGENTS.override.md beside it), excluded (excludeAgent), or manual (a
// Cursor rule only loaded when @-mentioned) when no rule file mentions it.
//
// The loads, the rule behind each (View.Why) and the reasons are the
// client answers' own (engine/clients.go, ClientLoad).
func neverLoaded(docs []Doc, clients []string, byDoc [][]para, out *[]api.LintFinding) {
	for i, d := range docs {
		for _, c := range clients {
			v := d.Views[c]
			severity := "warning"
			switch {
			case v.Load == "cut" && !v.Loaded:
			case v.Load == "not-loaded" && v.Why == WhyShadowed:
			case v.Load == "not-loaded" && v.Why == WhyExcluded:
				severity = "note" // the file asks for it
			case v.Load == "manual":
				name := strings.ToLower(strings.TrimSuffix(path.Base(d.File), path.Ext(d.File)))
				if slices.ContainsFunc(docs, func(o Doc) bool { return o.real() != d.real() && mentions(strings.ToLower(o.Markdown), name) }) {
					continue
				}
				v.Reason += ", and no rule file mentions " + name
			default:
				continue
			}
			client := c
			f := api.LintFinding{RuleID: RuleNeverLoaded, Severity: severity, Client: &client,
				Message:   d.File + ": " + c + " never loads it: " + v.Reason,
				Locations: []api.LintLocation{{File: d.File, Line: 1}}, Quotes: []string{firstLine(d.Markdown)}}
			if len(byDoc[i]) > 0 {
				f.Locations[0].Line, f.Quotes[0] = byDoc[i][0].p.Line[0], byDoc[i][0].p.Lines[0]
			}
			*out = append(*out, f)
		}
	}
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
