package drafts

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

// Template is the body a person starts a new entry from (the CLI opens it
// in $EDITOR): the sections of the style the kind's directory is written
// in. Guidance lines are HTML comments (Guidance lists them), which the
// caller drops again; Style is frontmatter, nygard or madr.
type Template struct {
	Style    string
	Body     string
	Guidance []string
}

// madrRE finds the marks of a MADR record: its section names, or a
// "* Status:" bullet.
var madrRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)^(##\s+(context and problem statement|considered options|decision outcome|decision drivers)\s*$|[*-]\s+status:)`)
})

// NewTemplate returns the body template of a new entry of kind. A decision
// log in the ADR style gets Nygard's sections (Context, Decision,
// Consequences), or MADR's when the log's newest record is a MADR one;
// frontmatter-style kinds get sections that fit the kind.
func NewTemplate(ctx context.Context, e *engine.Engine, kind string) (*Template, error) {
	k, ok := entry.NormalizeKind(kind)
	if !ok {
		return nil, jsonin.Errorf("entry.kind", "unknown kind %q; use decision (or adr), convention, learning, incident or architecture", kind)
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	kc := st.Cfg.Kinds[k]
	if kc == nil {
		return nil, jsonin.Errorf("entry.kind", "kind %q is not configured", k)
	}
	style := "frontmatter"
	if kc.Style == entry.StyleADR {
		style = "nygard"
		newest := ""
		for _, en := range st.Snap.Entries() {
			if en.Style == entry.StyleADR && en.Kind == k && strings.HasPrefix(en.File, kc.Dir+"/") && en.File > newest {
				newest = en.File
				if madrRE().MatchString(en.Markdown) {
					style = "madr"
				} else {
					style = "nygard"
				}
			}
		}
	}
	var sections [][2]string // heading ("" for none), guidance
	switch {
	case style == "madr":
		sections = [][2]string{
			{"## Context and Problem Statement", "Describe the context and the problem in two or three sentences; a question works well."},
			{"## Decision Drivers", "The forces and concerns that matter (optional; delete the section when there are none)."},
			{"## Considered Options", "One bullet per option: * Option 1, * Option 2, …"},
			{"## Decision Outcome", "Chosen option: \"…\", because … (the justification)."},
			{"### Consequences", "* Good, because …  * Bad, because …"},
		}
	case style == "nygard" || k == "decision":
		sections = [][2]string{
			{"## Context", "What is the issue that motivates this decision? The forces at play, as facts."},
			{"## Decision", "What we will do, in full sentences: \"We will …\"."},
			{"## Consequences", "What becomes easier or harder because of this change."},
		}
	case k == "incident":
		sections = [][2]string{
			{"## What happened", "A short timeline: when it started, when it was noticed, when it ended."},
			{"## Impact", "Who or what was affected, and how much."},
			{"## Cause", "Why it happened."},
			{"## What we changed", "The fixes, and the rule that keeps it from happening again."},
		}
	case k == "convention":
		sections = [][2]string{{"", "The rule in one or two sentences, then why, and a short example of doing it right."}}
	case k == "learning":
		sections = [][2]string{{"", "What we learned, how we found out, and what to do differently."}}
	default:
		sections = [][2]string{{"", "How this part of the system is built and why; name the files and boundaries it covers."}}
	}
	t := &Template{Style: style}
	var b strings.Builder
	for i, s := range sections {
		if i > 0 {
			b.WriteString("\n")
		}
		if s[0] != "" {
			b.WriteString(s[0] + "\n\n")
		}
		c := "<!-- " + s[1] + " -->"
		t.Guidance = append(t.Guidance, c)
		b.WriteString(c + "\n")
	}
	t.Body = b.String()
	return t, nil
}
