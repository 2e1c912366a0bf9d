package entry

import (
	"reflect"
	"strings"
	"testing"
)

var (
	cursorSrc  = Source{Kind: "convention", Dir: ".cursor/rules", Style: StyleCursor, ReadOnly: true}
	copilotSrc = Source{Kind: "convention", Dir: ".github/instructions", Style: StyleCopilot, ReadOnly: true}
	agentsSrc  = Source{Kind: "convention", Dir: "", Style: StyleAgents, ReadOnly: true}
)

func TestCursorRules(t *testing.T) {
	for _, c := range []struct {
		name, rel, in string
		id, title     string
		summary       string
		paths         []string
		body          string
	}{
		{
			name: "brace group is one pattern", rel: ".cursor/rules/entitlements.mdc",
			in: "---\ndescription: Entitlement\n  checks\nglobs: **/*.{ts,tsx}, src/billing/**\nalwaysApply: false\n---\n# Entitlements\n\nAlways check.\n",
			id: ".cursor/rules/entitlements", title: "Entitlements", summary: "Entitlement checks",
			paths: []string{"**/*.{ts,tsx}", "src/billing/**"}, body: "Always check.",
		},
		{
			name: "yaml list, quoted", rel: ".cursor/rules/go.mdc",
			in: "---\nglobs:\n  - \"**/*.go\"\n  - '**/go.mod'\n---\nUse gofmt.\n",
			id: ".cursor/rules/go", title: "go", paths: []string{"**/*.go", "**/go.mod"}, body: "Use gofmt.",
		},
		{
			name: "flow list with unquoted globs", rel: ".cursor/rules/flow.mdc",
			in: "---\nglobs: [**/*.{js,jsx}, lib/*.js]\n---\n## Rules\n\nx\n",
			id: ".cursor/rules/flow", title: "flow", paths: []string{"**/*.{js,jsx}", "lib/*.js"}, body: "## Rules\n\nx",
		},
		{
			name: "bare directory", rel: ".cursor/rules/web.mdc",
			in: "---\nglobs: web/\n---\n# Web\n",
			id: ".cursor/rules/web", title: "Web", paths: []string{"web/**"},
		},
		{
			name: "alwaysApply governs everything", rel: ".cursor/rules/nested/always.mdc",
			in: "---\ndescription: \"Global: be kind\"\nglobs:\nalwaysApply: true\n---\n# Always\n",
			id: ".cursor/rules/nested/always", title: "Global: be kind", summary: "Global: be kind", paths: []string{"**"}, body: "# Always",
		},
		{
			name: "a generic heading loses to the description", rel: ".cursor/rules/billing.mdc",
			in: "---\ndescription: Billing amounts are integer cents\nglobs: src/billing/**\n---\n## Implementation\n\nUse int64.\n",
			id: ".cursor/rules/billing", title: "Billing amounts are integer cents", summary: "Billing amounts are integer cents",
			paths: []string{"src/billing/**"}, body: "## Implementation\n\nUse int64.",
		},
		{
			name: "a long description gives way to the level-1 heading", rel: ".cursor/rules/long.mdc",
			in: "---\ndescription: " + strings.Repeat("word ", 25) + "\n---\n# Long rules\n\nx\n",
			id: ".cursor/rules/long", title: "Long rules", summary: strings.TrimSpace(strings.Repeat("word ", 25)), paths: []string{}, body: "x",
		},
		{
			name: "legacy .cursorrules governs everything", rel: ".cursorrules",
			in: "Prefer small functions.\n",
			id: ".cursorrules", title: ".cursorrules", paths: []string{"**"}, body: "Prefer small functions.",
		},
		{
			name: "no frontmatter, no paths", rel: ".cursor/rules/manual.mdc",
			in: "Only when asked.\n",
			id: ".cursor/rules/manual", title: "manual", paths: []string{}, body: "Only when asked.",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, diags := parseOK(t, c.rel, c.in, cursorSrc)
			if len(diags) != 0 {
				t.Errorf("diags %+v", diags)
			}
			if e.ID != c.id || e.Title != c.title || e.Summary != c.summary || !eq(e.Paths, c.paths) || e.Body != c.body {
				t.Errorf("got id %q title %q summary %q paths %q body %q", e.ID, e.Title, e.Summary, e.Paths, e.Body)
			}
			if e.Status != "active" || !e.ReadOnly || e.Kind != "convention" || e.Extra["source_style"] != StyleCursor {
				t.Errorf("status/readonly/kind/extra: %+v", e)
			}
		})
	}
}

