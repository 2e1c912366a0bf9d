package native

import (
	"strings"
	"testing"
)

// TestSupersedeRefusesUnsavedWorkInOldEntry: an old entry whose working
// file differs from the index is not superseded (staging it would take
// the user's unsaved lines along); nothing is written or staged.
func TestSupersedeRefusesUnsavedWorkInOldEntry(t *testing.T) {
	r := confirmRepo(t)
	r.appendFile(".ai/conventions/a.md", "WIP\n")
	before := r.git("status", "--porcelain")
	res := r.call("drafts.stage", `{"operation_id":"sup-wip","entry":{"kind":"convention","title":"New","body":"New.","supersedes":["a"]}}`)
	if code := errCode(res); code != "operation_conflict" {
		t.Fatalf("supersede of an entry with unstaged edits: %v, want operation_conflict", res)
	}
	if msg := res["error"].(map[string]any)["message"].(string); !strings.Contains(msg, ".ai/conventions/a.md has unstaged edits") {
		t.Errorf("message %q does not name the old entry's unstaged edits", msg)
	}
	if diff := r.git("diff", "--cached"); diff != "" {
		t.Fatalf("something was staged:\n%s", diff)
	}
	if after := r.git("status", "--porcelain"); after != before {
		t.Fatalf("the worktree changed:\n%s\nwas:\n%s", after, before)
	}
	if got := r.read(".ai/conventions/a.md"); !strings.HasSuffix(got, "Body.\nWIP\n") {
		t.Fatalf("the user's line is gone:\n%s", got)
	}
}

// TestConfirmStagesOnlyItsOwnLedgerLine: a ledger with lines the user has
// not staged gets kontext's line in the working file and in the index; the
// staged ledger is the previously staged one plus that line only.
func TestConfirmStagesOnlyItsOwnLedgerLine(t *testing.T) {
	r := confirmRepo(t)
	ledger := ".ai/confirmations.log"
	committed := `{"at":"2026-01-02T10:00:00Z","kind":"agent","id":"a","commit":null,"by":"Tess"}` + "\n"
	r.write(map[string]string{ledger: committed})
	r.commit("2026-01-02T10:00:00Z", "ledger")
	userLine := `{"at":"2026-01-03T10:00:00Z","kind":"read","id":"a","commit":null,"by":"Me","because":"unstaged"}` + "\n"
	r.appendFile(ledger, userLine)
	r.api("drafts.confirm", `{"id":"a","because":"still holds"}`)

	work := r.read(ledger)
	if !strings.HasPrefix(work, committed+userLine) {
		t.Fatalf("the working ledger lost the user's line:\n%s", work)
	}
	own := strings.TrimPrefix(work, committed+userLine)
	if strings.Count(own, "\n") != 1 || !strings.Contains(own, `"because":"still holds"`) {
		t.Fatalf("the working ledger did not gain exactly kontext's line: %q", own)
	}
	if staged := r.git("show", ":"+ledger) + "\n"; staged != committed+own {
		t.Fatalf("staged ledger:\n%s\nwant the staged ledger plus kontext's line:\n%s", staged, committed+own)
	}
	// git still sees the user's line as unstaged.
	if diff := r.git("diff", "--", ledger); !strings.Contains(diff, `"because":"unstaged"`) {
		t.Fatalf("the user's line is not an unstaged change:\n%s", diff)
	}
	if st := r.git("status", "--porcelain", "--", ledger); st != "MM "+ledger {
		t.Fatalf("status of the ledger: %q, want staged and unstaged changes", st)
	}
}
