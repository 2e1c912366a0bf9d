package git

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kontext/kontext/internal/gittest"
)

func newRepo(tb testing.TB) *gittest.Repo { return gittest.New(tb) }

// objects opens r's object database, with go-git's storage as the
// fallback or without one (then only the packs can answer).
func objects(r *gittest.Repo, withFallback bool) *Objects {
	r.TB.Helper()
	o := OpenObjects(r.GitDir(), nil)
	if withFallback {
		o = OpenObjects(r.GitDir(), gittest.Storage(r.TB, r.GitDir()))
	}
	r.TB.Cleanup(o.Close)
	return o
}

// buildFixture is gittest.Fixture plus the cases only a differ's full
// output shows: a change deep below an unchanged sibling, a name sorting
// between "dir" and "dir/", a name git quotes, a symlink turned file and
// whole trees deleted. It returns the commits in order.
func buildFixture(r *gittest.Repo) []string {
	cs := gittest.Fixture(r)
	r.Write("dir/deep/er/d.txt", "d\n")
	r.Write("dir/deep/er/e.txt", "e\n")
	r.Write("dir.txt", "sorts between dir and dir/\n")
	r.Write("tab\there.txt", "quoted by git\n")
	cs = append(cs, r.Commit("more nesting and odd names"))
	r.Write("dir/deep/er/d.txt", "d2\n")
	cs = append(cs, r.Commit("a change deep below"))
	r.Git("rm", "-q", "link")
	r.Write("link", "the symlink became a file\n")
	cs = append(cs, r.Commit("symlink becomes a file"))
	if err := os.Remove(filepath.Join(r.Dir, "tab\there.txt")); err != nil {
		r.TB.Fatal(err)
	}
	r.Git("rm", "-rq", "z", "dir/deep")
	cs = append(cs, r.Commit("delete whole trees"))
	return cs
}
