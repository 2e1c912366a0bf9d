package entry

import (
	"reflect"
	"testing"
)

var claudeSrc = Source{Kind: "convention", Dir: "", Style: StyleClaude, ReadOnly: true}

func TestClaudeFiles(t *testing.T) {
	for _, c := range []struct {
		name, rel, in string
		src           Source
		id, title     string
		paths         []string
		body          string
		private       bool
	}{
		{name: "root CLAUDE.md governs everything", rel: "CLAUDE.md", in: "# Project\n\nRun make.\n", src: claudeSrc,
			id: "CLAUDE", title: "Project", paths: []string{"**"}, body: "Run make."},
		{name: "nested CLAUDE.md read by an agents source", rel: "services/api/CLAUDE.md", in: "## API\n", src: agentsSrc,
			id: "services/api/CLAUDE", title: "API", paths: []string{"services/api/**"}},
		{name: ".claude/CLAUDE.md governs its parent", rel: "web/.claude/CLAUDE.md", in: "Use pnpm.\n", src: claudeSrc,
			id: "web/.claude/CLAUDE", title: "CLAUDE.md (web/.claude/)", paths: []string{"web/**"}, body: "Use pnpm."},
		{name: "root .claude/CLAUDE.md", rel: ".claude/CLAUDE.md", in: "x\n", src: claudeSrc,
			id: ".claude/CLAUDE", title: "CLAUDE.md (.claude/)", paths: []string{"**"}, body: "x"},
		{name: "rule with a paths list", rel: ".claude/rules/api/go.md", src: claudeSrc,
			in: "---\npaths:\n  - \"src/**/*.go\"\n  - '**/go.mod'\n---\n# Go\n\nWrap errors.\n",
			id: ".claude/rules/api/go", title: "Go", paths: []string{"src/**/*.go", "**/go.mod"}, body: "Wrap errors."},
		{name: "rule with a paths string; another tool's globs ignored", rel: ".claude/rules/ts.md", src: claudeSrc,
			in: "---\napplyTo: '**/*.ts'\npaths: src/**/*.{ts,tsx}, web/\nglobs: x/**\n---\nStrict mode.\n",
			id: ".claude/rules/ts", title: "ts", paths: []string{"src/**/*.{ts,tsx}", "web/**"}, body: "Strict mode."},
		{name: "rule without paths always applies", rel: ".claude/rules/style.md", src: claudeSrc,
			in: "---\ndescription: House style\n---\nBe brief.\n",
			id: ".claude/rules/style", title: "style", paths: []string{"**"}, body: "Be brief."},
		{name: "nested rule anchored at its directory", rel: "pkg/web/.claude/rules/x.md", src: claudeSrc,
			in: "---\npaths: [\"src/**\", \"!src/gen/**\", /top.ts]\n---\nX\n",
			id: "pkg/web/.claude/rules/x", title: "x", paths: []string{"pkg/web/src/**", "!pkg/web/src/gen/**", "pkg/web/top.ts"}, body: "X"},
		{name: "nested rule without paths", rel: "pkg/.claude/rules/y.md", src: claudeSrc, in: "Y\n",
			id: "pkg/.claude/rules/y", title: "y", paths: []string{"pkg/**"}, body: "Y"},
		{name: "CLAUDE.local.md is private", rel: "CLAUDE.local.md", in: "Mine.\n", src: claudeSrc,
			id: "CLAUDE.local", title: "CLAUDE.local.md", paths: []string{"**"}, body: "Mine.", private: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, diags := parseOK(t, c.rel, c.in, c.src)
			if len(diags) != 0 {
				t.Errorf("diags %+v", diags)
			}
			if e.ID != c.id || e.Title != c.title || !reflect.DeepEqual(e.Paths, c.paths) || e.Body != c.body {
				t.Errorf("got id %q title %q paths %q body %q", e.ID, e.Title, e.Paths, e.Body)
			}
			if e.Style != StyleClaude || e.Extra["source_style"] != StyleClaude || !e.ReadOnly || e.Status != "active" || e.Kind != "convention" {
				t.Errorf("style %q extra %v readonly %v status %q", e.Style, e.Extra, e.ReadOnly, e.Status)
			}
			if want := map[bool]string{true: "private", false: "team"}[c.private]; e.Visibility != want {
				t.Errorf("visibility %q, want %q", e.Visibility, want)
			}
		})
	}
	// CLAUDE.md's own "paths" key scopes nothing: only rules have paths.
	e, _ := parseOK(t, "web/CLAUDE.md", "---\npaths: src/**\n---\nx\n", claudeSrc)
	if !eq(e.Paths, []string{"web/**"}) || e.Extra["paths"] != "src/**" {
		t.Errorf("paths %q extra %v", e.Paths, e.Extra)
	}
	// AGENTS.md keeps its style in an agents source.
	if e, _ := parseOK(t, "AGENTS.md", "x\n", agentsSrc); e.Style != StyleAgents {
		t.Errorf("AGENTS.md style %q", e.Style)
	}
}

