package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

func memEngine(t *testing.T, files map[string]string) (*engine.Engine, func(string, string)) {
	t.Helper()
	fs := memfs.New()
	write := func(name, text string) {
		if err := util.WriteFile(fs, name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for n, txt := range files {
		write(n, txt)
	}
	e := engine.New(engine.Options{FS: fs, Surface: engine.Snapshot, Revision: "0123456789abcdef0123456789abcdef01234567"})
	return e, func(n, txt string) { write(n, txt); e.Forget(n) }
}

func decode(t *testing.T, env []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(env, &m); err != nil {
		t.Fatalf("not JSON: %s", env)
	}
	return m
}

func TestSnapshotSurface(t *testing.T) {
	e, write := memEngine(t, map[string]string{
		".ai/decisions/2026-01-10-use-cron.md": "---\nstatus: accepted\ndate: 2026-01-10\npaths: [\"src/export/**\", \"!src/export/testdata/**\"]\n---\n# Use cron\n\nBody.\n",
	})
	ctx := context.Background()
	st := decode(t, e.Request(ctx, "status", nil))["result"].(map[string]any)
	caps := st["capabilities"].([]any)
	for _, c := range caps {
		if c == "setup" {
			t.Fatal("the in-memory surface lists setup")
		}
	}
	if len(caps) != 17 { // the 10 read operations (context.brief too), view and cursor of entries.governing, .list, .search, entries.governing.client
		t.Fatalf("capabilities %v", caps)
	}
	env := decode(t, e.Request(ctx, "setup", nil))
	if env["error"].(map[string]any)["code"] != apierr.UnsupportedOperation || !strings.Contains(env["error"].(map[string]any)["message"].(string), "native CLI") {
		t.Fatalf("setup on the snapshot surface: %v", env)
	}
	env = decode(t, e.Request(ctx, "entries.list", []byte(`{"dir":"elsewhere"}`)))
	if env["error"].(map[string]any)["code"] != apierr.InvalidInput {
		t.Fatalf("dir on the snapshot surface: %v", env)
	}
	gov := func(path string) []any {
		r := decode(t, e.Request(ctx, "entries.governing", []byte(`{"paths":["`+path+`"]}`)))
		return r["result"].(map[string]any)["entries"].([]any)
	}
	got := gov("src/export/run.go")
	if len(got) != 1 {
		t.Fatalf("governing: %v", got)
	}
	pub := got[0].(map[string]any)["publication"].(map[string]any)
	if pub["state"] != "snapshot" || pub["revision"] != "0123456789abcdef0123456789abcdef01234567" || pub["blob_hash"] != got[0].(map[string]any)["revision"] {
		t.Fatalf("publication %v", pub)
	}
	if len(gov("src/export/testdata/x.json")) != 0 {
		t.Fatal("a negated pattern did not exclude")
	}
	// An update is seen after Forget, even with the same size.
	write(".ai/decisions/2026-01-10-use-cron.md", "---\nstatus: rejected\ndate: 2026-01-10\npaths: [\"src/export/**\", \"!src/export/testdata/**\"]\n---\n# Use cron\n\nBody.\n")
	if len(gov("src/export/run.go")) != 0 {
		t.Fatal("a rejected decision still governs after an update")
	}
}

// TestOperations: Operations (what the WASM engine's abi() lists, read
// without the schemas) are exactly the capabilities with an input schema.
func TestOperations(t *testing.T) {
	for _, surface := range []engine.Surface{engine.Snapshot, engine.Native} {
		e := engine.New(engine.Options{FS: memfs.New(), Surface: surface})
		want := []string{}
		for _, c := range e.Capabilities() {
			if _, op := engine.InputSchema(c); op {
				want = append(want, c)
			}
		}
		if got := e.Operations(); fmt.Sprint(got) != fmt.Sprint(want) || len(got) == 0 {
			t.Errorf("surface %v: operations %v, want the capabilities with a schema %v", surface, got, want)
		}
	}
}

func TestPanicBecomesOperationFailed(t *testing.T) {
	e := engine.New(engine.Options{FS: nil, Surface: engine.Snapshot})
	env := decode(t, e.Request(context.Background(), "entries.list", nil))
	if env["ok"] != false || env["error"].(map[string]any)["code"] != apierr.OperationFailed {
		t.Fatalf("a nil filesystem: %v", env)
	}
}

func TestPolicyInspect(t *testing.T) {
	p, err := engine.PolicyFromConfig(".ai", []byte("[[kinds.decision.include]]\ndir = \"docs/adr\"\nstyle = \"adr\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	adr := "# 7. Use PostgreSQL\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n\nSupersedes [3. Use SQLite](0003-use-sqlite.md)\n\n## Context\n\nWe need a database.\n"
	en, err := p.Inspect("docs/adr/0007-use-postgres.md", []byte(adr))
	if err != nil {
		t.Fatal(err)
	}
	if en.ID != "0007-use-postgres" || en.Kind != "decision" || en.Title != "Use PostgreSQL" || *en.Status != "accepted" || !en.Authority || en.Supersedes[0] != "0003-use-sqlite" {
		t.Fatalf("inspect: %+v", en)
	}
	proposed := "---\nstatus: proposed\n---\n# Maybe\n"
	en, err = p.Inspect(".ai/decisions/2026-01-01-maybe.md", []byte(proposed))
	if err != nil || en.Authority {
		t.Fatalf("a proposed decision has authority: %+v %v", en, err)
	}
	en, err = p.Inspect(".ai/conventions/tabs.md", []byte("---\nvisibility: private\n---\n# Tabs\n"))
	if err != nil || en.Authority {
		t.Fatalf("a private convention has authority: %+v %v", en, err)
	}
	if _, err := p.Inspect("src/main.go", []byte("package main")); apierr.CodeOf(err) != apierr.InvalidInput {
		t.Fatalf("a file outside the knowledge dirs: %v", err)
	}
	if _, err := p.Inspect("docs/adr/README.md", []byte("# ADRs")); apierr.CodeOf(err) != apierr.InvalidInput {
		t.Fatalf("an index file: %v", err)
	}
	if _, err := engine.PolicyFromConfig(".ai", []byte("nope = 1\n")); apierr.CodeOf(err) != apierr.InvalidInput {
		t.Fatalf("a bad config: %v", err)
	}
	d, err := engine.PolicyFromConfig("knowledge", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Inspect("knowledge/learnings/x.md", []byte("# X\n")); err != nil {
		t.Fatalf("defaults under another storage: %v", err)
	}
	if got := engine.ConfigCandidates(); len(got) != 2 || got[0] != ".kontext.toml" || got[1] != ".ai/kontext.toml" {
		t.Fatalf("candidates %v", got)
	}
}

// TestCursorPages: entries.list and entries.search pages followed by
// next_cursor give every entry once, in order; an edit makes the cursor
// stale; a cursor of another question is invalid_input.
func TestCursorPages(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 7; i++ {
		files[fmt.Sprintf(".ai/conventions/c%d.md", i)] = fmt.Sprintf("---\nstatus: active\npaths: [\"src/**\"]\n---\n# Rounding rule %d\n\nRound money once.\n", i)
	}
	e, write := memEngine(t, files)
	ctx := context.Background()
	for _, c := range []struct{ op, first string }{
		{"entries.list", `{"limit":3,"view":"compact"}`},
		{"entries.search", `{"query":"rounding","limit":3,"view":"compact"}`},
	} {
		var ids []string
		in := c.first
		var cursors []string
		for {
			env := decode(t, e.Request(ctx, c.op, []byte(in)))
			r, ok := env["result"].(map[string]any)
			if !ok {
				t.Fatalf("%s %s: %v", c.op, in, env)
			}
			if _, has := r["entries"]; has || r["total"] != float64(7) {
				t.Fatalf("%s: %v", c.op, r)
			}
			for _, it := range r["items"].([]any) {
				ids = append(ids, it.(map[string]any)["id"].(string))
			}
			next, ok := r["next_cursor"].(string)
			if !ok {
				break
			}
			cursors = append(cursors, next)
			var m map[string]any
			_ = json.Unmarshal([]byte(c.first), &m)
			m["cursor"] = next
			b, _ := json.Marshal(m)
			in = string(b)
		}
		seen := map[string]bool{}
		for _, id := range ids {
			seen[id] = true
		}
		if len(ids) != 7 || len(seen) != 7 || len(cursors) != 2 {
			t.Fatalf("%s: pages gave %v (%d cursors)", c.op, ids, len(cursors))
		}
		other := `{"query":"money","cursor":"` + cursors[0] + `"}`
		if c.op == "entries.list" {
			other = `{"kinds":["decision"],"cursor":"` + cursors[0] + `"}`
		}
		if env := decode(t, e.Request(ctx, c.op, []byte(other))); env["error"].(map[string]any)["code"] != apierr.InvalidInput {
			t.Fatalf("%s: a cursor of another question: %v", c.op, env)
		}
		forged := strings.Replace(c.first, "{", `{"cursor":"Zm9yZ2Vk",`, 1)
		if env := decode(t, e.Request(ctx, c.op, []byte(forged))); env["error"].(map[string]any)["code"] != apierr.InvalidInput {
			t.Fatalf("%s: a forged cursor: %v", c.op, env)
		}
	}
	list := decode(t, e.Request(ctx, "entries.list", []byte(`{"limit":3}`)))["result"].(map[string]any)["next_cursor"].(string)
	search := decode(t, e.Request(ctx, "entries.search", []byte(`{"query":"rounding","limit":3}`)))["result"].(map[string]any)["next_cursor"].(string)
	write(".ai/conventions/c9.md", "---\nstatus: active\n---\n# New\n")
	for _, in := range []string{`{"limit":3,"cursor":"` + list + `"}`, `{"query":"rounding","limit":3,"cursor":"` + search + `"}`} {
		op := "entries.list"
		if strings.Contains(in, "query") {
			op = "entries.search"
		}
		if env := decode(t, e.Request(ctx, op, []byte(in))); env["error"].(map[string]any)["code"] != apierr.StaleCursor {
			t.Fatalf("%s: cursor after an edit: %v", op, env)
		}
	}
}
