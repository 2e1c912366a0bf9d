package entry

import (
	"reflect"
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
			id: ".cursor/rules/flow", title: "Rules", paths: []string{"**/*.{js,jsx}", "lib/*.js"}, body: "x",
		},
		{
			name: "bare directory", rel: ".cursor/rules/web.mdc",
			in: "---\nglobs: web/\n---\n# Web\n",
			id: ".cursor/rules/web", title: "Web", paths: []string{"web/**"},
		},
		{
			name: "alwaysApply governs everything", rel: ".cursor/rules/nested/always.mdc",
			in: "---\ndescription: \"Global: be kind\"\nglobs:\nalwaysApply: true\n---\n# Always\n",
			id: ".cursor/rules/nested/always", title: "Always", summary: "Global: be kind", paths: []string{"**"},
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
		{"services/api/CLAUDE.md", "## API\n", "services/api/CLAUDE", "API", []string{"services/api/**"}},
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
