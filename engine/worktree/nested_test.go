package worktree

import (
	"io/fs"
	"reflect"
	"testing"
	"time"

	"github.com/kontext/kontext/engine/api"
)

type fakeInfo struct {
	name string
	mode fs.FileMode
}

func (i fakeInfo) Name() string       { return i.name }
func (i fakeInfo) Size() int64        { return 0 }
func (i fakeInfo) Mode() fs.FileMode  { return i.mode }
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fakeInfo) Sys() any           { return nil }

// TestBoundariesStat: nested checkouts and submodules are found, links,
// files and missing components end the walk, and each directory is
// looked at once however many paths share it.
func TestBoundariesStat(t *testing.T) {
	tree := map[string]fs.FileMode{
		"lib":             fs.ModeDir,
		"lib/.git":        fs.ModeDir, // a nested checkout
		"lib/a":           fs.ModeDir,
		"lib/a/x.go":      0,
		"mod":             fs.ModeDir,
		"mod/.git":        0, // a submodule: .git is a file
		"src":             fs.ModeDir,
		"src/x.go":        0,
		"link":            fs.ModeSymlink, // → lib: never followed
		"src/deep":        fs.ModeDir,
		"src/deep/.git":   fs.ModeDir,
		"src/deep/y/z.go": 0,
	}
	calls := map[string]int{}
	lstat := func(p string) (fs.FileInfo, error) {
		calls[p]++
		m, ok := tree[p]
		if !ok {
			return nil, fs.ErrNotExist
		}
		return fakeInfo{name: p, mode: m}, nil
	}
	paths := []string{"lib/a/x.go", "lib/a/y.go", "lib", "mod/README.md", "src/x.go", "src/gone/x.go",
		"link/a/x.go", "../lib/x.go", "src/deep/y/z.go", "src/deep/y/w.go"}
	got := BoundariesStat(lstat, paths)
	want := []api.Boundary{
		{Path: "lib/a/x.go", Repository: "lib", RepositoryPath: "a/x.go"},
		{Path: "lib/a/y.go", Repository: "lib", RepositoryPath: "a/y.go"},
		{Path: "lib", Repository: "lib", RepositoryPath: ""},
		{Path: "mod/README.md", Repository: "mod", RepositoryPath: "README.md"},
		{Path: "src/deep/y/z.go", Repository: "src/deep", RepositoryPath: "y/z.go"},
		{Path: "src/deep/y/w.go", Repository: "src/deep", RepositoryPath: "y/w.go"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("boundaries:\n got %+v\nwant %+v", got, want)
	}
	for p, n := range calls {
		if n > 1 {
			t.Errorf("%s looked at %d times", p, n)
		}
	}
	if calls["link/.git"] != 0 || calls["link/a"] != 0 {
		t.Errorf("the walk went through a symbolic link: %v", calls)
	}
}
