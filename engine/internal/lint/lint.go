// Package lint owns the findings about agent rule files taken together:
// the same instruction in several files (with the bytes each client reads
// twice), near-duplicates, contradictions on a closed set of checkable
// facts between files whose scopes overlap, and files a client never
// loads. It works on parsed entries (their text, paths and style) and the
// one paragraph reading of package entry; it reads no files itself.
package lint

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/match"
)

// Rule ids of the findings.
const (
	RuleDuplicate     = "duplicate_rule"
	RuleNearDuplicate = "near_duplicate_rule"
	RuleConflict      = "conflicting_rules"
	RuleNeverLoaded   = "never_loaded"
)

// Doc is one rule file as the knowledge base read it.
type Doc struct {
	File     string   // the path it was read at
	Real     string   // the file its text comes from (a link's target); "" = File
	Style    string   // entry style: agents, cursor, copilot, …
	Paths    []string // the paths it governs (empty: none until mentioned)
	Markdown string   // the file's text
	// Views are how each client loads the file, from the engine's
	// per-client answer (clientTable), by client name.
	Views map[string]View
}

// The client rules that leave a governing file out of its context, as
// the client's answer names them (View.Why).
const (
	WhyShadowed = "shadowed" // an AGENTS.override.md beside it takes its place (Codex)
	WhyExcluded = "excluded" // its excludeAgent names the client (Copilot)
)

// View is one client's load of a file, asked for a path in the file's
// scope with the client started in the file's directory.
type View struct {
	Load   string // always, auto, agent-requested, manual, on-demand, cut, not-loaded ("" when absent)
	Reason string // the client's reason, as governing --client gives it
	Why    string // the rule behind a not-loaded file (WhyShadowed, WhyExcluded), else ""
	// Loaded: some of the file enters the context (a cut file that still
	// loads a part counts).
	Loaded bool
	// With are the files (as Doc.real names them) the client has in the
	// same context.
	With []string
}

// together reports whether client c has docs a and b in one context.
func together(docs []Doc, c string, a, b int) bool {
	va, vb := docs[a].Views[c], docs[b].Views[c]
	return a != b && va.Loaded && vb.Loaded && (slices.Contains(va.With, docs[b].real()) || slices.Contains(vb.With, docs[a].real()))
}

// real is the identity of a file: two docs with the same real file are
// one file seen through a link, never a duplicate of each other.
func (d *Doc) real() string {
	if d.Real != "" {
		return d.Real
	}
	return d.File
}

// para is one paragraph of one doc, read for comparison.
type para struct {
	doc   int
	index int // position among the doc's paragraphs
	p     entry.Paragraph
	norm  string   // normalised text
	words []string // normalised words
	bytes int      // bytes as written (lines and their newlines)
	// parent is the normalised text of a line unit's paragraph.
	parent string
}

// Check returns the findings over docs, ordered by rule and location;
// clients are the clients' names in the order findings list them.
func Check(docs []Doc, clients []string) []api.LintFinding {
	docs = distinct(docs)
	var paras []para
	byDoc := make([][]para, len(docs))
	for i := range docs {
		for j, p := range entry.Paragraphs(docs[i].Markdown) {
			text := p.Text()
			w := words(text)
			n := 0
			for _, l := range p.Lines {
				n += len(l) + 1
			}
			pp := para{doc: i, index: j, p: p, norm: strings.Join(w, " "), words: w, bytes: n}
			paras = append(paras, pp)
			byDoc[i] = append(byDoc[i], pp)
		}
	}
	scopes := make([][]match.Pattern, len(docs))
	for i, d := range docs {
		for _, raw := range d.Paths {
			if p, err := match.Compile(raw); err == nil && !p.Negated {
				scopes[i] = append(scopes[i], p)
			}
		}
	}
	memo := map[[2]int]bool{}
	overlap := func(a, b int) bool {
		if a > b {
			a, b = b, a
		}
		if v, ok := memo[[2]int{a, b}]; ok {
			return v
		}
		v := false
		for _, x := range scopes[a] {
			for _, y := range scopes[b] {
				if !v && match.Overlap(x, y) {
					v = true
				}
			}
		}
		memo[[2]int{a, b}] = v
		return v
	}
	var out []api.LintFinding
	duplicates(docs, clients, paras, "paragraph", nil, &out)
	duplicates(docs, clients, lineUnits(paras), "line", sameParagraphs, &out)
	// A pair that contradicts is a contradiction, not a near-duplicate.
	conflicting := conflicts(docs, byDoc, overlap, &out)
	nearDuplicates(docs, paras, overlap, conflicting, &out)
	neverLoaded(docs, clients, byDoc, &out)
	slices.SortStableFunc(out, func(a, b api.LintFinding) int {
		if c := cmp.Compare(ruleRank[a.RuleID], ruleRank[b.RuleID]); c != 0 {
			return c
		}
		for i := 0; i < len(a.Locations) && i < len(b.Locations); i++ {
			if c := cmp.Compare(a.Locations[i].File, b.Locations[i].File); c != 0 {
				return c
			}
			if c := cmp.Compare(a.Locations[i].Line, b.Locations[i].Line); c != 0 {
				return c
			}
		}
		return cmp.Compare(deref(a.Client), deref(b.Client))
	})
	return out
}

var ruleRank = map[string]int{RuleConflict: 0, RuleNeverLoaded: 1, RuleDuplicate: 2, RuleNearDuplicate: 3}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// distinct keeps one doc per real file: the first by path, with the
// paths and the client views of every place it is read at.
func distinct(docs []Doc) []Doc {
	docs = slices.Clone(docs)
	slices.SortStableFunc(docs, func(a, b Doc) int { return cmp.Compare(a.File, b.File) })
	at := map[string]int{}
	var out []Doc
	for _, d := range docs {
		i, ok := at[d.real()]
		if !ok {
			at[d.real()] = len(out)
			out = append(out, d)
			continue
		}
		o := &out[i]
		o.Paths = union(o.Paths, d.Paths)
		views := make(map[string]View, len(o.Views))
		for c, v := range o.Views {
			views[c] = v
		}
		for c, v := range d.Views {
			w := views[c]
			if !w.Loaded && v.Loaded {
				w.Load, w.Reason, w.Loaded = v.Load, v.Reason, true
			}
			w.With = union(w.With, v.With)
			views[c] = w
		}
		o.Views = views
	}
	return out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// words are the lower-cased words and numbers of s, Markdown marks and
// punctuation set aside ("`pnpm install`" and "pnpm install." are equal);
// dots, dashes, plus and hash signs inside a word stay (1.22, node.js, c#).
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '-' && r != '+' && r != '#'
	}) {
		if w = strings.Trim(w, ".-"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// locate is a finding's location at the first line of p in doc d.
func locate(docs []Doc, p para) api.LintLocation {
	return api.LintLocation{File: docs[p.doc].real(), Line: p.p.Line[0]}
}
