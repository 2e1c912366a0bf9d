package quick

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefStats: a status records the branch HEAD names (its loose ref and
// packed-refs, in the common dir of a linked worktree) and refuses what
// stat data cannot follow.
func TestRefStats(t *testing.T) {
	write := func(p, text string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths := func(st []Stat) string {
		var out []string
		for _, s := range st {
			name := filepath.Base(s.Path)
			if s.Absent {
				name += "(absent)"
			}
			out = append(out, name)
		}
		return strings.Join(out, " ")
	}
	git := t.TempDir()
	write(filepath.Join(git, "HEAD"), "ref: refs/heads/main\n")
	if st, ok := RefStats(git); !ok || paths(st) != "main(absent) packed-refs(absent)" {
		t.Errorf("unborn branch: %s %v", paths(st), ok)
	}
	write(filepath.Join(git, "refs/heads/main"), strings.Repeat("a", 40)+"\n")
	write(filepath.Join(git, "packed-refs"), "# pack-refs\n")
	if st, ok := RefStats(git); !ok || paths(st) != "main packed-refs" || st[0].Path != filepath.Join(git, "refs/heads/main") {
		t.Errorf("branch: %v %v", st, ok)
	}
	wt := filepath.Join(git, "worktrees", "other")
	write(filepath.Join(wt, "HEAD"), "ref: refs/heads/main\n")
	write(filepath.Join(wt, "commondir"), "../..\n")
	if st, ok := RefStats(wt); !ok || st[0].Path != filepath.Join(git, "refs/heads/main") {
		t.Errorf("linked worktree: %v %v", st, ok)
	}
	write(filepath.Join(git, "HEAD"), strings.Repeat("b", 40)+"\n")
	if st, ok := RefStats(git); !ok || len(st) != 0 {
		t.Errorf("detached: %v %v", st, ok)
	}
	for _, head := range []string{"ref: refs/tags/v1\n", "ref: refs/heads/../../x\n", "garbage\n"} {
		write(filepath.Join(git, "HEAD"), head)
		if _, ok := RefStats(git); ok {
			t.Errorf("HEAD %q taken", head)
		}
	}
	write(filepath.Join(git, "HEAD"), "ref: refs/heads/main\n")
	write(filepath.Join(git, "refs/heads/main"), "ref: refs/heads/other\n")
	if _, ok := RefStats(git); ok {
		t.Error("a symbolic ref chain taken")
	}
	write(filepath.Join(git, "refs/heads/main"), strings.Repeat("a", 40)+"\n")
	os.MkdirAll(filepath.Join(git, "reftable"), 0o755)
	if _, ok := RefStats(git); ok {
		t.Error("a ref table taken")
	}
}
