package git

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestAlternatesAndIdxV1 reads, without a fallback storage, a clone that
// borrows its objects from another repository (objects/info/alternates,
// loose and packed there, the pack with a version-1 index) and resolves
// abbreviated ids found only there.
func TestAlternatesAndIdxV1(t *testing.T) {
	src := newRepo(t)
	src.Write("a.txt", "a\n")
	src.Write("d/b.txt", "b\n")
	src.Commit("packed")
	// Repack with a version-1 index (git before 1.5.2 wrote them).
	src.Git("repack", "-a", "-d", "-q")
	idxs, _ := filepath.Glob(filepath.Join(src.GitDir(), "objects", "pack", "*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("%d pack indexes", len(idxs))
	}
	pack := strings.TrimSuffix(idxs[0], ".idx") + ".pack"
	if err := os.Remove(idxs[0]); err != nil {
		t.Fatal(err)
	}
	src.Git("index-pack", "--index-version=1", pack)
	if v1, _ := os.ReadFile(idxs[0]); len(v1) < 4 || string(v1[:4]) == "\xfftOc" {
		t.Fatal("git did not write a version-1 index")
	}
	src.Write("c.txt", "loose\n")
	src.Commit("loose")

	clone := newRepo(t)
	rel, err := filepath.Rel(filepath.Join(clone.GitDir(), "objects"), filepath.Join(src.GitDir(), "objects"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(clone.GitDir(), "objects", "info", "alternates"), []byte("# borrowed\n"+rel+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clone.Git("fetch", "-q", src.Dir, "main:borrowed")
	clone.Git("checkout", "-q", "borrowed")
	n := checkAllObjects(t, clone, objects(clone, false))
	if n < 8 {
		t.Fatalf("only %d objects", n)
	}

	o := objects(clone, false)
	head := clone.Git("rev-parse", "HEAD")
	hs, err := o.HashesWithPrefix(head[:7])
	if err != nil || len(hs) != 1 || hs[0] != plumbing.NewHash(head) {
		t.Errorf("HashesWithPrefix(%s) = %v, %v", head[:7], hs, err)
	}
	first := clone.Git("rev-parse", "HEAD~1")
	hs, err = o.HashesWithPrefix(first[:7])
	if err != nil || len(hs) != 1 || hs[0] != plumbing.NewHash(first) {
		t.Errorf("HashesWithPrefix(%s) in the v1-indexed pack = %v, %v", first[:7], hs, err)
	}
}
