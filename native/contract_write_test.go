package native

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// writeRepo is the fixture of the write goldens: a rule, a decision, an entry with a verify
// command, a learning to retire; fixed dates, author and KONTEXT_NOW, so blob ids, commits
// and candidate ids are the same on every run.
func writeRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no real trust file: verify is untrusted
	t.Setenv("KONTEXT_APPLICATION", "")
	dir := fileRepo(t, map[string]string{
		".ai/conventions/2026-01-02-rule.md":     "---\nstatus: active\ndate: 2026-01-02\npaths: [\"src/**\"]\n---\n# A rule\n\nBody stays.\n",
		".ai/decisions/2026-01-04-a-decision.md": "---\nstatus: accepted\ndate: 2026-01-04\n---\n# A decision\n\nWe decided.\n",
		".ai/conventions/2026-01-05-checked.md":  "---\nstatus: active\npaths: [\"src/**\"]\nverify: sh ./check.sh\n---\n# Checked\n\nBody.\n",
		".ai/learnings/2026-01-06-old-lesson.md": "---\nstatus: active\n---\n# Old lesson\n\nNo longer true.\n",
		"check.sh":                               "echo ok\n",
		"src/x.go":                               "package x\n",
	})
	testrepo.Git(t, dir, "config", "user.name", "Wren Writer")
	return dir
}

