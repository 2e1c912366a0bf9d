package drafts

import (
	"path"
	"strings"

	"github.com/go-git/go-billy/v5"

	"github.com/kontext/kontext/engine/apierr"
)

// nestedRepository returns the directory of the nested git repository (a
// submodule or a nested checkout: a directory below the root holding its
// own .git) that holds every path of an entry, or "" when the paths are
// not all inside one. A glob counts by its literal directory prefix (the
// segments before the first wildcard); an exclusion (!) is ignored.
func nestedRepository(fsys billy.Filesystem, globs []string) string {
	owner := ""
	n := 0
	for _, g := range globs {
		if strings.HasPrefix(g, "!") {
			continue
		}
		n++
		repo := nestedOf(fsys, literalPrefix(g))
		if repo == "" || (owner != "" && repo != owner) {
			return ""
		}
		owner = repo
	}
	if n == 0 {
		return ""
	}
	return owner
}

// literalPrefix is the directory part of a glob before its first wildcard.
func literalPrefix(glob string) string {
	glob = strings.TrimPrefix(glob, "/")
	var segs []string
	for _, s := range strings.Split(glob, "/") {
		if strings.ContainsAny(s, "*?[{") {
			break
		}
		segs = append(segs, s)
	}
	return strings.Join(segs, "/")
}

// nestedOf returns the outermost directory on p's way (p
// itself included, the root excluded) that holds a .git, or "".
func nestedOf(fsys billy.Filesystem, p string) string {
	cur := ""
	for _, seg := range strings.Split(path.Clean(p), "/") {
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

// nestedError refuses to stage an entry that belongs to a nested
// repository into this one's storage: the entry would govern files this
// repository does not track.
func nestedError(repo string) error {
	err := apierr.Invalid("every path of this entry lies inside the nested repository %s (it has its own .git): it belongs in that repository's knowledge, not this one's; stage it there (kontext -C %s new …, paths relative to %s)", repo, repo, repo)
	err.Extra = map[string]any{"repository": repo}
	return err
}