func TestCursorUnclosedFrontmatter(t *testing.T) {
	e, diags := Parse(".cursor/rules/x.mdc", []byte("---\nglobs: *.ts\n# X\n"), cursorSrc)
	if e != nil || len(diags) != 1 || diags[0].Code != CodeBadFrontmatter {
		t.Errorf("%v %+v", e, diags)
	}
}

func TestCopilotInstructions(t *testing.T) {
	in := "---\napplyTo: \"**/*.go,**/*.{mod,sum}\"\ndescription: Go rules\nexcludeAgent: code-review\n---\nWrap errors.\n"
	e, _ := parseOK(t, ".github/instructions/go.instructions.md", in, copilotSrc)
	if e.ID != ".github/instructions/go.instructions" || e.Title != "go" || e.Summary != "Go rules" ||
		!eq(e.Paths, []string{"**/*.go", "**/*.{mod,sum}"}) || e.Extra["excludeAgent"] != "code-review" ||
		e.Extra["source_style"] != StyleCopilot || !e.ReadOnly || e.Body != "Wrap errors." {
		t.Errorf("%+v", e)
	}
}

func TestAgentsFiles(t *testing.T) {
	for _, c := range []struct {
		rel, in, id, title string
		paths              []string
	}{
		{"AGENTS.md", "# Repo rules\n\nRun make.\n", "AGENTS", "Repo rules", []string{"**"}},
		{"web/AGENTS.md", "Use pnpm.\n", "web/AGENTS", "AGENTS.md (web/)", []string{"web/**"}},
	} {
		e, _ := parseOK(t, c.rel, c.in, agentsSrc)
		if e.ID != c.id || e.Title != c.title || !reflect.DeepEqual(e.Paths, c.paths) ||
			e.Status != "active" || !e.ReadOnly || e.Extra["source_style"] != StyleAgents {
			t.Errorf("%s: %+v", c.rel, e)
		}
	}
}

func TestSplitPatterns(t *testing.T) {
	for in, want := range map[string][]string{
		"**/*.{ts,tsx}":             {"**/*.{ts,tsx}"},
		"a/**, b/**":                {"a/**", "b/**"},
		"{a,b}/**/*.{x,y},c":        {"{a,b}/**/*.{x,y}", "c"},
		"src/[a,b]*.go, web/":       {"src/[a,b]*.go", "web/**"},
		" 'x/**' , \"y/*\" ,, ":     {"x/**", "y/*"},
		"":                          nil,
		"**/*.{ts,{tsx,jsx}},docs/": {"**/*.{ts,{tsx,jsx}}", "docs/**"},
	} {
		if got := splitPatterns(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitPatterns(%q) = %q want %q", in, got, want)
		}
	}
}

func TestCursorAlwaysApplyKeepsGlobs(t *testing.T) {
	e, _ := parseOK(t, ".cursor/rules/a.mdc", "---\nglobs: src/**, web/**\nalwaysApply: true\n---\n# A\n", cursorSrc)
	if !eq(e.Paths, []string{"**"}) || !reflect.DeepEqual(e.Extra["globs"], []any{"src/**", "web/**"}) {
		t.Fatalf("paths %q extra %v", e.Paths, e.Extra)
	}
	e, _ = parseOK(t, ".cursor/rules/b.mdc", "---\nalwaysApply: false\n---\n# B\n", cursorSrc)
	if len(e.Paths) != 0 {
		t.Fatalf("alwaysApply false without globs: paths %q", e.Paths)
	}
}

func TestCopilotRepoWideFile(t *testing.T) {
	src := Source{Kind: "convention", Dir: ".github", Style: StyleCopilot, ReadOnly: true}
	if !IsRecordFile(".github/copilot-instructions.md", src) || IsRecordFile(".github/workflows/ci.md", src) {
		t.Fatal("IsRecordFile")
	}
	e, _ := parseOK(t, ".github/copilot-instructions.md", "# Team rules\n\nBe brief.\n", src)
	if e.ID != ".github/copilot-instructions" || !eq(e.Paths, []string{"**"}) || e.Title != "Team rules" {
		t.Fatalf("got %q %q %q", e.ID, e.Paths, e.Title)
	}
}
