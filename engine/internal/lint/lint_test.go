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

// TestSameScope: "**" and "**/*" alike, order and repeats aside.
func TestSameScope(t *testing.T) {
	if !sameScope([]string{"**/*", "a/**"}, []string{"a/**", "**", "a/**"}) || sameScope([]string{"**"}, []string{"docs/**"}) {
		t.Fatal("sameScope")
	}
}

// TestDuplicateClients: a paragraph in the root and two nested AGENTS.md
// files: a client that has the root with each nested one in a context
// (Codex's chain) reads one copy too many, never two — the siblings are
// never in one context; a client that loads only the nearest file
// (Copilot) reads none twice.
func TestDuplicateClients(t *testing.T) {
	para := "Every handler validates its input and answers a typed error when it is wrong."
	loaded := func(with ...string) View { return View{Load: "always", Loaded: true, With: with} }
	docs := []Doc{
		{File: "AGENTS.md", Paths: []string{"**"}, Markdown: "# Root\n\n" + para + "\n",
			Views: map[string]View{"codex": loaded(), "copilot": loaded()}},
		{File: "svc/AGENTS.md", Paths: []string{"svc/**"}, Markdown: "# Svc\n\nOther words here.\n\n" + para + "\n",
			Views: map[string]View{"codex": loaded("AGENTS.md"), "copilot": loaded()}},
		{File: "web/AGENTS.md", Paths: []string{"web/**"}, Markdown: "# Web\n\n" + para + "\n",
			Views: map[string]View{"codex": loaded("AGENTS.md"), "copilot": loaded()}},
	}
	var got []string
	for _, f := range Check(docs, []string{"codex", "copilot"}) {
		if f.RuleID != RuleDuplicate {
			t.Fatalf("unexpected %s: %s", f.RuleID, f.Message)
		}
		var at []string
		for _, l := range f.Locations {
			at = append(at, l.File+":"+strconv.Itoa(l.Line))
		}
		got = append(got, deref(f.Client)+" "+strconv.Itoa(*f.BytesWasted)+" "+strings.Join(at, ","))
	}
	want := []string{"codex 78 AGENTS.md:3,svc/AGENTS.md:5,web/AGENTS.md:3"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
