package sidecar

import (
	"io/fs"
	"path"
	"strings"
)

// Boundary is a requested path inside a nested repository: the
// repository's directory and the path inside it.
type Boundary struct {
	Path, Repository, RepositoryPath string
}

// Boundaries names the requested paths that lie inside a nested
// repository, given an lstat of repository-relative paths. Each directory on the requested paths is looked at once, however
// many paths share it (a change of 3,000 files has a few hundred), and
// the walk stops at the first component that is missing, a file or a
// symbolic link: nothing below it is a directory of this worktree, so
// lstat never needs to resolve links and may be the plain system call.
func Boundaries(lstat func(string) (fs.FileInfo, error), paths []string) []Boundary {
	const stop = "\x00"         // memo: no directory here, nothing deeper to look at
	memo := map[string]string{} // prefix → its nested repository, "" or stop
	var out []Boundary
	for _, orig := range paths {
		p := path.Clean(strings.TrimPrefix(strings.TrimSuffix(orig, "/"), "/"))
		repo := ""
		for i := 1; i <= len(p) && repo == "" && p != "."; i++ {
			if i < len(p) && p[i] != '/' {
				continue
			}
			cur := p[:i]
			seg := cur[strings.LastIndexByte(cur, '/')+1:]
			if seg == ".." || seg == "." || seg == ".git" {
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
		out = append(out, Boundary{Path: orig, Repository: repo, RepositoryPath: inside})
	}
	return out
}
