package native

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// runCLI runs `bin -C dir args…` with env added; it returns stdout,
// stderr and the exit code.
func runCLI(t *testing.T, bin, dir string, args []string, env ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-C", dir}, args...)...)
	cmd.Stdin = strings.NewReader("")
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// incompleteOps is status's incomplete_operations.
func incompleteOps(t *testing.T, r *repo) []map[string]any {
	t.Helper()
	st := r.api("status", `{}`)
	raw, ok := st["incomplete_operations"].([]any)
	if !ok {
		t.Fatalf("status without incomplete_operations: %v", st["incomplete_operations"])
	}
	var out []map[string]any
	for _, x := range raw {
		out = append(out, x.(map[string]any))
	}
	return out
}

// TestKilledNewResumes kills `kontext new` after its entry file is written
// and before it is staged and receipted (issue 42 item 7): status names the
// unfinished write with the command that resumes it, and that same command
// run again stages the entry (no near-duplicate refusal of its own file),
// after which status lists nothing and a further rerun is a replay.
func TestKilledNewResumes(t *testing.T) {
	testrepo.Env(t)
	fault := kontextBin(t, "kontext-fault")
	for _, point := range []string{"after_plan", "after_write", "after_stage"} {
		t.Run(point, func(t *testing.T) {
			r := seededRepo(t)
			args := []string{"new", "convention", "Resume me safely", "--body", "Body.", "--tag", "ops"}
			out, errOut, code := runCLI(t, fault, r.dir, args, "KONTEXT_FAULT="+point)
			if code != 99 {
				t.Fatalf("exit %d, want 99 (killed): %s%s", code, out, errOut)
			}
			glob := filepath.Join(r.dir, ".ai/conventions/*resume-me-safely*")
			ops := incompleteOps(t, r)
			if len(ops) != 1 {
				t.Fatalf("incomplete_operations: %v", ops)
			}
			op := ops[0]
			want := "kontext -C " + r.dir + " new convention 'Resume me safely' --body Body. --tag ops"
			if op["command"] != want || op["operation"] != "drafts.stage" ||
				!strings.HasPrefix(op["operation_id"].(string), "cli-new-") || op["since"] == nil {
				t.Fatalf("incomplete operation %v, want command %q", op, want)
			}
			human, _, code := runCLI(t, fault, r.dir, []string{"status"})
			if code != 0 || !strings.Contains(human, op["operation_id"].(string)) || !strings.Contains(human, "run again: "+want) {
				t.Fatalf("status (%d):\n%s", code, human)
			}
			out, errOut, code = runCLI(t, fault, r.dir, args)
			if code != 0 || !strings.Contains(out, "staged ") {
				t.Fatalf("rerun: exit %d\n%s%s", code, out, errOut)
			}
			files, _ := filepath.Glob(glob)
			if len(files) != 1 {
				t.Fatalf("entry files: %v", files)
			}
			rel, _ := filepath.Rel(r.dir, files[0])
			if staged := r.git("diff", "--cached", "--name-only"); staged != filepath.ToSlash(rel)+"\nother.txt" {
				t.Fatalf("staged: %q", staged)
			}
			if ops := incompleteOps(t, r); len(ops) != 0 {
				t.Fatalf("incomplete_operations after the rerun: %v", ops)
			}
			if human, _, _ := runCLI(t, fault, r.dir, []string{"status"}); strings.Contains(human, "unfinished") {
				t.Fatalf("status after the rerun:\n%s", human)
			}
			// Once more: the stored result, nothing written again.
			out, errOut, code = runCLI(t, fault, r.dir, append(args, "--json"))
			var res map[string]any
			if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res["replayed"] != true || res["path"] != filepath.ToSlash(rel) {
				t.Fatalf("second rerun: exit %d\n%s%s", code, out, errOut)
			}
			if files, _ := filepath.Glob(glob); len(files) != 1 {
				t.Fatalf("entry files after the replay: %v", files)
			}
		})
	}
}

// TestIncompleteFromAPI: a plan stored by an API request names the API
// operation to send again.
func TestIncompleteFromAPI(t *testing.T) {
	testrepo.Env(t)
	fault := kontextBin(t, "kontext-fault")
	r := seededRepo(t)
	if got := incompleteOps(t, r); len(got) != 0 {
		t.Fatalf("fresh repository: %v", got)
	}
	in := `{"operation_id":"api-1","entry":{"kind":"convention","title":"From the API","body":"B.\n"}}`
	if _, code, out := runAPI(fault, r.dir, "drafts.stage", in, "KONTEXT_FAULT=after_write"); code != 99 {
		t.Fatalf("exit %d: %s", code, out)
	}
	ops := incompleteOps(t, r)
	if len(ops) != 1 || ops[0]["operation_id"] != "api-1" || ops[0]["command"] != "drafts.stage" {
		t.Fatalf("incomplete_operations: %v", ops)
	}
	human, _, _ := runCLI(t, fault, r.dir, []string{"status"})
	if !strings.Contains(human, `send drafts.stage again with operation_id "api-1"`) {
		t.Fatalf("status:\n%s", human)
	}
	r.api("drafts.stage", in)
	if ops := incompleteOps(t, r); len(ops) != 0 {
		t.Fatalf("after the retry: %v", ops)
	}
}

// TestCLIRerunReplays: the CLI's lifecycle writes derive their id from
// what the user typed, not from the entry's revision (which the write
// changes) or today's date: the same command again answers the first
// result and writes nothing twice.
func TestCLIRerunReplays(t *testing.T) {
	testrepo.Env(t)
	bin := kontextBin(t, "kontext")
	r := seededRepo(t)
	r.git("reset", "-q", "other.txt")
	for _, args := range [][]string{
		{"extend", "2026-01-02-old-rule", "Also on Sundays."},
		{"retire", "2026-01-02-old-rule", "--reason", "replaced by the new process"},
	} {
		out, errOut, code := runCLI(t, bin, r.dir, append(args, "--json"))
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		before := r.read(".ai/conventions/2026-01-02-old-rule.md")
		out, errOut, code = runCLI(t, bin, r.dir, append(args, "--json"))
		var res map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res["replayed"] != true {
			t.Fatalf("%v again: exit %d\n%s%s", args, code, out, errOut)
		}
		if after := r.read(".ai/conventions/2026-01-02-old-rule.md"); after != before {
			t.Fatalf("%v again changed the file:\n%s", args, after)
		}
		r.commit("2026-01-06T10:00:00Z", args[0])
	}
}

// TestKilledLifecycleResumes: retire, extend and accept killed after their
// file is written are finished by the same command again, although the
// request the CLI would build now differs (the file's revision changed):
// the rerun sends the stored request.
func TestKilledLifecycleResumes(t *testing.T) {
	testrepo.Env(t)
	fault := kontextBin(t, "kontext-fault")
	for _, tc := range []struct {
		args []string
		file string
		want string
	}{
		{[]string{"retire", "2026-01-02-old-rule", "--reason", "gone"}, ".ai/conventions/2026-01-02-old-rule.md", "status: deprecated"},
		{[]string{"extend", "2026-01-02-old-rule", "Also on Sundays."}, ".ai/conventions/2026-01-02-old-rule.md", "Also on Sundays."},
		{[]string{"accept", "2026-01-03-use-pg"}, ".ai/decisions/2026-01-03-use-pg.md", "status: accepted"},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			r := newRepo(t)
			r.write(map[string]string{
				".ai/conventions/2026-01-02-old-rule.md": "---\nstatus: active\n---\n# Old rule\n\nBody.\n",
				".ai/decisions/2026-01-03-use-pg.md":     "---\nstatus: proposed\n---\n# Use pg\n\nBody.\n",
			})
			r.commit("2026-01-05T10:00:00Z", "initial")
			if out, errOut, code := runCLI(t, fault, r.dir, tc.args, "KONTEXT_FAULT=after_write"); code != 99 {
				t.Fatalf("exit %d, want 99: %s%s", code, out, errOut)
			}
			if ops := incompleteOps(t, r); len(ops) != 1 || !strings.HasPrefix(ops[0]["command"].(string), "kontext -C "+r.dir+" "+tc.args[0]+" "+tc.args[1]) {
				t.Fatalf("incomplete_operations: %v", ops)
			}
			if out, errOut, code := runCLI(t, fault, r.dir, tc.args); code != 0 {
				t.Fatalf("rerun: exit %d\n%s%s", code, out, errOut)
			}
			if staged := r.git("diff", "--cached", "--name-only"); staged != tc.file {
				t.Fatalf("staged: %q", staged)
			}
			if got := r.git("show", ":"+tc.file); !strings.Contains(got, tc.want) || strings.Count(got, "## ") > 1 {
				t.Fatalf("staged %s:\n%s", tc.file, got)
			}
			if ops := incompleteOps(t, r); len(ops) != 0 {
				t.Fatalf("after the rerun: %v", ops)
			}
		})
	}
}
