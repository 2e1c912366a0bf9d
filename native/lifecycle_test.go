package native

import (
	"strings"
	"testing"
)

// TestNeverCommittedEntriesAreNotChanged: every lifecycle write on an
// entry that was never committed (untracked, or staged but not in HEAD)
// answers operation_conflict saying to commit it first, and writes and
// stages nothing.
func TestNeverCommittedEntriesAreNotChanged(t *testing.T) {
	r := confirmRepo(t)
	r.write(map[string]string{
		".ai/conventions/fresh.md":      "---\ntitle: Fresh\nstatus: active\npaths: [\"src/**\"]\n---\n# Fresh\n\nBody.\n",
		".ai/decisions/2026-02-01-d.md": "---\ntitle: D\nstatus: proposed\n---\n# D\n\nBody.\n",
	})
	r.git("add", ".ai/decisions/2026-02-01-d.md") // staged, never committed
	freshRev := r.entry("fresh")["revision"].(string)
	dRev := r.entry("2026-02-01-d")["revision"].(string)
	before := r.git("status", "--porcelain")
	for _, c := range []struct{ op, in string }{
		{"drafts.extend", `{"entry_id":"fresh","entry_revision":"` + freshRev + `","text":"More."}`},
		{"drafts.stage", `{"operation_id":"nc-amend","amends":{"id":"fresh","revision":"` + freshRev + `"},"entry":{"body":"# Fresh\n\nBody.\n\n## Added 2026-02-02\n\nMore."}}`},
		{"drafts.retire", `{"operation_id":"nc-retire","entry_id":"fresh","entry_revision":"` + freshRev + `","reason":"gone"}`},
		{"drafts.retire", `{"operation_id":"nc-retire-d","entry_id":"2026-02-01-d","entry_revision":"` + dRev + `","reason":"gone"}`},
		{"drafts.confirm", `{"id":"fresh"}`},
		{"drafts.set_status", `{"operation_id":"nc-accept","entry_id":"2026-02-01-d","entry_revision":"` + dRev + `","status":"accepted"}`},
		{"drafts.set_verify", `{"operation_id":"nc-verify","entry_id":"fresh","entry_revision":"` + freshRev + `","verify":"true"}`},
		{"drafts.stage", `{"operation_id":"nc-supersede","entry":{"kind":"convention","title":"Fresher","body":"New.","supersedes":["fresh"]}}`},
		{"drafts.stage", `{"operation_id":"nc-supersede-d","entry":{"kind":"decision","title":"D2","body":"New.","supersedes":["2026-02-01-d"]}}`},
	} {
		res := r.call(c.op, c.in)
		if code := errCode(res); code != "operation_conflict" {
			t.Errorf("%s %.60s: %v, want operation_conflict", c.op, c.in, res)
			continue
		}
		if msg := res["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "never committed; commit it first") {
			t.Errorf("%s: message %q does not say to commit it first", c.op, msg)
		}
	}
	if after := r.git("status", "--porcelain"); after != before {
		t.Fatalf("a refused write changed the worktree or the index:\n%s\nwas:\n%s", after, before)
	}
}
