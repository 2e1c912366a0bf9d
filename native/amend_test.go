package native

import (
	"strings"
	"testing"
)

// amendInput is drafts.stage with amends of id at rev and entry as given.
func amendInput(op, id, rev, entry string) string {
	return `{"operation_id":"` + op + `","amends":{"id":"` + id + `","revision":"` + rev + `"},"entry":` + entry + `}`
}

func amendRepo(t *testing.T) *repo {
	r := newRepo(t)
	r.write(map[string]string{
		".ai/conventions/2026-01-02-rule.md":      "---\nstatus: active\ndate: 2026-01-02\npaths: [\"src/**\"]\nowner: x\n---\n# A rule\n\nBody stays.", // no final newline
		".ai/learnings/2026-01-03-a-learning.md":  "---\nstatus: active\n---\n# A learning\n\nSeen once.\n",
		".ai/decisions/2026-01-04-a-decision.md":  "---\nstatus: accepted\n---\n# A decision\n",
		".ai/architecture/2026-01-05-overview.md": "---\nstatus: active\n---\n# Overview\n",
	})
	r.commit("2026-01-05T10:00:00Z", "initial")
	return r
}

func TestAmendAppendsVerbatim(t *testing.T) {
	r := amendRepo(t)
	const path = ".ai/conventions/2026-01-02-rule.md"
	old := r.read(path)
	rev := r.entry("2026-01-02-rule")["revision"].(string)
	res := r.api("drafts.stage", amendInput("am-1", "2026-01-02-rule", rev, `{"body":"Also in tests.\n\n- a list item\n"}`))
	if res["amended"] != "2026-01-02-rule" || res["path"] != path || res["staged"] != true || res["replayed"] != false {
		t.Fatalf("result %v", res)
	}
	got := r.read(path)
	// Byte-prefix rule: the old bytes plus the missing final newline.
	if !strings.HasPrefix(got, old+"\n") {
		t.Fatalf("the amended file does not start with the old bytes:\n%s", got)
	}
	if add := strings.TrimPrefix(got, old+"\n"); add != "\n## Added 2026-11-30\n\nAlso in tests.\n\n- a list item\n" {
		t.Fatalf("added %q", add)
	}
	if staged := r.git("diff", "--cached", "--name-only"); staged != path {
		t.Fatalf("staged %q", staged)
	}
	en := res["entry"].(map[string]any)
	if en["title"] != "A rule" || en["status"] != "active" || !strings.HasSuffix(en["body"].(string), "- a list item") {
		t.Fatalf("entry %v", en)
	}
	// A retry replays with amended; the file changed, so the old revision is stale.
	again := r.api("drafts.stage", amendInput("am-1", "2026-01-02-rule", rev, `{"body":"Also in tests.\n\n- a list item\n"}`))
	if again["replayed"] != true || again["amended"] != "2026-01-02-rule" {
		t.Fatalf("replay %v", again)
	}
	// Staged changes are a conflict until committed.
	if c := errCode(r.call("drafts.stage", amendInput("am-2", "2026-01-02-rule", r.entry("2026-01-02-rule")["revision"].(string), `{"body":"More."}`))); c != "operation_conflict" {
		t.Fatalf("staged file: %s", c)
	}
}

func TestAmendWholeBodyWithAddedSections(t *testing.T) {
	r := amendRepo(t)
	const path = ".ai/learnings/2026-01-03-a-learning.md"
	old := r.read(path)
	rev := r.entry("2026-01-03-a-learning")["revision"].(string)
	body := `Seen once.\n\n## Added 2026-11-29\n\nSeen twice.\n`
	res := r.api("drafts.stage", amendInput("am-w", "2026-01-03-a-learning", rev, `{"title":"A learning","kind":"learning","body":"`+body+`"}`))
	if res["amended"] != "2026-01-03-a-learning" {
		t.Fatalf("result %v", res)
	}
	if got := r.read(path); got != old+"\n## Added 2026-11-29\n\nSeen twice.\n" {
		t.Fatalf("file %q", got)
	}
}

