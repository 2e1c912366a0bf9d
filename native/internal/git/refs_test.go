package git

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/kontext/kontext/internal/gittest"
)

// checkRefs resolves every ref git lists (and HEAD) and compares with git
// rev-parse.
func checkRefs(t *testing.T, r *gittest.Repo, refs *Refs) int {
	t.Helper()
	names := append(strings.Fields(r.Git("for-each-ref", "--format=%(refname)")), "HEAD")
	for _, name := range names {
		want := r.Git("rev-parse", name)
		got, err := refs.Resolve(name)
		if err != nil || got.String() != want {
			t.Errorf("Resolve(%s) = %s, %v; git says %s", name, got, err, want)
		}
	}
	return len(names)
}

// checkNames compares Names with git for-each-ref, loose and packed refs
// and a symbolic one (origin/HEAD) included.
func checkNames(t *testing.T, r *gittest.Repo, refs *Refs) {
	t.Helper()
	for _, prefix := range []string{"refs/heads/", "refs/remotes/", "refs/tags/"} {
		want := strings.Fields(r.Git("for-each-ref", "--format=%(refname)", prefix))
		got, err := refs.Names(prefix)
		if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("Names(%s) = %v, %v; git says %v", prefix, got, err, want)
		}
	}
}

func TestRefs(t *testing.T) {
	src := newRepo(t)
	src.Write("a.txt", "a\n")
	src.Commit("first")
	src.Git("tag", "light")
	src.Git("tag", "-a", "-m", "annotated", "v1")
	src.Git("branch", "feature")
	r := &gittest.Repo{TB: t, Dir: filepath.Join(t.TempDir(), "clone")}
	src.Git("clone", "-q", "file://"+src.Dir, r.Dir) // packed refs, origin/HEAD
	r.Write("b.txt", "b\n")
	r.Commit("second")
	r.Git("branch", "topic")
	refs := OpenRefs(r.GitDir())

	// A clone has packed refs; the new branch is loose.
	if _, err := os.Stat(filepath.Join(r.GitDir(), "packed-refs")); err != nil {
		t.Fatal("the clone has no packed-refs; the test would not test them")
	}
	if n := checkRefs(t, r, refs); n < 6 {
		t.Fatalf("only %d refs", n)
	}
	checkNames(t, r, refs)
	// The annotated tag's ref is the tag object, not the commit.
	if got, _ := refs.Resolve("refs/tags/v1"); got.String() != r.Git("rev-parse", "refs/tags/v1") || got.String() == r.Git("rev-parse", "v1^{commit}") {
		t.Errorf("refs/tags/v1 = %s", got)
	}
	head, err := refs.Ref("HEAD")
	if err != nil || head.Target != "refs/heads/main" {
		t.Errorf("HEAD = %+v, %v", head, err)
	}
	originHead, err := refs.Ref("refs/remotes/origin/HEAD")
	if err != nil || originHead.Target != "refs/remotes/origin/main" {
		t.Errorf("origin/HEAD = %+v, %v", originHead, err)
	}

	// Everything packed, then a loose ref shadowing its packed value.
	r.Git("pack-refs", "--all", "--prune")
	checkRefs(t, r, refs)
	r.Write("c.txt", "c\n")
	r.Commit("third")
	checkRefs(t, r, refs)
	checkNames(t, r, refs)

	ok, err := refs.HasPrefix("refs/remotes/")
	if err != nil || !ok {
		t.Errorf("HasPrefix(refs/remotes/) = %v, %v", ok, err)
	}
	if ok, _ := refs.HasPrefix("refs/nothing/"); ok {
		t.Error("HasPrefix(refs/nothing/) = true")
	}

	// FETCH_HEAD has more than the id on its line.
	r.Git("fetch", "-q", "origin")
	if got, err := refs.Resolve("FETCH_HEAD"); err != nil || got.String() != r.Git("rev-parse", "FETCH_HEAD") {
		t.Errorf("FETCH_HEAD = %s, %v", got, err)
	}

	for _, bad := range []string{"", "refs/heads/nope", "refs/heads", "refs/../config", "refs/heads/", "refs//heads/main", "refs/heads/../../HEAD", "refs\\heads\\main", "NOPE_HEAD"} {
		if _, err := refs.Resolve(bad); !errors.Is(err, plumbing.ErrReferenceNotFound) {
			t.Errorf("Resolve(%q): %v, want ErrReferenceNotFound", bad, err)
		}
	}

	// A detached HEAD.
	r.Git("checkout", "-q", "--detach", "HEAD~1")
	if head, err := refs.Ref("HEAD"); err != nil || head.Target != "" || head.Hash.String() != r.Git("rev-parse", "HEAD") {
		t.Errorf("detached HEAD = %+v, %v", head, err)
	}
}

// TestRefsLinkedWorktree: HEAD is the worktree's own, branches are
// shared.
func TestRefsLinkedWorktree(t *testing.T) {
	r := newRepo(t)
	r.Write("a.txt", "a\n")
	first := r.Commit("first")
	r.Write("a.txt", "b\n")
	r.Commit("second")
	wt := &gittest.Repo{TB: t, Dir: filepath.Join(t.TempDir(), "wt")}
	r.Git("worktree", "add", "-q", "-b", "side", wt.Dir, first)
	gitDir := wt.Git("rev-parse", "--absolute-git-dir")
	refs := OpenRefs(gitDir)
	checkRefs(t, wt, refs)
	if head, err := refs.Ref("HEAD"); err != nil || head.Target != "refs/heads/side" {
		t.Errorf("worktree HEAD = %+v, %v", head, err)
	}
	if h, err := OpenRefs(r.GitDir()).Resolve("HEAD"); err != nil || h.String() == first {
		t.Errorf("main HEAD = %s, %v", h, err)
	}
}

// TestRefsUnborn: before the first commit HEAD names a branch that does
// not exist yet.
func TestRefsUnborn(t *testing.T) {
	r := newRepo(t)
	refs := OpenRefs(r.GitDir())
	head, err := refs.Ref("HEAD")
	if err != nil || head.Target != "refs/heads/main" {
		t.Errorf("HEAD = %+v, %v", head, err)
	}
	if _, err := refs.Resolve("HEAD"); !errors.Is(err, plumbing.ErrReferenceNotFound) {
		t.Errorf("Resolve(HEAD) = %v, want ErrReferenceNotFound", err)
	}
	if ok, err := refs.HasPrefix("refs/remotes/"); ok || err != nil {
		t.Errorf("HasPrefix = %v, %v", ok, err)
	}
	if s, err := Shallow(r.GitDir()); s != nil || err != nil {
		t.Errorf("Shallow = %v, %v", s, err)
	}
}

func TestShallowList(t *testing.T) {
	src := newRepo(t)
	for _, m := range []string{"a", "b", "c", "d"} {
		src.Write("f.txt", m)
		src.Commit(m)
	}
	r := &gittest.Repo{TB: t, Dir: filepath.Join(t.TempDir(), "clone")}
	src.Git("clone", "-q", "--depth", "2", "file://"+src.Dir, r.Dir)
	s, err := Shallow(r.GitDir())
	if err != nil {
		t.Fatal(err)
	}
	want := r.Git("rev-parse", "HEAD~1")
	if len(s) != 1 || !s[plumbing.NewHash(want)] {
		t.Errorf("Shallow = %v, want {%s}", s, want)
	}
}
