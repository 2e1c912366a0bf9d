package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/apierr"
)

func TestChangedSince(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	r := fixture(t) // main: c1, c2, c3 (a/b/c.txt); feature from c2: f.txt
	r.git("checkout", "-q", "-b", "topic", "t2")
	r.write("a/b/new.txt", "n\n")
	r.write("x.txt", "x3\n")
	r.commit("t1")
	r.git("rm", "-q", "a/d.txt")
	r.commit("t2-rm")
	r.write("dirty.txt", "u\n")
	repo := r.open()

	// main moved on (c3 changed a/b/c.txt): base...HEAD starts at the merge base.
	got, err := repo.ChangedSince(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a/b/new.txt", "a/d.txt", "dirty.txt", "x.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("ChangedSince(main) = %v, want %v", got, want)
	}
	if gitOut, ok := r.tryGit("diff", "--name-only", "main...HEAD"); ok {
		committed := slices.DeleteFunc(slices.Clone(got), func(p string) bool { return p == "dirty.txt" })
		if strings.Join(committed, "\n") != gitOut {
			t.Errorf("committed part %v differs from git diff --name-only main...HEAD:\n%s", committed, gitOut)
		}
	}

	// HEAD itself: only the uncommitted file.
	got, err = repo.ChangedSince(ctx, "HEAD")
	if err != nil || !slices.Equal(got, []string{"dirty.txt"}) {
		t.Errorf("ChangedSince(HEAD) = %v, %v", got, err)
	}

	if _, err := repo.ChangedSince(ctx, "no-such-branch"); apierr.CodeOf(err) != apierr.InvalidInput {
		t.Errorf("unknown base: err = %v, want invalid_input", err)
	}

	b, err := repo.Branch()
	if err != nil || b != "topic" {
		t.Errorf("Branch() = %q, %v; want topic", b, err)
	}
	r.git("checkout", "-q", "--detach", "HEAD")
	if b, err := r.open().Branch(); err != nil || b != "" {
		t.Errorf("detached Branch() = %q, %v; want \"\"", b, err)
	}
}

func TestBranchBeforeFirstCommit(t *testing.T) {
	gitEnv(t)
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", "-b", "trunk")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := repo.Branch(); err != nil || b != "trunk" {
		t.Errorf("Branch() = %q, %v; want trunk", b, err)
	}
	got, err := repo.ChangedSince(context.Background(), "whatever")
	if err != nil || !slices.Equal(got, []string{"a.txt"}) {
		t.Errorf("ChangedSince without commits = %v, %v; want [a.txt]", got, err)
	}
}
