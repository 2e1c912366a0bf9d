package gogit

import (
	"errors"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// TestRawObjectsMatchGoGit checks the raw-object layer against go-git's
// plumbing/object on this repository's own history.
func TestRawObjectsMatchGoGit(t *testing.T) {
	r, err := Open(".")
	if err != nil {
		t.Skip("not inside a git repository:", err)
	}
	ref, err := storer.ResolveReference(r.st, plumbing.HEAD)
	if err != nil {
		t.Skip("no HEAD:", err)
	}
	h := ref.Hash()
	for i := 0; i < 50 && !h.IsZero(); i++ {
		want, err := object.GetCommit(r.st, h)
		if err != nil {
			t.Skip("history not available:", err)
		}
		got, err := r.commit(h)
		if err != nil {
			t.Fatal(err)
		}
		if got.TreeHash != want.TreeHash || len(got.ParentHashes) != len(want.ParentHashes) || got.CommitterTime != want.Committer.When.Unix() {
			t.Fatalf("commit %s: got %+v, want tree %s parents %v time %d", h, got, want.TreeHash, want.ParentHashes, want.Committer.When.Unix())
		}
		wt, _ := want.Tree()
		gt, err := r.tree(got.TreeHash)
		if err != nil {
			t.Fatal(err)
		}
		paths := []string{"", "go.mod", "internal", "internal/gogit", "internal/gogit/objects.go", "go.mod/x", "nope", "nope/x", "internal/nope/x", ".git", "a/../b", "internal//gogit", "internal/gogit/", "x\\y"}
		for _, e := range wt.Entries {
			paths = append(paths, e.Name, e.Name+"/x")
		}
		for _, p := range paths {
			// A fresh tree per lookup: go-git caches subtrees per *Tree
			// keyed by filepath.Join, which makes "a//b" depend on earlier
			// lookups; the raw layer has no such cache.
			wt, _ := want.Tree()
			we, werr := wt.FindEntry(p)
			ge, gerr := r.findEntry(gt, p)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("%s FindEntry(%q): got %v, want %v", h, p, gerr, werr)
			}
			if werr == nil && (we.Name != ge.Name || we.Mode != ge.Mode || we.Hash != ge.Hash) {
				t.Fatalf("%s FindEntry(%q): got %+v, want %+v", h, p, ge, we)
			}
			wf, werr := wt.File(p)
			gd, gerr := r.fileContents(gt, p)
			if (werr == nil) != (gerr == nil) || errors.Is(werr, object.ErrFileNotFound) != errors.Is(gerr, errFileNotFound) {
				t.Fatalf("%s File(%q): got %v, want %v", h, p, gerr, werr)
			}
			if werr == nil {
				if s, _ := wf.Contents(); s != string(gd) {
					t.Fatalf("%s File(%q): contents differ", h, p)
				}
			}
		}
		if len(want.ParentHashes) == 0 {
			break
		}
		h = want.ParentHashes[0]
	}
}

func TestParseTagTarget(t *testing.T) {
	target := "0123456789abcdef0123456789abcdef01234567"
	h, err := parseTagTarget([]byte("object " + target + "\ntype commit\ntag v1\ntagger A <a@b> 1 +0000\n\nmsg\n"))
	if err != nil || h.String() != target {
		t.Fatalf("got %s, %v", h, err)
	}
	for _, bad := range []string{"", "type commit\n", "object xyz\n", "object " + target + "\ntype nope\n", "object " + target + "\ntag v1\n", "object " + target + "\ntype commit\n\n"} {
		if _, err := parseTagTarget([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
