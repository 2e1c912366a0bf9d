package engine_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

// TestClientEnums: the client enums of the inputs' schemas are the
// clients of the loading-rules table, in its order (the table is the one
// list; the tags must not drift from it).
func TestClientEnums(t *testing.T) {
	var want []string
	for _, c := range engine.ClientRules() {
		want = append(want, "enum="+c.Name)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[api.GoverningInput](), reflect.TypeFor[api.CostInput]()} {
		f, ok := typ.FieldByName("Client")
		if !ok {
			t.Fatalf("%s has no Client field", typ)
		}
		if got := strings.Split(f.Tag.Get("jsonschema"), ","); !reflect.DeepEqual(got, want) {
			t.Errorf("%s.Client enum %v, want %v (engine/clients.go clientTable)", typ, got, want)
		}
	}
}

func loadsOf(r *api.GoverningResult) map[string]string {
	out := map[string]string{}
	for _, e := range r.Entries {
		out[e.File] = e.Load + ": " + e.Reason
	}
	return out
}

// TestClientRules: the rules the fixture of native/clients_test.go does
// not reach — Codex skips an empty file, excludeAgent "cloud-agent" keeps
// a file from the coding agent only, a context.fileName Gemini names that
// kontext does not read is said, so is an import of a file kontext does not
// read, and exclude_ids drops loaded entries too.
func TestClientRules(t *testing.T) {
	e, _ := memEngine(t, map[string]string{
		".kontext.toml":                          "version = 1\n[kinds.convention]\ndir = \".ai/conventions\"\n[[kinds.convention.include]]\ndir = \"a/.cursor/rules\"\nstyle = \"cursor\"\n[[kinds.convention.include]]\ndir = \".\"\nstyle = \"agents\"\n[[kinds.convention.include]]\ndir = \".github\"\nstyle = \"copilot\"\n",
		"AGENTS.md":                              "\n \n",
		"a/AGENTS.md":                            "# A\n\nModule a.\n",
		"GEMINI.md":                              "# Gemini\n\nBrief.\n",
		"CLAUDE.md":                              "# Claude\n\nSee @notes/setup.md for the setup.\n",
		"notes/setup.md":                         "# Setup\n\nmake setup\n",
		"b/CLAUDE.md":                            "# B\n\nModule b keeps its own rules.\n",
		"b/AGENTS.md":                            "@CLAUDE.md\n",
		"a/.cursor/rules/a.mdc":                  "---\nalwaysApply: true\n---\n# A rule\n\nOnly in a.\n",
		".github/instructions/a.instructions.md": "---\napplyTo: \"a/**\"\nexcludeAgent: \"cloud-agent\"\n---\n# A\n\nTest a.\n",
		".gemini/settings.json":                  `{"context": {"fileName": "CONTEXT.md"}}`,
	})
	ctx := context.Background()
	ask := func(client, cwd string, exclude ...string) *api.GoverningResult {
		t.Helper()
		r, err := e.Governing(ctx, &api.GoverningInput{Paths: []string{"a/x.go"}, Client: client, Cwd: cwd, ExcludeIDs: exclude})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	codex := loadsOf(ask("codex", "a"))
	if got := codex["AGENTS.md"]; !strings.HasPrefix(got, "not-loaded: empty") {
		t.Errorf("codex, empty AGENTS.md: %q", got)
	}
	if got := codex["a/AGENTS.md"]; !strings.HasPrefix(got, "always:") {
		t.Errorf("codex, a/AGENTS.md from a: %q", got)
	}
	if got := loadsOf(ask("copilot", ""))[".github/instructions/a.instructions.md"]; got != `not-loaded: excludeAgent: "cloud-agent"` {
		t.Errorf("copilot, excludeAgent cloud-agent: %q", got)
	}
	if got := loadsOf(ask("copilot-review", ""))[".github/instructions/a.instructions.md"]; !strings.HasPrefix(got, "auto:") {
		t.Errorf("copilot-review, excludeAgent cloud-agent: %q", got)
	}
	g := ask("gemini", "")
	if got := loadsOf(g)["GEMINI.md"]; got != "not-loaded: gemini does not read GEMINI.md" {
		t.Errorf("gemini with context.fileName CONTEXT.md, GEMINI.md: %q", got)
	}
	if notes := strings.Join(g.Client.Notes, "\n"); !strings.Contains(notes, "names CONTEXT.md, which kontext does not read") {
		t.Errorf("gemini notes %q", notes)
	}
	cl := ask("claude", "")
	if got := loadsOf(cl)["CLAUDE.md"]; !strings.HasPrefix(got, "always:") {
		t.Errorf("claude, CLAUDE.md: %q", got)
	}
	if notes := strings.Join(cl.Client.Notes, "\n"); !strings.Contains(notes, "CLAUDE.md imports notes/setup.md, which is not a knowledge file kontext reads") {
		t.Errorf("claude notes %q", notes)
	}
	// A nested .cursor/rules applies to its folder only.
	if got := loadsOf(ask("cursor", ""))["a/.cursor/rules/a.mdc"]; got != "always: alwaysApply: true" {
		t.Errorf("cursor, a/.cursor/rules for a/x.go: %q", got)
	}
	if r, err := e.Governing(ctx, &api.GoverningInput{Paths: []string{"b/x.go"}, Client: "cursor"}); err != nil || !strings.HasPrefix(loadsOf(r)["a/.cursor/rules/a.mdc"], "not-loaded: a nested .cursor/rules") {
		t.Errorf("cursor, a/.cursor/rules for b/x.go: %v %v", loadsOf(r), err)
	}
	// b/AGENTS.md only imports b/CLAUDE.md: Codex loads the alias's own
	// text (it follows no import), Claude the entry.
	cost, err := e.Cost(ctx, &api.CostInput{Paths: []string{"b/x.go"}, Cwd: "b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cost.Clients {
		switch c.Client {
		case "codex":
			if len(c.Top) != 1 || c.Top[0].File != "b/CLAUDE.md" || c.Bytes != len("@CLAUDE.md\n") {
				t.Errorf("codex cost through the alias b/AGENTS.md: %+v", c)
			}
		case "claude":
			if c.Bytes != len("# B\n\nModule b keeps its own rules.\n")+len("# Claude\n\nSee @notes/setup.md for the setup.\n") {
				t.Errorf("claude cost from b: %+v", c)
			}
		}
	}
	if got := loadsOf(ask("codex", "a", "a/AGENTS")); got["a/AGENTS.md"] != "" {
		t.Errorf("exclude_ids kept a/AGENTS.md: %v", got)
	}
}
