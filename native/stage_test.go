package native

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

func TestStageNewEntry(t *testing.T) {
	r := newRepo(t)
	old := "---\nstatus: active\ndate: 2026-01-02\npaths: [\"src/**\"]\nowner: x\n---\n# Old rule\n\nBody stays.\n"
	r.write(map[string]string{
		".ai/conventions/2026-01-02-old-rule.md": old,
		".ai/learnings/2026-01-03-a-learning.md": "---\nstatus: active\n---\n# A learning\n",
		".ai/decisions/2026-01-04-a-decision.md": "---\nstatus: accepted\n---\n# A decision\n",
		"other.txt":                              "x\n",
	})
	r.commit("2026-01-05T10:00:00Z", "initial")
	r.write(map[string]string{"other.txt": "staged unrelated\n"})
	r.git("add", "other.txt")

	in := `{"operation_id":"op-1","entry":{"kind":"convention","title":"Log with slog: always","summary":"Use log/slog.","paths":["src/**/*.go"],"tags":["ops","go"],"body":"Use slog.\n","supersedes":["2026-01-02-old-rule"],"extends":["2026-01-03-a-learning"],"verify":"go vet ./..."},"source":"external:task/42@v7"}`
	res := r.api("drafts.stage", in)
	path := ".ai/conventions/2026-11-30-log-with-slog-always.md"
	if res["path"] != path || res["staged"] != true || res["replayed"] != false {
		t.Fatalf("result %v", res)
	}
	want := `---
status: active
date: 2026-11-30
summary: Use log/slog.
paths: ["src/**/*.go"]
tags: [ops, go]
supersedes: [2026-01-02-old-rule]
extends: [2026-01-03-a-learning]
verify: go vet ./...
external_refs: ["external:task/42@v7"]
---
# Log with slog: always

Use slog.
`
	if got := r.read(path); got != want {
		t.Fatalf("file:\n%s\nwant\n%s", got, want)
	}
	en := res["entry"].(map[string]any)
	if en["id"] != "2026-11-30-log-with-slog-always" || en["publication"].(map[string]any)["state"] != "staged" {
		t.Fatalf("entry %v", en)
	}
	wantOld := strings.Replace(old, "status: active\n", "status: superseded\n", 1)
	wantOld = strings.Replace(wantOld, "owner: x\n", "superseded_by: [2026-11-30-log-with-slog-always]\nowner: x\n", 1)
	if got := r.read(".ai/conventions/2026-01-02-old-rule.md"); got != wantOld {
		t.Fatalf("old file:\n%s\nwant\n%s", got, wantOld)
	}
	if staged := r.git("diff", "--cached", "--name-only"); staged != ".ai/conventions/2026-01-02-old-rule.md\n"+path+"\nother.txt" {
		t.Fatalf("staged: %q", staged)
	}
	if r.git("show", ":other.txt") != "staged unrelated" {
		t.Fatal("an unrelated staged change was lost")
	}
	// Replay, even after an edit; a different input conflicts.
	r.write(map[string]string{path: want + "\nMore.\n"})
	again := r.api("drafts.stage", in)
	if again["replayed"] != true || again["path"] != path {
		t.Fatalf("replay %v", again)
	}
	if r.git("show", ":"+path) != strings.TrimSpace(want) {
		t.Fatal("a replay staged again")
	}
	if c := errCode(r.call("drafts.stage", `{"operation_id":"op-1","entry":{"kind":"convention","title":"Other"}}`)); c != "operation_conflict" {
		t.Fatalf("conflict: %s", c)
	}
	// The same title again gets -2.
	res2 := r.api("drafts.stage", `{"operation_id":"op-2","entry":{"kind":"convention","title":"Log with slog: always"}}`)
	if res2["path"] != ".ai/conventions/2026-11-30-log-with-slog-always-2.md" {
		t.Fatalf("collision %v", res2["path"])
	}
	// Kind inferred from requested_path; decision default status proposed.
	res3 := r.api("drafts.stage", `{"operation_id":"op-3","requested_path":".ai/decisions","entry":{"title":"Use Postgres"}}`)
	if e := res3["entry"].(map[string]any); e["kind"] != "decision" || e["status"] != "proposed" || res3["path"] != ".ai/decisions/2026-11-30-use-postgres.md" {
		t.Fatalf("inferred %v", res3)
	}

	for _, c := range []struct{ in, code string }{
		{`{"operation_id":"e1","requested_path":"../x","entry":{"title":"T"}}`, "invalid_input"},
		{`{"operation_id":"e2","requested_path":"/etc/x.md","entry":{"title":"T"}}`, "invalid_input"},
		{`{"operation_id":"e3","requested_path":".ai/decisions/x.md","entry":{"kind":"convention","title":"T"}}`, "invalid_input"},
		{`{"operation_id":"e4","requested_path":".ai/conventions/../../x.md","entry":{"title":"T"}}`, "invalid_input"},
		{`{"operation_id":"e5","entry":{"kind":"convention","title":"T","visibility":"private"}}`, "invalid_input"},
		{`{"operation_id":"e6","entry":{"kind":"convention","title":"T","paths":["src/[x"]}}`, "invalid_input"},
		{`{"operation_id":"e7","entry":{"kind":"convention","title":"T","verify":"a\nb"}}`, "invalid_input"},
		{`{"operation_id":"e8","entry":{"kind":"convention","title":"T","verify":"` + strings.Repeat("x", 501) + `"}}`, "invalid_input"},
		{`{"operation_id":"e9","entry":{"kind":"convention","title":"T","extends":["nope"]}}`, "unknown_entry"},
		{`{"operation_id":"e10","entry":{"kind":"convention","title":"T","supersedes":["nope"]}}`, "unknown_entry"},
		{`{"operation_id":"e11","entry":{"kind":"convention","title":"T","supersedes":["2026-01-02-old-rule"]}}`, "operation_conflict"},
		{`{"operation_id":"e12","entry":{"kind":"learning","title":"T","extends":["2026-01-04-a-decision"]}}`, "decision_not_amended"},
		{`{"operation_id":"e13","entry":{"title":"T"}}`, "invalid_input"},
		{`{"entry":{"kind":"convention","title":"T"}}`, "invalid_input"},
		{`{"operation_id":"e14","amends":{"id":"x","revision":"y"},"entry":{"body":"b"}}`, "not_found"}, // amends of an unknown entry (amend_test.go has the rest)
		{`{"operation_id":"e15","requested_path":".ai/conventions/2026-01-02-old-rule.md","entry":{"title":"T"}}`, "operation_conflict"},
	} {
		m := r.call("drafts.stage", c.in)
		if got := errCode(m); got != c.code {
			t.Errorf("%s: got %s want %s (%v)", c.in, got, c.code, m)
		}
	}
	if msg := r.call("drafts.stage", `{"operation_id":"e5","entry":{"kind":"convention","title":"T","visibility":"private"}}`)["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "never written into team storage") {
		t.Errorf("private message: %s", msg)
	}
	if msg := r.call("drafts.stage", `{"operation_id":"e6","entry":{"kind":"convention","title":"T","paths":["src/[x"]}}`)["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "src/[x") {
		t.Errorf("pattern message: %s", msg)
	}
}

func TestStageADR(t *testing.T) {
	dir := testrepo.Demo(t)
	r := &repo{t, dir}
	cfg := r.read(".kontext.toml")
	cfg = strings.Replace(cfg, "[kinds.decision]\ndir = \".ai/decisions\"\nstyle = \"frontmatter\"\n\n# The ADR log we kept before kontext: read as decisions, numbered as they are.\n[[kinds.decision.include]]\ndir = \"docs/adr\"\nstyle = \"adr\"\n",
		"[kinds.decision]\ndir = \"docs/adr\"\nstyle = \"adr\"\n", 1)
	r.write(map[string]string{".kontext.toml": cfg})
	r.git("rm", "-r", "-q", ".ai/decisions")
	r.commit("2026-11-01T10:00:00Z", "adr dir")
	old := r.read("docs/adr/0005-use-postgresql-for-storage.md")
	res := r.api("drafts.stage", `{"operation_id":"adr-1","entry":{"kind":"adr","title":"Use managed PostgreSQL","paths":["db/**"],"body":"## Context\n\nWhy.\n","supersedes":["5"]}}`)
	path := "docs/adr/0006-use-managed-postgresql.md"
	if res["path"] != path {
		t.Fatalf("%v", res)
	}
	want := "# 6. Use managed PostgreSQL\n\nDate: 2026-11-30\n\n<!-- kontext\npaths: [\"db/**\"]\n-->\n\n## Status\n\nProposed\n\nSupersedes [5. Use PostgreSQL for storage](0005-use-postgresql-for-storage.md)\n\n## Context\n\nWhy.\n"
	if got := r.read(path); got != want {
		t.Fatalf("file:\n%s\nwant\n%s", got, want)
	}
	en := res["entry"].(map[string]any)
	if en["adr_number"] != float64(6) || en["supersedes"].([]any)[0] != "0005-use-postgresql-for-storage" {
		t.Fatalf("entry %v", en)
	}
	wantOld := strings.Replace(old, "\nAccepted\n", "\nSuperseded by [6. Use managed PostgreSQL](0006-use-managed-postgresql.md)\n", 1)
	if got := r.read("docs/adr/0005-use-postgresql-for-storage.md"); got != wantOld {
		t.Fatalf("old:\n%s", got)
	}
	if e := r.entry("5"); e["status"] != "superseded" || e["superseded_by"].([]any)[0] != "0006-use-managed-postgresql" {
		t.Fatalf("old entry %v", e)
	}
}

func TestRetireAndSetVerify(t *testing.T) {
	r := newRepo(t)
	orig := "---\nstatus: active\ndate: 2026-01-02\npaths: [\"src/**\"]\n---\n# Rule\n\nBody.\n"
	r.write(map[string]string{".ai/conventions/rule.md": orig, ".ai/conventions/v.md": "---\nstatus: active\n---\n# V\n"})
	c1 := r.commit("2026-01-05T10:00:00Z", "initial")
	r.write(map[string]string{"unrelated.txt": "u\n"})
	r.commit("2026-01-06T10:00:00Z", "later")
	blob := r.entry("rule")["revision"].(string)

	for _, c := range []struct{ rev, code string }{
		{"HEAD", "invalid_input"}, {"main", "invalid_input"}, {blob[:7], "invalid_input"},
		{"0123456789ab", "stale_entry"}, {strings.Repeat("0", 40), "stale_entry"},
	} {
		if got := errCode(r.call("drafts.retire", `{"operation_id":"r-`+c.rev+`","entry_id":"rule","entry_revision":"`+c.rev+`","reason":"r"}`)); got != c.code {
			t.Errorf("revision %s: got %s want %s", c.rev, got, c.code)
		}
	}
	// A full commit sha in which the file is unchanged (not HEAD itself).
	res := r.api("drafts.retire", `{"operation_id":"ret-1","entry_id":"rule","entry_revision":"`+c1+`","reason":"We moved to X."}`)
	want := strings.Replace(orig, "status: active", "status: deprecated", 1) + "\n## Retired 2026-11-30\n\nWe moved to X.\n"
	if got := r.read(".ai/conventions/rule.md"); got != want {
		t.Fatalf("retired:\n%s", got)
	}
	if res["entry"].(map[string]any)["status"] != "deprecated" || !strings.Contains(r.git("diff", "--cached", "--name-only"), "rule.md") {
		t.Fatalf("%v", res)
	}
	if again := r.api("drafts.retire", `{"operation_id":"ret-1","entry_id":"rule","entry_revision":"`+c1+`","reason":"We moved to X."}`); again["replayed"] != true {
		t.Fatal("no replay")
	}
	// Staged changes now: a second write conflicts; stale blob is stale.
	if got := errCode(r.call("drafts.retire", `{"operation_id":"ret-2","entry_id":"rule","entry_revision":"`+blob+`","reason":"r"}`)); got != "stale_entry" {
		t.Errorf("stale: %s", got)
	}

	vb := r.entry("v")["revision"].(string)
	r.api("drafts.set_verify", `{"operation_id":"v-1","entry_id":"v","entry_revision":"`+vb[:12]+`","verify":"go test ./..."}`)
	if got := r.read(".ai/conventions/v.md"); got != "---\nstatus: active\nverify: go test ./...\n---\n# V\n" {
		t.Fatalf("set: %q", got)
	}
	r.commit("2026-01-07T10:00:00Z", "verify")
	vb = r.entry("v")["revision"].(string)
	res = r.api("drafts.set_verify", `{"operation_id":"v-2","entry_id":"v","entry_revision":"`+vb+`","verify":""}`)
	if got := r.read(".ai/conventions/v.md"); got != "---\nstatus: active\n---\n# V\n" || res["entry"].(map[string]any)["verify"] != nil {
		t.Fatalf("removed: %q", got)
	}
	if got := errCode(r.call("drafts.set_verify", `{"operation_id":"v-3","entry_id":"v","entry_revision":"`+vb+`","verify":"a\nb"}`)); got != "invalid_input" {
		t.Errorf("multi-line verify: %s", got)
	}
}

func TestStagePromotesCandidate(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{"README.md": "x\n"})
	r.commit("2026-01-05T10:00:00Z", "initial")
	inbox := filepath.Join(r.dir, ".git", "kontext", "inbox")
	if err := os.MkdirAll(inbox, 0o755); err != nil {
		t.Fatal(err)
	}
	cand := `{"id":"cand-0123456789ab","state":"pending","kind":"learning","entry":{"kind":"learning","title":"CSV needs a BOM","body":"Excel.","verify":"make csv","future_field":1},"history":[]}`
	chal := `{"id":"cand-ffffffffffff","state":"pending","kind":"challenge","entry":{"title":"x"}}`
	os.WriteFile(filepath.Join(inbox, "cand-0123456789ab.json"), []byte(cand), 0o644)
	os.WriteFile(filepath.Join(inbox, "cand-ffffffffffff.json"), []byte(chal), 0o644)
	res := r.api("drafts.stage", `{"operation_id":"p-1","candidate_id":"cand-0123456789ab"}`)
	if res["path"] != ".ai/learnings/2026-11-30-csv-needs-a-bom.md" || res["entry"].(map[string]any)["verify"] != "make csv" {
		t.Fatalf("%v", res)
	}
	data, _ := os.ReadFile(filepath.Join(inbox, "cand-0123456789ab.json"))
	if !strings.Contains(string(data), `"state": "promoted"`) || !strings.Contains(string(data), `"entry": "2026-11-30-csv-needs-a-bom"`) {
		t.Fatalf("candidate %s", data)
	}
	if c := errCode(r.call("drafts.stage", `{"operation_id":"p-2","candidate_id":"cand-0123456789ab"}`)); c != "operation_conflict" {
		t.Errorf("promoted again: %s", c)
	}
	if c := errCode(r.call("drafts.stage", `{"operation_id":"p-3","candidate_id":"cand-ffffffffffff"}`)); c != "invalid_input" {
		t.Errorf("challenge: %s", c)
	}
	if c := errCode(r.call("drafts.stage", `{"operation_id":"p-4","candidate_id":"cand-000000000000"}`)); c != "not_found" {
		t.Errorf("missing: %s", c)
	}
}
