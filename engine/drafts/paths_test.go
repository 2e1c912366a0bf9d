package drafts_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
)

const adr1 = `# 1. Record architecture decisions

Date: 2024-01-02

## Status

Accepted

## Context

We need to record the architectural decisions made on this project.

## Decision

We will use Architecture Decision Records.

## Consequences

See Michael Nygard's article.
`

const adr2 = `# 2. Use Postgres

Date: 2024-02-03

## Status

Accepted

## Context

We need a database.

## Decision

We will use Postgres for src/db.

## Consequences

Migrations live in src/db/migrations.
`

// adrRepo is a repository with an adr-tools log adopted by setup.
func adrRepo(t *testing.T) (*engine.Engine, *fakeWriter) {
	t.Helper()
	e, w := open(t)
	for name, text := range map[string]string{
		".adr-dir": "doc/adr\n",
		"doc/adr/0001-record-architecture-decisions.md": adr1,
		"doc/adr/0002-use-postgres.md":                  adr2,
	} {
		if err := util.WriteFile(w.fs, name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	call(t, e, "setup", `{}`)
	w.written, w.staged = nil, nil
	return e, w
}

func errOf(t *testing.T, e *engine.Engine, op, input string) (code, msg string) {
	t.Helper()
	var env struct {
		OK    bool `json:"ok"`
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(e.Request(context.Background(), op, []byte(input)), &env); err != nil {
		t.Fatal(err)
	}
	if env.OK {
		t.Fatalf("%s %s succeeded", op, input)
	}
	return env.Error.Code, env.Error.Message
}

func TestSetPathsWritesOnlyTheOverlay(t *testing.T) {
	e, w := adrRepo(t)
	before, _ := util.ReadFile(w.fs, "doc/adr/0002-use-postgres.md")
	res := call(t, e, "drafts.set_paths", `{"operation_id":"p-1","entry_id":"2","add":["src/db/**","*.sql"]}`)
	if res["path"] != ".ai/paths.toml" || res["staged"] != true || res["replayed"] != false || res["key"] != "0002-use-postgres" {
		t.Fatalf("set_paths: %v", res)
	}
	if got := res["overlay_paths"].([]any); len(got) != 2 || got[0] != "src/db/**" || got[1] != "*.sql" {
		t.Fatalf("overlay_paths %v", got)
	}
	en := res["entry"].(map[string]any)
	if en["paths_source"] != "overlay" || len(en["paths"].([]any)) != 2 {
		t.Fatalf("entry %v", en)
	}
	notes := strings.Join(toStrings(res["notes"]), "\n")
	if !strings.Contains(notes, `"**/*.sql" to match at any depth`) {
		t.Fatalf("no root-only hint: %s", notes)
	}
	if !slices.Equal(w.written, []string{".ai/paths.toml"}) || !slices.Equal(w.staged, []string{".ai/paths.toml"}) {
		t.Fatalf("written %v, staged %v", w.written, w.staged)
	}
	if after, _ := util.ReadFile(w.fs, "doc/adr/0002-use-postgres.md"); string(after) != string(before) {
		t.Fatal("the record was edited")
	}
	overlay, _ := util.ReadFile(w.fs, ".ai/paths.toml")
	if !strings.Contains(string(overlay), `"0002-use-postgres" = ["src/db/**", "*.sql"]`+"\n") || !strings.HasPrefix(string(overlay), "# ") {
		t.Fatalf("overlay:\n%s", overlay)
	}
	g := call(t, e, "entries.governing", `{"paths":["src/db/schema.go"]}`)
	if es := g["entries"].([]any); len(es) != 1 || es[0].(map[string]any)["id"] != "0002-use-postgres" {
		t.Fatalf("governing: %v", g)
	}

	// A retry replays; the same id with another request conflicts.
	if again := call(t, e, "drafts.set_paths", `{"operation_id":"p-1","entry_id":"2","add":["src/db/**","*.sql"]}`); again["replayed"] != true || len(w.staged) != 1 {
		t.Fatalf("retry: %v, staged %v", again, w.staged)
	}
	if code, _ := errOf(t, e, "drafts.set_paths", `{"operation_id":"p-1","entry_id":"2","add":["lib/**"]}`); code != "operation_conflict" {
		t.Fatalf("same id, other input: %s", code)
	}

	// Adding what is there changes nothing and stages nothing.
	same := call(t, e, "drafts.set_paths", `{"operation_id":"p-2","entry_id":"0002-use-postgres","add":["src/db/**"]}`)
	if same["staged"] != false || len(w.written) != 1 {
		t.Fatalf("no-op add: %v, written %v", same, w.written)
	}

	// A hand-written comment and another key keep their bytes.
	hand := strings.Replace(string(overlay), "[paths]\n", "[paths]\n# by hand\n\"0001-record-architecture-decisions\" = [\"doc/**\"] # docs\n", 1)
	util.WriteFile(w.fs, ".ai/paths.toml", []byte(hand), 0o644)
	e.Forget()
	call(t, e, "drafts.set_paths", `{"operation_id":"p-3","entry_id":"doc/adr/0002-use-postgres.md","remove":["*.sql"]}`)
	got, _ := util.ReadFile(w.fs, ".ai/paths.toml")
	if want := strings.Replace(hand, `["src/db/**", "*.sql"]`, `["src/db/**"]`, 1); string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}

	// Removing the last glob removes the key.
	res = call(t, e, "drafts.set_paths", `{"operation_id":"p-4","entry_id":"2","remove":["src/db/**"]}`)
	if len(res["overlay_paths"].([]any)) != 0 || res["entry"].(map[string]any)["paths_source"] != "file" {
		t.Fatalf("remove all: %v", res)
	}
	got, _ = util.ReadFile(w.fs, ".ai/paths.toml")
	if strings.Contains(string(got), "0002") || !strings.Contains(string(got), "# docs") {
		t.Fatalf("overlay after removing the last glob:\n%s", got)
	}
}

func TestSetPathsErrors(t *testing.T) {
	e, w := adrRepo(t)
	call(t, e, "drafts.set_paths", `{"operation_id":"e-0","entry_id":"2","add":["src/db/**"]}`)
	w.written = nil
	for _, c := range []struct{ input, code, says string }{
		{`{"operation_id":"e-1","entry_id":"2"}`, "invalid_input", "add or remove"},
		{`{"operation_id":"e-2","entry_id":"2","add":["src/[a"]}`, "invalid_input", `"src/[a"`},
		{`{"operation_id":"e-3","entry_id":"2","remove":["lib/**"]}`, "invalid_input", `it holds "src/db/**"`},
		{`{"operation_id":"e-4","entry_id":"1","remove":["lib/**"]}`, "invalid_input", "holds no globs for 0001"},
		{`{"operation_id":"e-5","entry_id":"9","add":["lib/**"]}`, "not_found", "9"},
		{`{"operation_id":"e-6","entry_id":"2","add":["a/**"],"remove":["a/**"]}`, "invalid_input", "both added and removed"},
		{`{"entry_id":"2","add":["a/**"]}`, "invalid_input", "operation_id"},
	} {
		code, msg := errOf(t, e, "drafts.set_paths", c.input)
		if code != c.code || !strings.Contains(msg, c.says) {
			t.Errorf("%s: %s %q, want %s mentioning %q", c.input, code, msg, c.code, c.says)
		}
	}
	if len(w.written) != 0 {
		t.Fatalf("a refused write wrote %v", w.written)
	}
}

func TestSetPathsCannotRemoveWhatTheFileDeclares(t *testing.T) {
	e, w := open(t)
	call(t, e, "setup", `{}`)
	call(t, e, "drafts.stage", `{"operation_id":"s-1","entry":{"kind":"convention","title":"Tabs","body":"Tabs.","paths":["**/*.go"]}}`)
	code, msg := errOf(t, e, "drafts.set_paths", `{"operation_id":"f-1","entry_id":"2026-03-04-tabs","remove":["**/*.go"]}`)
	if code != "invalid_input" || !strings.Contains(msg, "declared by .ai/conventions/2026-03-04-tabs.md itself") {
		t.Fatalf("%s %s", code, msg)
	}
	res := call(t, e, "drafts.set_paths", `{"operation_id":"f-2","entry_id":"2026-03-04-tabs","add":["**/*.go","cmd/**"]}`)
	if res["entry"].(map[string]any)["paths_source"] != "both" || !strings.Contains(strings.Join(toStrings(res["notes"]), "\n"), "already declared by") {
		t.Fatalf("add to a file with paths: %v", res)
	}
	if got := res["overlay_paths"].([]any); len(got) != 1 || got[0] != "cmd/**" {
		t.Fatalf("overlay_paths %v (w %v)", got, w.written)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestSetPathsKeysRuleFilesByFile(t *testing.T) {
	e, w := open(t)
	rule := "---\ndescription: Release checklist\nalwaysApply: false\n---\n# Release\n\nBump the version.\n"
	if err := util.WriteFile(w.fs, ".cursor/rules/release.mdc", []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	call(t, e, "setup", `{}`)
	res := call(t, e, "drafts.set_paths", `{"operation_id":"r-1","entry_id":".cursor/rules/release.mdc","add":["scripts/release/**"]}`)
	if res["key"] != ".cursor/rules/release.mdc" || res["entry"].(map[string]any)["paths_source"] != "overlay" {
		t.Fatalf("rule file: %v", res)
	}
	if after, _ := util.ReadFile(w.fs, ".cursor/rules/release.mdc"); string(after) != rule {
		t.Fatal("the rule file was edited")
	}
	g := call(t, e, "entries.governing", `{"paths":["scripts/release/tag.sh"]}`)
	if es := g["entries"].([]any); len(es) != 1 {
		t.Fatalf("governing: %v", g)
	}
}
