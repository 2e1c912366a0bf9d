package native

import (
	"strings"
	"testing"
)

// TestStageEvidenceRelatedAndChallenges: evidence refs are verified and
// written for the reviewer, related entries are named, and a staged
// replacement or a retirement resolves open challenges.
func TestStageEvidenceRelatedAndChallenges(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{
		".ai/conventions/old.md":  "---\ntitle: Old rule\npaths: [\"src/**\"]\n---\n# Old rule\n\nTabs everywhere.\n",
		".ai/conventions/gone.md": "---\ntitle: Gone rule\npaths: [\"lib/**\"]\n---\n# Gone rule\n",
		"src/a.go":                "package a\n\nfunc A() int { return 42 }\n",
	})
	c1 := r.commit("2026-01-01T10:00:00Z", "initial")
	ch := r.api("inbox.challenge", `{"id":"old","because":"we use gofmt now"}`)
	chID := ch["candidate"].(map[string]any)["id"].(string)
	r.api("inbox.challenge", `{"id":"gone","because":"lib is gone"}`)

	res := r.api("drafts.stage", `{"operation_id":"st-1","entry":{"kind":"convention","title":"Format with gofmt","paths":["src/**"],
		"supersedes":["old"],"body":"Run gofmt.","evidence":[{"ref":"code:.@`+c1+`:src/a.go#L3-3","quote":"return 42"},{"ref":"url:https://go.dev/doc/effective_go"}]}}`)
	ev := res["evidence"].([]any)
	if len(ev) != 2 || ev[0].(map[string]any)["verification"] != "verified" || ev[1].(map[string]any)["verification"] != "none" {
		t.Fatalf("evidence: %v", ev)
	}
	text := r.read(res["path"].(string))
	if !strings.Contains(text, "## Evidence\n\n- `code:.@"+c1+":src/a.go#L3-3` — “return 42” (verified)\n- `url:https://go.dev/doc/effective_go`\n") {
		t.Fatalf("evidence section missing:\n%s", text)
	}
	if !strings.Contains(text, "external_refs:") || !strings.Contains(text, "url:https://go.dev/doc/effective_go") {
		t.Fatalf("external_refs missing:\n%s", text)
	}
	rc := res["resolved_challenges"].([]any)
	if len(rc) != 1 || rc[0].(map[string]any)["id"] != chID || rc[0].(map[string]any)["against"] != "old" {
		t.Fatalf("resolved_challenges: %v", rc)
	}
	list := r.api("inbox.list", `{"state":"pending"}`)["candidates"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["extra"].(map[string]any)["against"] != "gone" {
		t.Fatalf("pending after the replacement: %v", list)
	}
	if c := errCode(r.call("drafts.stage", `{"operation_id":"st-2","entry":{"kind":"convention","title":"X","evidence":[{"ref":"gossip:42"}]}}`)); c != "invalid_input" {
		t.Fatalf("a bad evidence ref: %s", c)
	}

	// A related entry: same paths as an existing active one.
	r.commit("2026-01-02T10:00:00Z", "replacement")
	res = r.api("drafts.stage", `{"operation_id":"st-3","entry":{"kind":"learning","title":"gofmt rewrites on save","paths":["src/a.go"]}}`)
	rel := res["related_entries"].([]any)
	if len(rel) == 0 || !strings.Contains(rel[0].(map[string]any)["reason"].(string), "overlapping paths") {
		t.Fatalf("related_entries: %v", rel)
	}

	// Retiring "gone" resolves the challenge against it.
	r.commit("2026-01-03T10:00:00Z", "learning")
	rev := r.entry("gone")["revision"].(string)
	res = r.api("drafts.retire", `{"operation_id":"ret-1","entry_id":"gone","entry_revision":"`+rev+`","reason":"lib was deleted"}`)
	if rc := res["resolved_challenges"].([]any); len(rc) != 1 || rc[0].(map[string]any)["resolved_by"] != "retirement" {
		t.Fatalf("retire resolved_challenges: %v", res["resolved_challenges"])
	}
	if n := len(r.api("inbox.list", `{}`)["candidates"].([]any)); n != 0 {
		t.Fatalf("%d challenges still pending", n)
	}
}