func TestAmendRefusals(t *testing.T) {
	r := amendRepo(t)
	rev := func(id string) string { return r.entry(id)["revision"].(string) }
	cases := []struct {
		name, input, code string
	}{
		{"decision", amendInput("x1", "2026-01-04-a-decision", rev("2026-01-04-a-decision"), `{"body":"More."}`), "decision_not_amended"},
		{"architecture", amendInput("x2", "2026-01-05-overview", rev("2026-01-05-overview"), `{"body":"More."}`), "invalid_input"},
		{"changed title", amendInput("x3", "2026-01-02-rule", rev("2026-01-02-rule"), `{"title":"Another rule","body":"More."}`), "amend_not_additive"},
		{"changed paths", amendInput("x4", "2026-01-02-rule", rev("2026-01-02-rule"), `{"paths":["lib/**"],"body":"More."}`), "amend_not_additive"},
		{"changed status", amendInput("x5", "2026-01-02-rule", rev("2026-01-02-rule"), `{"status":"deprecated","body":"More."}`), "amend_not_additive"},
		{"edited body", amendInput("x6", "2026-01-03-a-learning", rev("2026-01-03-a-learning"), `{"body":"Seen once or twice.\n\n## Added 2026-11-30\n\nMore."}`), "amend_not_additive"},
		{"other section", amendInput("x7", "2026-01-03-a-learning", rev("2026-01-03-a-learning"), `{"body":"Seen once.\n\n## Changed\n\nMore."}`), "amend_not_additive"},
		{"same body", amendInput("x8", "2026-01-03-a-learning", rev("2026-01-03-a-learning"), `{"body":"Seen once.\n"}`), "invalid_input"},
		{"empty body", amendInput("x9", "2026-01-03-a-learning", rev("2026-01-03-a-learning"), `{"body":" "}`), "invalid_input"},
		{"stale", amendInput("x10", "2026-01-02-rule", strings.Repeat("ab", 20), `{"body":"More."}`), "stale_entry"},
		{"HEAD", amendInput("x11", "2026-01-02-rule", "HEAD", `{"body":"More."}`), "invalid_input"},
		{"with supersedes", amendInput("x12", "2026-01-02-rule", rev("2026-01-02-rule"), `{"body":"More.","supersedes":["2026-01-03-a-learning"]}`), "invalid_input"},
		{"with candidate", `{"operation_id":"x13","candidate_id":"cand-000000000000","amends":{"id":"2026-01-02-rule","revision":"` + rev("2026-01-02-rule") + `"}}`, "invalid_input"},
		{"unknown", amendInput("x14", "no-such-entry", rev("2026-01-02-rule"), `{"body":"More."}`), "not_found"},
	}
	for _, c := range cases {
		m := r.call("drafts.stage", c.input)
		if got := errCode(m); got != c.code {
			t.Errorf("%s: %s, want %s (%v)", c.name, got, c.code, m["error"])
		}
	}
	if staged := r.git("diff", "--cached", "--name-only"); staged != "" {
		t.Fatalf("a refused amend staged %q", staged)
	}
	// Unstaged edits and inactive entries conflict.
	r.appendFile(".ai/learnings/2026-01-03-a-learning.md", "local\n")
	if c := errCode(r.call("drafts.stage", amendInput("y1", "2026-01-03-a-learning", rev("2026-01-03-a-learning"), `{"body":"More."}`))); c != "operation_conflict" {
		t.Fatalf("modified: %s", c)
	}
	r.write(map[string]string{".ai/conventions/2026-01-06-gone.md": "---\nstatus: deprecated\n---\n# Gone\n"})
	r.commit("2026-01-06T10:00:00Z", "gone")
	if c := errCode(r.call("drafts.stage", amendInput("y2", "2026-01-06-gone", rev("2026-01-06-gone"), `{"body":"More."}`))); c != "operation_conflict" {
		t.Fatalf("inactive: %s", c)
	}
}

func TestRepairRestoresSupersedeMetadata(t *testing.T) {
	r := newRepo(t)
	oldFM := "---\nstatus: active\ndate: 2026-01-02\npaths: [\"src/**\"]\nowner: x\n---\n# Old rule\n\nBody.\n"
	oldADR := "# 1. Use MySQL\n\nDate: 2026-01-02\n\n## Status\n\nAccepted\n\n## Context\n\nX.\n"
	r.write(map[string]string{
		".ai/conventions/2026-01-02-old-rule.md":  oldFM,
		".ai/conventions/2026-01-03-new-rule.md":  "---\nstatus: active\nsupersedes: [2026-01-02-old-rule]\n---\n# New rule\n",
		".ai/conventions/2026-01-04-done-rule.md": "---\nstatus: superseded\nsuperseded_by: [2026-01-05-done-new]\n---\n# Done rule\n",
		".ai/conventions/2026-01-05-done-new.md":  "---\nstatus: active\nsupersedes: [2026-01-04-done-rule]\n---\n# Done new\n",
		"docs/adr/0001-use-mysql.md":              oldADR,
		"docs/adr/0002-use-postgresql.md":         "# 2. Use PostgreSQL\n\nDate: 2026-01-03\n\n## Status\n\nAccepted\n\nSupersedes [1. Use MySQL](0001-use-mysql.md)\n",
		".kontext.toml":                           "version = 1\n\n[kinds.decision]\ndir = \"docs/adr\"\nstyle = \"adr\"\n",
	})
	r.commit("2026-01-05T10:00:00Z", "initial")
	res := r.api("drafts.confirm", `{"repair":true}`)
	rep, _ := res["supersedes_repaired"].([]any)
	if len(rep) != 2 {
		t.Fatalf("result %v", res)
	}
	wantFM := strings.Replace(oldFM, "status: active\n", "status: superseded\n", 1)
	wantFM = strings.Replace(wantFM, "owner: x\n", "superseded_by: [2026-01-03-new-rule]\nowner: x\n", 1)
	if got := r.read(".ai/conventions/2026-01-02-old-rule.md"); got != wantFM {
		t.Fatalf("frontmatter file:\n%s\nwant\n%s", got, wantFM)
	}
	wantADR := strings.Replace(oldADR, "\nAccepted\n", "\nSuperseded by [2. Use PostgreSQL](0002-use-postgresql.md)\n", 1)
	if got := r.read("docs/adr/0001-use-mysql.md"); got != wantADR {
		t.Fatalf("ADR file:\n%s\nwant\n%s", got, wantADR)
	}
	if staged := r.git("diff", "--cached", "--name-only"); staged != ".ai/conventions/2026-01-02-old-rule.md\ndocs/adr/0001-use-mysql.md" {
		t.Fatalf("staged %q", staged)
	}
	first := rep[1].(map[string]any) // sorted by id: the ADR 0001-… comes first
	if first["id"] != "2026-01-02-old-rule" || first["path"] != ".ai/conventions/2026-01-02-old-rule.md" ||
		len(first["superseded_by"].([]any)) != 1 || first["superseded_by"].([]any)[0] != "2026-01-03-new-rule" {
		t.Fatalf("repaired %v", first)
	}
	// Once written, nothing is left to repair.
	again := r.api("drafts.confirm", `{"repair":true}`)
	if rep, _ := again["supersedes_repaired"].([]any); len(rep) != 0 {
		t.Fatalf("again %v", again)
	}
}
