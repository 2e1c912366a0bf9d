package worktree

import (
	"io/fs"
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
// them. The native opener installs it (engine.UseBoundaryFinder) with a
// direct lstat (BoundariesStat).
func Boundaries(fsys billy.Filesystem, paths []string) []api.Boundary {
	return BoundariesStat(fsys.Lstat, paths)
}

// BoundariesStat is Boundaries over an lstat of repository-relative
// paths (normalised by the engine's path rule, package repopath). Each
// directory on the requested paths is looked at once, however many paths
// share it (a change of 3,000 files has a few hundred), and the walk
// stops at the first component that is missing, a file or a symbolic
// link: nothing below it is a directory of this worktree, so lstat never
// needs to resolve links and may be the plain system call.
func BoundariesStat(lstat func(string) (fs.FileInfo, error), paths []string) []api.Boundary {
	const stop = "\x00"         // memo: no directory here, nothing deeper to look at
	memo := map[string]string{} // prefix → its nested repository, "" or stop
	var out []api.Boundary
	for _, orig := range paths {
		p := strings.TrimSuffix(orig, "/")
		repo := ""
		for i := 1; i <= len(p) && repo == ""; i++ {
			if i < len(p) && p[i] != '/' {
				continue
			}
			cur := p[:i]
			seg := cur[strings.LastIndexByte(cur, '/')+1:]
			if seg == ".." || seg == "." || seg == "" || seg == ".git" {
				break
			}
			r, seen := memo[cur]
			if !seen {
				r = stop
				if fi, err := lstat(cur); err == nil && fi.IsDir() {
					r = ""
					if _, err := lstat(cur + "/.git"); err == nil {
						r = cur
					}
				}
				memo[cur] = r
			}
			if r == stop {
				break
			}
			repo = r
		}
		if repo == "" {
			continue
		}
		inside := strings.TrimPrefix(strings.TrimPrefix(p, repo), "/")
		out = append(out, api.Boundary{Path: orig, Repository: repo, RepositoryPath: inside})
	}
	return out
}