// TestContractWrites pins the result of every write operation and every write error code
// (go test ./native -run Contract -update rewrites them).
func TestContractWrites(t *testing.T) {
	dir := writeRepo(t)
	ctx := context.Background()
	blob := func(id string) string {
		t.Helper()
		out := testrepo.Git(t, dir, "rev-parse", "HEAD:"+id)
		return strings.TrimSpace(out)
	}
	rule, decision, checked, lesson := blob(".ai/conventions/2026-01-02-rule.md"), blob(".ai/decisions/2026-01-04-a-decision.md"),
		blob(".ai/conventions/2026-01-05-checked.md"), blob(".ai/learnings/2026-01-06-old-lesson.md")
	stage := `{"operation_id":"stage-1","entry":{"kind":"convention","title":"Log with slog","body":"Use log/slog everywhere.\n","paths":["src/**/*.go"],"tags":["logging"]}}`
	cases := []contractCase{
		// errors that change nothing first, while every file is clean
		{"write_invalid_input", "drafts.stage", `{"operation_id":"bad","entry":{"kind":"rule","title":"x"}}`},
		{"write_control_character", "drafts.stage", `{"operation_id":"esc","entry":{"kind":"convention","title":"T\u001b]0;x\u0007"}}`},
		{"write_title_round_trip", "drafts.stage", `{"operation_id":"hdr","entry":{"kind":"convention","title":"###"}}`},
		{"write_requested_path_git", "drafts.stage", `{"operation_id":"gitp","requested_path":".git/hooks/x.md","entry":{"kind":"convention","title":"T"}}`},
		{"write_capture_title_round_trip", "drafts.capture", `{"operation_id":"caphdr","entry":{"kind":"learning","title":"###"}}`},
		{"write_unknown_entry", "drafts.stage", `{"operation_id":"unk","entry":{"kind":"convention","title":"T","extends":["no-such-entry"]}}`},
		{"write_not_found", "drafts.retire", `{"operation_id":"nf","entry_id":"no-such-entry","entry_revision":"` + rule + `","reason":"r"}`},
		{"write_decision_not_amended", "drafts.stage", `{"operation_id":"dna","amends":{"id":"2026-01-04-a-decision","revision":"` + decision + `"},"entry":{"body":"More."}}`},
		{"write_amend_not_additive", "drafts.stage", `{"operation_id":"ana","amends":{"id":"2026-01-02-rule","revision":"` + rule + `"},"entry":{"title":"Another rule","body":"More."}}`},
		{"write_stale_entry", "drafts.retire", `{"operation_id":"stale","entry_id":"2026-01-06-old-lesson","entry_revision":"0123456789ab","reason":"r"}`},
		{"write_stale_entry_full", "drafts.set_verify", `{"operation_id":"stale2","entry_id":"2026-01-05-checked","entry_revision":"` + strings.Repeat("0", 40) + `","verify":""}`},
		{"write_untrusted_verify", "drafts.verify", `{"id":"2026-01-05-checked"}`},
		// results
		{"write_stage", "drafts.stage", stage},
		{"write_stage_replayed", "drafts.stage", stage},
		{"write_operation_conflict", "drafts.stage", `{"operation_id":"stage-1","entry":{"kind":"convention","title":"Another title"}}`},
		{"write_operations_get", "operations.get", `{"operation_id":"stage-1"}`},
		{"write_operations_get_missing", "operations.get", `{"operation_id":"never-used"}`},
		{"write_amend", "drafts.stage", `{"operation_id":"amend-1","amends":{"id":"2026-01-02-rule","revision":"` + rule + `"},"entry":{"body":"Also in tests."}}`},
		{"write_retire", "drafts.retire", `{"operation_id":"retire-1","entry_id":"2026-01-06-old-lesson","entry_revision":"` + lesson + `","reason":"We measured it again."}`},
		{"write_set_verify", "drafts.set_verify", `{"operation_id":"sv-1","entry_id":"2026-01-05-checked","entry_revision":"` + checked + `","verify":"sh ./check.sh --all"}`},
		{"write_confirm", "drafts.confirm", `{"id":"2026-01-04-a-decision","because":"re-read","operation_id":"confirm-1"}`},
		{"write_confirm_many", "drafts.confirm", `{"ids":["2026-01-05-checked","2026-01-06-old-lesson"],"because":"still true"}`},
		{"write_capture", "drafts.capture", `{"entry":{"kind":"learning","title":"Retries need jitter","body":"Seen in prod; token password=hunter2hunter2 leaked once.","paths":["src/**"]},"source":"incident review","operation_id":"cap-1"}`},
		{"write_capture_replayed", "drafts.capture", `{"entry":{"kind":"learning","title":"Retries need jitter","body":"Seen in prod; token password=hunter2hunter2 leaked once.","paths":["src/**"]},"source":"incident review","operation_id":"cap-1"}`},
		{"write_inbox_list", "inbox.list", `{}`},
		{"write_inbox_challenge", "inbox.challenge", `{"id":"2026-01-02-rule","because":"we log with zap in one service"}`},
	}
	for _, c := range cases {
		env := Request(ctx, dir, c.op, []byte(c.input))
		checkGolden(t, c.name, dir, env)
	}
	// inbox.drop of the captured candidate, and of one that belongs to another worktree.
	l := Request(ctx, dir, "inbox.list", nil)
	id := between(string(l), `"id":"`, `"`)
	checkGolden(t, "write_inbox_drop", dir, Request(ctx, dir, "inbox.drop", []byte(`{"id":"`+id+`","reason":"duplicate"}`)))
	gitDir := strings.TrimSpace(testrepo.Git(t, dir, "rev-parse", "--absolute-git-dir"))
	other := "cand-0123456789ab"
	p := filepath.Join(gitDir, "kontext", "inbox", other+".json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	cand := `{"id":"` + other + `","state":"pending","kind":"learning","entry":{"kind":"learning","title":"T"},"created_at":"2026-01-01T00:00:00Z","history":[],"worktree":{"root":"/some/other/worktree"}}`
	if err := os.WriteFile(p, []byte(cand), 0o644); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "write_worktree_conflict", dir, Request(ctx, dir, "inbox.drop", []byte(`{"id":"`+other+`"}`)))
}

// TestContractWriteIncomplete pins operation_incomplete: a write killed after its plan
// (a -tags faultinject build) leaves a plan that operations.get and a retry report.
func TestContractWriteIncomplete(t *testing.T) {
	dir := writeRepo(t)
	fault := kontextBin(t, "kontext-fault")
	in := `{"operation_id":"crash-1","entry":{"kind":"convention","title":"Crash safe","body":"Body.\n"}}`
	if _, code, out := runAPI(fault, dir, "drafts.stage", in, "KONTEXT_FAULT=after_plan"); code != 99 {
		t.Fatalf("exit %d, want 99 (killed): %s", code, out)
	}
	checkGolden(t, "write_operation_incomplete", dir, Request(context.Background(), dir, "operations.get", []byte(`{"operation_id":"crash-1"}`)))
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}
