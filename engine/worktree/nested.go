package worktree

import (
	"path"
	"strings"

	"github.com/go-git/go-billy/v5"

	"github.com/kontext/kontext/engine/api"
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
// them. The native opener installs it (engine.UseBoundaryFinder).
func Boundaries(fsys billy.Filesystem, paths []string) []api.Boundary {
	var out []api.Boundary
	seen := map[string]string{} // directory → its nested repository ("" for none)
	for _, orig := range paths {
		p := strings.TrimSuffix(orig, "/")
		dir := path.Dir(p)
		repo, ok := seen[dir]
		if !ok {
			repo = NestedRepository(fsys, dir)
			seen[dir] = repo
		}
		if repo == "" {
			if _, err := fsys.Lstat(path.Join(p, ".git")); err == nil {
				repo = p // the nested repository's own directory
			}
		}
		if repo == "" {
			continue
		}
		inside := strings.TrimPrefix(strings.TrimPrefix(p, repo), "/")
		out = append(out, api.Boundary{Path: orig, Repository: repo, RepositoryPath: inside})
	}
	return out
}
