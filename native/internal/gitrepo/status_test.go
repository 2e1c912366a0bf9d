package gitrepo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// statusOracle is git status's list of changed paths (untracked files one
// by one, no rename detection), as Uncommitted lists them.
func statusOracle(r *trepo) []string {
	r.t.Helper()
	cmd := exec.Command("git", "status", "--porcelain", "-uall", "--no-renames", "-z")
	cmd.Dir = r.dir
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git status: %v", err)
	}
	var want []string
	for _, line := range strings.Split(string(out), "\x00") {
		if len(line) > 3 {
			want = append(want, line[3:])
		}
	}
	sort.Strings(want)
	return want
}

// checkStatusScan compares the status scan with the go-git path and with
// git status; the scan must have answered (not fallen back).
func checkStatusScan(t *testing.T, r *trepo, label string) []string {
	t.Helper()
	repo := r.open()
	ctx := context.Background()
	fast, err := repo.uncommittedFast(ctx)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	eager, err := repo.uncommittedGoGit(ctx)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	if !reflect.DeepEqual(fast, eager) {
		t.Errorf("%s: status scan %q\n go-git path %q", label, fast, eager)
	}
	if want := statusOracle(r); strings.Join(fast, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: status scan %q\n git status  %q", label, fast, want)
	}
	return fast
}

// TestStatusScan: the status scan equals the go-git path and git status
// on modified, staged, untracked, deleted, renamed, racily clean, mode
// changed, type changed, ignored, skip-worktree, intent-to-add and
// conflicted files, names that sort around '/', an untracked nested
// repository, index versions 2 to 4 and a split index (the go-git path).
func TestStatusScan(t *testing.T) {
	gitEnv(t)
	r := newTRepo(t, "")
	files := map[string]string{
		".gitignore":         "*.log\n/build/\n",
		"sub/.gitignore":     "secret*\n!secret-ok.txt\n",
		"modified.txt":       "m\n",
		"same-size.txt":      "aaaa\n",
		"staged.txt":         "s\n",
		"deleted.txt":        "d\n",
		"removed.txt":        "r\n",
		"renamed.txt":        "rename me\n",
		"clean.txt":          "c\n",
		"exec.sh":            "#!/bin/sh\n",
		"becomes-dir":        "file\n",
		"dir-becomes-file/x": "x\n",
		"tracked.log":        "tracked but ignored\n",
		"skip.txt":           "skip\n",
		"conflict.txt":       "base\n",
		"a/b":                "ab\n",
		"a-b":                "a-b\n",
		"a.b/c":              "a.b/c\n",
		"a/b0":               "ab0\n",
		"a0":                 "a0\n",
		"ünï/cødé.txt":       "u\n",
		"deep/x/y/z.txt":     "z\n",
		"sub/keep.txt":       "k\n",
		"build/tracked.txt":  "tracked in an ignored directory\n",
	}
	for p, c := range files {
		r.write(p, c)
	}
	racy := filepath.Join(r.dir, "racy.txt")
	r.write("racy.txt", "one\n")
	future := time.Now().Add(time.Hour).Truncate(time.Second)
	os.Chtimes(racy, future, future)
	r.git("add", "-f", "tracked.log", "build/tracked.txt")
	if err := os.Symlink("clean.txt", filepath.Join(r.dir, "link")); err != nil {
		t.Skip(err)
	}
	r.commit("base")
	checkStatusScan(t, r, "clean")

	// A conflict: both branches change conflict.txt.
	r.git("checkout", "-q", "-b", "other")
	r.write("conflict.txt", "other\n")
	r.commit("other")
	r.git("checkout", "-q", "main")
	r.write("conflict.txt", "main\n")
	r.commit("main")
	r.tryGit("merge", "-q", "other")

	r.write("modified.txt", "m2\n")
	r.write("same-size.txt", "bbbb\n")
	r.write("staged.txt", "s2\n")
	r.git("add", "staged.txt")
	os.Remove(filepath.Join(r.dir, "deleted.txt"))
	r.git("rm", "-q", "removed.txt")
	r.git("mv", "renamed.txt", "renamed-to.txt")
	os.Chmod(filepath.Join(r.dir, "exec.sh"), 0o755)
	os.Remove(filepath.Join(r.dir, "becomes-dir"))
	r.write("becomes-dir/inside.txt", "now a directory\n")
	os.RemoveAll(filepath.Join(r.dir, "dir-becomes-file"))
	r.write("dir-becomes-file", "now a file\n")
	os.Remove(filepath.Join(r.dir, "link"))
	os.Symlink("modified.txt", filepath.Join(r.dir, "link"))
	r.write("tracked.log", "changed\n")
	r.write("build/tracked.txt", "changed too\n")
	r.write("build/untracked.txt", "ignored\n")
	r.git("update-index", "--skip-worktree", "skip.txt")
	r.write("skip.txt", "changed but skipped\n")
	r.write("intent.txt", "intent\n")
	r.git("add", "-N", "intent.txt")
	r.write("new.txt", "n\n")
	r.write("deep/er/new.txt", "n\n")
	r.write("a/b1", "untracked beside a/b\n")
	r.write("a.b/d", "untracked\n")
	r.write("debug.log", "ignored\n")
	r.write("sub/secret.txt", "ignored\n")
	r.write("sub/secret-ok.txt", "shown\n")
	r.write("excluded.tmp", "ignored\n")
	r.write(".git/info/exclude", "*.tmp\n")
	if err := os.MkdirAll(filepath.Join(r.dir, "empty/dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(r.dir, "nested"), 0o755); err != nil {
		t.Fatal(err)
	}
	nested := newTRepo(t, filepath.Join(r.dir, "nested"))
	nested.write("n.txt", "n\n")
	nested.commit("nested")
	checkStatusScan(t, r, "changed")

	// Racily clean: an entry whose mtime is not older than the index.
	// Same size and mtime, other content: only the content tells.
	if got := checkStatusScan(t, r, "racy, unchanged"); contains(got, "racy.txt") {
		t.Error("racy.txt is listed unchanged")
	}
	r.write("racy.txt", "two\n")
	os.Chtimes(racy, future, future)
	if got := checkStatusScan(t, r, "racy, changed"); !contains(got, "racy.txt") {
		t.Error("racy.txt is not listed changed")
	}

	for _, v := range []string{"4", "3", "2"} {
		r.git("update-index", "--index-version", v)
		checkStatusScan(t, r, "index version "+v)
	}

	// A split index is the go-git path's (which refuses it today).
	r.git("update-index", "--split-index")
	repo := r.open()
	if _, err := repo.uncommittedFast(context.Background()); !errors.Is(err, errNoFastStatus) {
		t.Errorf("split index: the status scan answered (%v)", err)
	}
	got, err := repo.uncommitted(context.Background())
	want, wantErr := repo.uncommittedGoGit(context.Background())
	if !reflect.DeepEqual(got, want) || (err == nil) != (wantErr == nil) {
		t.Errorf("split index: %q, %v; go-git path %q, %v", got, err, want, wantErr)
	}
}
