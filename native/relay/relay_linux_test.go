package relay

import (
	"os"
	"path"
	"testing"
)

func TestTarget(t *testing.T) {
	for _, c := range []struct {
		args []string
		dir  string
		ok   bool
	}{
		{[]string{"governing", "a.go"}, ".", true},
		{[]string{"-C", "repo", "governing", "a.go"}, "repo", true},
		{[]string{"-C=repo", "--json", "status"}, "repo", true},
		{[]string{"-Crepo", "list"}, "repo", true},
		{[]string{"--jq", ".x", "list"}, ".", true},
		{[]string{"--color", "never", "show", "7"}, ".", true},
		{[]string{"api", "entries.governing", "{}"}, ".", true},
		{[]string{"api", "entries.governing", "-"}, "", false}, // stdin
		{[]string{"--progress", "jsonl", "api", "status"}, "", false},
		{[]string{"--progress=jsonl", "status"}, "", false},
		{[]string{"daemon", "status"}, ".", false}, // the command is daemon
		{[]string{"new", "learning", "list"}, ".", false},
		{[]string{"--version"}, ".", false},
		{[]string{"-C"}, "", false},
		{[]string{"governing", "--", "-a.go"}, ".", true},
	} {
		dir, ok := target(c.args)
		if ok != c.ok || (ok && dir != c.dir) {
			t.Errorf("%q: got %q %v, want %q %v", c.args, dir, ok, c.dir, c.ok)
		}
	}
}

func TestFindGitDir(t *testing.T) {
	root := t.TempDir()
	mkdir(t, root+"/.git")
	mkdir(t, root+"/a/b")
	if got := FindGitDir(root + "/a/b"); got != root+"/.git" {
		t.Errorf("from a subdirectory: %q", got)
	}
	// A linked worktree's .git file names its git dir, relative or absolute.
	wt := t.TempDir()
	write(t, wt+"/.git", "gitdir: ../elsewhere/.git/worktrees/w\n")
	mkdir(t, wt+"/x")
	if got, want := FindGitDir(wt+"/x"), pathJoin(wt, "../elsewhere/.git/worktrees/w"); got != want {
		t.Errorf("worktree: %q, want %q", got, want)
	}
	if top, _ := FindRepo(wt + "/x"); top != wt {
		t.Errorf("the worktree's top: %q, want %q", top, wt)
	}
	if top, _ := FindRepo(root + "/a/b"); top != root {
		t.Errorf("the repository's top: %q, want %q", top, root)
	}
	bad := t.TempDir()
	write(t, bad+"/.git", "not a gitdir line")
	if got := FindGitDir(bad); got != "" {
		t.Errorf("a .git file without gitdir: %q", got)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func pathJoin(a, b string) string { return path.Join(a, b) }
