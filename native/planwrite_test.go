package native

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// planWriteRepo is a repository with one committed convention that
// drafts.confirm and a superseding drafts.stage rewrite.
func planWriteRepo(t *testing.T) *repo {
	r := newRepo(t)
	r.write(map[string]string{
		".ai/conventions/2026-01-02-old-rule.md": "---\nstatus: active\n---\n# Old rule\n\nKeep it.\n",
		"other.txt":                              "x\n",
	})
	r.commit("2026-01-05T10:00:00Z", "initial")
	return r
}

// pausedWrite runs `kontext api op` in a -tags faultinject build held at
// the writer's fault point (KONTEXT_FAULT=point): once it pauses, during
// runs, then the write goes on. It returns the answer's envelope.
func pausedWrite(t *testing.T, r *repo, op, input, point string, during func()) map[string]any {
	t.Helper()
	bin := kontextBin(t, "kontext-fault")
	wait := filepath.Join(t.TempDir(), "go")
	cmd := exec.Command(bin, "-C", r.dir, "api", op, "-")
	cmd.Stdin = strings.NewReader(input)
	cmd.Env = append(os.Environ(), "KONTEXT_FAULT="+point, "KONTEXT_FAULT_WAIT="+wait)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	paused := false
	for !paused {
		select {
		case err := <-done:
			t.Fatalf("%s finished without pausing at %s (%v): %s%s", op, point, err, stdout.String(), stderr.String())
		case <-time.After(5 * time.Millisecond):
			_, err := os.Stat(wait + ".paused")
			paused = err == nil
		}
	}
	during()
	if err := os.WriteFile(wait, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	<-done
	var m map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
		t.Fatalf("%s answered no envelope: %s%s", op, stdout.String(), stderr.String())
	}
	return m
}

// checkUserEditKept asserts the answer is operation_conflict naming file,
// the working file is exactly want (the user's content), nothing is staged
// and the receipt of opID is not done.
func checkUserEditKept(t *testing.T, r *repo, m map[string]any, file, want, opID string) {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	if errCode(m) != "operation_conflict" || !strings.Contains(e["message"].(string), file) {
		t.Fatalf("answer %v, want operation_conflict naming %s", m, file)
	}
	if got := r.read(file); got != want {
		t.Fatalf("working %s:\n%q\nwant the user's\n%q", file, got, want)
	}
	if staged := strings.TrimSpace(r.git("diff", "--cached", "--name-only")); staged != "" {
		t.Fatalf("staged after the conflict: %s", staged)
	}
	// Nothing else of kontext's change is left in the worktree either.
	if st := r.git("status", "--porcelain", "--untracked-files=all"); st != "M "+file { // git() trims the leading space
		t.Fatalf("git status after the conflict: %q", st)
	}
	if data, err := os.ReadFile(r.receiptPath(opID)); err == nil {
		var rc map[string]any
		json.Unmarshal(data, &rc)
		if rc["state"] == "done" {
			t.Fatalf("receipt marked done: %s", data)
		}
	}
	if tmps := tempFiles(t, r.dir); len(tmps) != 0 {
		t.Fatalf("temporary files left: %v", tmps)
	}
}

const planWriteFile = ".ai/conventions/2026-01-02-old-rule.md"

var planWriteOps = []struct{ name, op, input string }{
	{"confirm", "drafts.confirm", `{"id":"2026-01-02-old-rule","operation_id":"pw-op"}`},
	{"supersede", "drafts.stage", `{"operation_id":"pw-op","entry":{"kind":"convention","title":"New rule","supersedes":["2026-01-02-old-rule"]}}`},
}

// An outside edit between plan and rename: the check before the rename
// refuses the write and the user's edit stays.
func TestPlanWriteEditBeforeRename(t *testing.T) {
	for _, c := range planWriteOps {
		t.Run(c.name, func(t *testing.T) {
			r := planWriteRepo(t)
			orig := r.read(planWriteFile)
			m := pausedWrite(t, r, c.op, c.input, "pause_before_rename", func() {
				r.appendFile(planWriteFile, "USER EDIT\n")
			})
			checkUserEditKept(t, r, m, planWriteFile, orig+"USER EDIT\n", "pw-op")
		})
	}
}

// An outside writer that opened the file before the rename and writes
// right after it (into the old inode): the re-read through kontext's
// handle finds it and puts the user's content back.
func TestPlanWriteEditAfterRename(t *testing.T) {
	for _, c := range planWriteOps {
		t.Run(c.name, func(t *testing.T) {
			r := planWriteRepo(t)
			orig := r.read(planWriteFile)
			f, err := os.OpenFile(filepath.Join(r.dir, planWriteFile), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m := pausedWrite(t, r, c.op, c.input, "pause_after_rename", func() {
				if _, err := f.WriteString("USER EDIT\n"); err != nil {
					t.Fatal(err)
				}
			})
			checkUserEditKept(t, r, m, planWriteFile, orig+"USER EDIT\n", "pw-op")
		})
	}
}

// Without an outside writer the checked rewrite goes through as before.
func TestPlanWriteNoEdit(t *testing.T) {
	r := planWriteRepo(t)
	m := pausedWrite(t, r, "drafts.confirm", planWriteOps[0].input, "pause_before_rename", func() {})
	if errCode(m) != "" || m["ok"] != true {
		t.Fatalf("answer %v", m)
	}
	if !strings.Contains(r.git("diff", "--cached", "--name-only"), planWriteFile) {
		t.Fatal("confirm staged nothing")
	}
}
