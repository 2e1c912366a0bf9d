package gitrepo

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/gittest"
)

// TestBlobs compares Blobs with git ls-files --stage (stage 0) and git
// ls-tree -r HEAD on paths that are committed, staged, modified, deleted,
// untracked, nested, directories, below a file, odd (spaces, quotes,
// non-ASCII, names sorting around "/") or invalid; on loose objects and
// after git gc (packed objects), with index versions 2 and 4.
func TestBlobs(t *testing.T) {
	r := gittest.New(t)
	files := []string{
		"top.md", "a/b/c/deep.md", "a/b/c/deep2.md", "a/b/side.md", "a-b/x.md", "a.b", "a/x.md",
		"sp ace/n ame.md", "quo\"te.md", "ünï/cödé.md", "dir/sub/f.md", "stage/old.md", "gone.md",
	}
	for _, f := range files {
		r.Write(f, "v1 "+f+"\n")
	}
	if err := os.Symlink("top.md", filepath.Join(r.Dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	r.Commit("base")
	r.Write("stage/old.md", "staged\n")
	r.Write("stage/new.md", "new and staged\n")
	r.Git("add", "stage")
	r.Write("a/b/side.md", "modified, not staged\n")
	r.Write("untracked.md", "u\n")
	r.Git("rm", "-q", "--cached", "gone.md")
	ask := append(files, "link.md", "stage/new.md", "untracked.md", "a", "a/b", "a/b/c", "dir/sub",
		"top.md/x", "missing/file.md", "a/b/missing.md", "../x", ".git/config", "", "a//x.md", "a/x.md/")

	check := func(stage string) {
		t.Helper()
		repo, err := Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		index, head, err := repo.Blobs(context.Background(), ask)
		if err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		wantIndex, wantHead := map[string]string{}, map[string]string{}
		wanted := map[string]bool{}
		for _, p := range ask {
			wanted[p] = true
		}
		for _, rec := range strings.Split(string(r.Run(nil, "ls-files", "--stage", "-z")), "\x00") {
			meta, p, ok := strings.Cut(rec, "\t") // <mode> <sha> <stage>\t<path>
			if f := strings.Fields(meta); ok && f[2] == "0" && wanted[p] {
				wantIndex[p] = f[1]
			}
		}
		for _, rec := range strings.Split(string(r.Run(nil, "ls-tree", "-r", "-z", "HEAD")), "\x00") {
			meta, p, ok := strings.Cut(rec, "\t") // <mode> <type> <sha>\t<path>
			if f := strings.Fields(meta); ok && f[1] == "blob" && wanted[p] {
				wantHead[p] = f[2]
			}
		}
		if !maps.Equal(index, wantIndex) {
			t.Errorf("%s: index blobs\n got %v\nwant %v", stage, index, wantIndex)
		}
		if !maps.Equal(head, wantHead) {
			t.Errorf("%s: HEAD blobs\n got %v\nwant %v", stage, head, wantHead)
		}
		if len(wantIndex) < 14 || len(wantHead) < 14 {
			t.Fatalf("%s: the fixture lost its paths: %d in the index, %d in HEAD", stage, len(wantIndex), len(wantHead))
		}
	}
	check("loose objects")
	r.Git("update-index", "--index-version", "4")
	check("index version 4")
	r.Git("gc", "-q")
	check("packed objects")
}
