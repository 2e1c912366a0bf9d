package lint

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLineFacts: the closed set of facts a line states, and the lines
// that only look like they state one.
func TestLineFacts(t *testing.T) {
	cases := []struct {
		line string
		want []string // key=value
	}{
		{"Install dependencies with `pnpm install`.", []string{"tool:JavaScript package manager=pnpm"}},
		{"Run `npm run build` first.", []string{"tool:JavaScript package manager=npm"}},
		{"Publish the package to the npm registry.", nil},                                // a noun, not a command
		{"Do not use yarn; use pnpm for every script.", []string{"rule:use yarn=never"}}, // negated: no tool fact
		{"Use pnpm or yarn.", nil},              // two of one family
		{"Migrating from Jest to Vitest.", nil}, // a migration
		{"Unit tests use Vitest.", []string{"tool:JavaScript test runner=vitest"}},
		{"The service targets Node 20.", []string{"version:Node.js=20"}},
		{"Node.js v22.1 in CI.", []string{"version:Node.js=22.1"}},
		{"Node 18+ is enough.", nil},            // a floor
		{"Supports Python 3.11 and 3.12.", nil}, // a range
		{"Build with Go 1.23.", []string{"version:Go=1.23"}},
		{"Go 2 levels up from here.", nil}, // prose, not Go
		{"Always squash commits before merging.", []string{"rule:squash commits before merging=always"}},
		{"Never squash the commits before merging!", []string{"rule:squash commits before merging=never"}},
		{"Don't panic.", nil},              // one word
		{"Tests should always pass.", nil}, // one word
	}
	for _, c := range cases {
		var got []string
		for _, f := range lineFacts(c.line) {
			got = append(got, f.key+"="+f.value)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.line, got, c.want)
		}
	}
}

// TestAgree: versions agree when one refines the other.
func TestAgree(t *testing.T) {
	v := func(s string) fact { return fact{key: "version:Node.js", value: s} }
	for _, c := range []struct {
		a, b string
		want bool
	}{{"20", "20.11", true}, {"20.11", "20", true}, {"20", "22", false}, {"1.2", "1.22", false}, {"3", "3", true}} {
		if got := agree(v(c.a), v(c.b)); got != c.want {
			t.Errorf("agree(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// TestStyleLoads: the client table by file name and style.
func TestStyleLoads(t *testing.T) {
	clients := func(ls []Load) string {
		var out []string
		for _, l := range ls {
			out = append(out, l.Client+l.Nearest)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		file, style string
		paths       []string
		extra       map[string]any
		want        string
	}{
		{"AGENTS.md", "agents", []string{"**"}, nil, "codex cursor copilotAGENTS.md"},
		{"svc/AGENTS.md", "agents", []string{"svc/**"}, nil, "codex cursor copilotAGENTS.md"},
		{"CLAUDE.md", "claude", []string{"**"}, nil, "claude copilot"},
		{"svc/CLAUDE.md", "claude", []string{"svc/**"}, nil, "claude"},
		{".claude/rules/go.md", "claude", []string{"**/*.go"}, nil, "claude"},
		{"CLAUDE.local.md", "claude", []string{"**"}, nil, ""},
		{".cursor/rules/a.mdc", "cursor", []string{"src/**"}, nil, "cursor"},
		{".cursor/rules/manual.mdc", "cursor", nil, nil, ""},
		{".github/instructions/a.instructions.md", "copilot", []string{"**"}, map[string]any{"excludeAgent": "code-review"}, "copilot"},
		{".github/instructions/b.instructions.md", "copilot", []string{"**"}, map[string]any{"excludeAgent": "cloud-agent"}, "copilot-review"},
		{".github/copilot-instructions.md", "copilot", []string{"**"}, nil, "copilot copilot-review"},
	} {
		if got := clients(StyleLoads(c.file, c.style, c.paths, c.extra)); got != c.want {
			t.Errorf("%s: %q, want %q", c.file, got, c.want)
		}
	}
}

// TestSameScope: "**" and "**/*" alike, order and repeats aside.
func TestSameScope(t *testing.T) {
	if !sameScope([]string{"**/*", "a/**"}, []string{"a/**", "**", "a/**"}) || sameScope([]string{"**"}, []string{"docs/**"}) {
		t.Fatal("sameScope")
	}
}

// TestDuplicateClients: a paragraph in the root and a nested AGENTS.md is
// read twice by Codex and Cursor (both files load), not by Copilot (the
// nearest AGENTS.md only); the bytes wasted are one copy's.
func TestDuplicateClients(t *testing.T) {
	para := "Every handler validates its input and answers a typed error when it is wrong."
	docs := []Doc{
		{File: "AGENTS.md", Style: "agents", Paths: []string{"**"}, Markdown: "# Root\n\n" + para + "\n"},
		{File: "svc/AGENTS.md", Style: "agents", Paths: []string{"svc/**"}, Markdown: "# Svc\n\nOther words here.\n\n" + para + "\n"},
		{File: "web/AGENTS.md", Style: "agents", Paths: []string{"web/**"}, Markdown: "# Web\n\n" + para + "\n"},
	}
	for i := range docs {
		docs[i].Loads = StyleLoads(docs[i].File, docs[i].Style, docs[i].Paths, nil)
	}
	var got []string
	for _, f := range Check(docs) {
		if f.RuleID != RuleDuplicate {
			t.Fatalf("unexpected %s: %s", f.RuleID, f.Message)
		}
		var at []string
		for _, l := range f.Locations {
			at = append(at, l.File+":"+strconv.Itoa(l.Line))
		}
		got = append(got, deref(f.Client)+" "+strconv.Itoa(*f.BytesWasted)+" "+strings.Join(at, ","))
	}
	// svc and web never load together: each pairs with the root only.
	want := []string{
		"codex 78 AGENTS.md:3,svc/AGENTS.md:5,web/AGENTS.md:3",
		"cursor 78 AGENTS.md:3,svc/AGENTS.md:5,web/AGENTS.md:3",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
