package native

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// TestContractSetStatus pins drafts.set_status: the result, a replay, and its refusals.
func TestContractSetStatus(t *testing.T) {
	t.Setenv("KONTEXT_APPLICATION", "")
	dir := fileRepo(t, map[string]string{
		".kontext.toml":                        "version = 1\nstorage = \".ai\"\n[kinds.decision]\ndir = \"doc/adr\"\nstyle = \"adr\"\n",
		"doc/adr/0001-use-sqlite.md":           "# 1. Use SQLite\n\nDate: 2026-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nSmall.\n",
		"doc/adr/0002-use-postgres.md":         "# 2. Use PostgreSQL\n\nDate: 2026-01-02\n\n## Status\n\nProposed\n\n## Context\n\nWe grew.\n",
		".ai/conventions/2026-01-03-a-rule.md": "---\nstatus: active\n---\n# A rule\n",
	})
	ctx := context.Background()
	blob := func(p string) string { return strings.TrimSpace(testrepo.Git(t, dir, "rev-parse", "HEAD:"+p)) }
	accept := `{"operation_id":"accept-2","entry_id":"2","entry_revision":"` + blob("doc/adr/0002-use-postgres.md") + `","status":"accepted"}`
	for _, c := range []contractCase{
		{"write_set_status_not_proposed", "drafts.set_status", `{"operation_id":"acc-1","entry_id":"1","entry_revision":"` + blob("doc/adr/0001-use-sqlite.md") + `","status":"rejected"}`},
		{"write_set_status_invalid", "drafts.set_status", `{"operation_id":"acc-x","entry_id":"2","entry_revision":"` + blob("doc/adr/0002-use-postgres.md") + `","status":"deprecated"}`},
		{"write_set_status_not_decision", "drafts.set_status", `{"operation_id":"acc-r","entry_id":"2026-01-03-a-rule","entry_revision":"` + blob(".ai/conventions/2026-01-03-a-rule.md") + `","status":"accepted"}`},
		{"write_set_status", "drafts.set_status", accept},
		{"write_set_status_replayed", "drafts.set_status", accept},
	} {
		checkGolden(t, c.name, dir, Request(ctx, dir, c.op, []byte(c.input)))
	}
	if got := testrepo.Git(t, dir, "diff", "--cached", "--name-only"); strings.TrimSpace(got) != "doc/adr/0002-use-postgres.md" {
		t.Fatalf("staged %q", got)
	}
}

// TestSetStatusCrashMidWrite kills kontext between plan, write, stage and receipt
// (KONTEXT_FAULT in a -tags faultinject build); the retry finishes the stored plan.
func TestSetStatusCrashMidWrite(t *testing.T) {
	testrepo.Env(t)
	fault := kontextBin(t, "kontext-fault")
	for i, point := range []string{"after_plan", "after_write", "after_stage"} {
		t.Run(point, func(t *testing.T) {
			r := newRepo(t)
			target := ".ai/decisions/2026-01-02-use-go.md"
			r.write(map[string]string{target: "---\nstatus: proposed # the team votes on Friday\n---\n# Use Go\n\nBecause.\n"})
			r.commit("2026-01-05T10:00:00Z", "initial")
			rev := strings.TrimSpace(r.git("rev-parse", "HEAD:"+target))
			opID := fmt.Sprintf("crash-status-%d", i)
			in := `{"operation_id":"` + opID + `","entry_id":"2026-01-02-use-go","entry_revision":"` + rev + `","status":"accepted"}`
			m, code, out := runAPI(fault, r.dir, "drafts.set_status", in, "KONTEXT_FAULT="+point)
			if code != 99 || m != nil {
				t.Fatalf("exit %d, want 99 (killed): %s", code, out)
			}
			if c := errCode(r.call("operations.get", `{"operation_id":"`+opID+`"}`)); c != "operation_incomplete" {
				t.Fatalf("operations.get after the crash: %s", c)
			}
			if tmp := tempFiles(t, r.dir); len(tmp) > 0 {
				t.Fatalf("temporary files left: %v", tmp)
			}
			res := r.api("drafts.set_status", in)
			if res["replayed"] != false || res["path"] != target || res["staged"] != true {
				t.Fatalf("resume: %v", res)
			}
			want := "---\nstatus: accepted # the team votes on Friday\n---\n# Use Go\n\nBecause.\n"
			if got := r.read(target); got != want {
				t.Fatalf("after the resume:\n%q\nwant\n%q", got, want)
			}
			if got := r.git("diff", "--cached", "--name-only"); strings.TrimSpace(got) != target {
				t.Fatalf("staged %q", got)
			}
			if again := r.api("drafts.set_status", in); again["replayed"] != true {
				t.Fatalf("retry after the resume: %v", again)
			}
		})
	}
}