func TestClaudeImports(t *testing.T) {
	in := "# Rules\n\nSee @AGENTS.md and @docs/guide.md, and (@../shared/x.md).\n" +
		"Ask @alice; use @types/node; mail a@b.md; `@code.md` is code.\n\n" +
		"```\n@fenced.md\n```\n\n    @indented.md\n\n<!-- @comment.md -->\n\n" +
		"- @~/.claude/mine.md\n- @/etc/x.md\n- @../../../out.md\n- @AGENTS.md again\n"
	e, diags := parseOK(t, "svc/api/CLAUDE.md", in, claudeSrc)
	want := []TypedLink{
		{Type: LinkImports, Target: "svc/api/AGENTS.md", Text: "@AGENTS.md"},
		{Type: LinkImports, Target: "svc/api/docs/guide.md", Text: "@docs/guide.md"},
		{Type: LinkImports, Target: "svc/shared/x.md", Text: "@../shared/x.md"},
	}
	if !reflect.DeepEqual(e.Links, want) {
		t.Errorf("links %+v", e.Links)
	}
	var ignored []int
	for _, d := range diags {
		if d.Code != CodeIgnoredImport || d.Severity != "info" {
			t.Errorf("diag %+v", d)
		}
		ignored = append(ignored, d.Line)
	}
	if !reflect.DeepEqual(ignored, []int{14, 15, 16}) {
		t.Errorf("ignored-import lines %v (%+v)", ignored, diags)
	}
	if ImportsOnly(e) {
		t.Error("a longer body is no alias")
	}
	// Cursor and Copilot rules have no imports.
	if e, _ := parseOK(t, ".cursor/rules/a.mdc", "@AGENTS.md\n", cursorSrc); len(e.Links) != 0 {
		t.Errorf("cursor links %+v", e.Links)
	}
}

func TestImportsOnly(t *testing.T) {
	for in, want := range map[string]bool{
		"@AGENTS.md\n": true,
		"\n<!-- kept in sync -->\n@AGENTS.md\n\n": true,
		"@AGENTS.md @docs/x.md\n":                 true,
		"---\ndescription: x\n---\n@AGENTS.md\n":  true,
		"<!--\nmulti\nline\n-->\n@AGENTS.md":      true,
		"# Title\n@AGENTS.md\n":                   false,
		"@AGENTS.md\nAlso run make.\n":            false,
		"Read @AGENTS.md\n":                       false,
		"`@AGENTS.md`\n":                          false,
		"just text\n":                             false,
	} {
		e, _ := parseOK(t, "CLAUDE.md", in, claudeSrc)
		if got := ImportsOnly(e); got != want {
			t.Errorf("ImportsOnly(%q) = %v, links %+v", in, got, e.Links)
		}
	}
}
