package worktree

import (
	"io/fs"
	"path"
	"strings"

	"github.com/go-git/go-billy/v5"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/sidecar"
)

// NestedRepository returns the outermost directory on p's way (p itself
// included, the root excluded) that holds its own .git — a nested
// checkout, or a submodule whose .git is a file — or "" when p lies in
// this repository. Such a directory is another repository: its own
// knowledge governs the files inside it.
func NestedRepository(fsys billy.Filesystem, p string) string {
	cur := ""
	for _, seg := range strings.Split(path.Clean(strings.TrimPrefix(p, "/")), "/") {
		if seg == "" || seg == "." {
			continue
		}
		cur = path.Join(cur, seg)
		if _, err := fsys.Lstat(path.Join(cur, ".git")); err == nil {
			return cur
		}
	}
	return ""
}

// Boundaries names the requested paths that lie inside a nested
// repository (entries.governing's boundaries): this repository's entries
// may still match them, but the nested repository's own knowledge governs
// them. The native opener installs it (engine.UseBoundaryFinder) with a
// direct lstat (BoundariesStat).
func Boundaries(fsys billy.Filesystem, paths []string) []api.Boundary {
	return BoundariesStat(fsys.Lstat, paths)
}

// BoundariesStat is Boundaries over an lstat of repository-relative
// paths (sidecar.Boundaries, which the early governing answer shares).
func BoundariesStat(lstat func(string) (fs.FileInfo, error), paths []string) []api.Boundary {
	var out []api.Boundary
	for _, b := range sidecar.Boundaries(lstat, paths) {
		out = append(out, api.Boundary(b))
	}
	return out
}
