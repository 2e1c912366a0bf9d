package native

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// TestRoutedWriteCrash kills kontext inside a write routed into a nested
// repository — after the nested repository stored its plan, and after it
// finished but before the outer repository stored its receipt — and checks
// that operations.get from the outer repository reports it and a retry
// from there completes it exactly once, in the nested repository.
func TestRoutedWriteCrash(t *testing.T) {
	testrepo.Env(t)
	fault := kontextBin(t, "kontext-fault")
	for i, c := range []struct{ point, state string }{{"after_plan", "operation_incomplete"}, {"after_route", "done"}} {
		t.Run(c.point, func(t *testing.T) {
			r := newRepo(t)
			r.commit("2026-01-05T10:00:00Z", "initial")
			lib := &repo{t, filepath.Join(r.dir, "lib")}
			if err := os.Mkdir(lib.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			lib.git("init", "-q", "-b", "main")
			lib.commit("2026-01-05T10:00:00Z", "initial")
			opID := fmt.Sprintf("routed-%d", i)
			in := `{"operation_id":"` + opID + `","entry":{"kind":"convention","title":"Lib is careful","body":"Body.\n","paths":["lib/**"]}}`
			target := ".ai/conventions/2026-11-30-lib-is-careful.md"
			t.Setenv("KONTEXT_NOW", "2026-11-30T12:00:00Z")
			if m, code, out := runAPI(fault, r.dir, "drafts.stage", in, "KONTEXT_FAULT="+c.point); code != 99 || m != nil {
				t.Fatalf("exit %d, want 99 (killed): %s", code, out)
			}
			got := r.call("operations.get", `{"operation_id":"`+opID+`"}`)
			if c.state == "done" {
				if res, _ := got["result"].(map[string]any); res["state"] != "done" || res["repository"] != "lib" || res["path"] != target {
					t.Fatalf("operations.get after the crash: %v", got)
				}
			} else if e, _ := got["error"].(map[string]any); errCode(got) != c.state || e["repository"] != "lib" {
				t.Fatalf("operations.get after the crash: %v", got)
			}
			res := r.api("drafts.stage", in)
			if res["repository"] != "lib" || res["path"] != target {
				t.Fatalf("retry: %v", res)
			}
			if staged := lib.git("diff", "--cached", "--name-only"); staged != target {
				t.Fatalf("staged in lib: %q", staged)
			}
			if staged := r.git("diff", "--cached", "--name-only"); strings.Contains(staged, "careful") {
				t.Fatalf("staged in the outer repository: %q", staged)
			}
			if got := r.api("operations.get", `{"operation_id":"`+opID+`"}`); got["state"] != "done" || got["repository"] != "lib" {
				t.Fatalf("operations.get after the retry: %v", got)
			}
			if again := r.api("drafts.stage", in); again["replayed"] != true {
				t.Fatalf("second retry: %v", again)
			}
			entries, _ := os.ReadDir(filepath.Join(lib.dir, ".ai", "conventions"))
			if len(entries) != 1 {
				t.Fatalf("lib conventions: %v", entries)
			}
		})
	}
}
