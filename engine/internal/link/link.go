// Package link resolves symbolic links inside a repository's billy
// filesystem without ever following one out of it: a link is read only
// when every hop stays inside the repository. The OS filesystem of the
// native engine resolves links below its root on Open, and would read an
// absolute target such as /etc/x as <root>/etc/x; resolving hop by hop
// with Lstat and Readlink is what keeps the answer honest.
package link

import (
	"errors"
	"os"
	"path"
	"strings"

	"github.com/go-git/go-billy/v5"
)

// Problems a link can have; each is a warning diagnostic code.
const (
	Outside  = "symlink_outside"
	Dangling = "symlink_dangling"
	Loop     = "symlink_loop"
)

// maxHops bounds a chain of links, as the OS does (ELOOP).
const maxHops = 40

// Error is a link that cannot be read: Code is one of the problems.
type Error struct {
	Code   string
	Path   string // the repo-relative path that was followed
	Target string // the link text that failed (raw)
}

func (e *Error) Error() string {
	switch e.Code {
	case Outside:
		return "symlink " + e.Path + " points outside the repository (" + e.Target + "); it is not read"
	case Dangling:
		return "symlink " + e.Path + " points to " + e.Target + ", which does not exist; it is not read"
	}
	return "symlink " + e.Path + " is part of a loop; it is not read"
}

// Resolver resolves links of one filesystem. Roots are the absolute
// spellings of the repository root, for links with absolute targets (none
// in an in-memory filesystem: there every absolute target is outside).
type Resolver struct {
	FS    billy.Filesystem
	Roots []string
}

// Resolve returns the repo-relative path rel finally names, with every
// symlink along it followed, and the file info of that path. A problem
// is an *Error; other I/O errors are returned as they are.
func (r *Resolver) Resolve(rel string) (string, os.FileInfo, error) {
	hops := 0
	p, err := r.resolve(rel, rel, &hops)
	if err != nil {
		return "", nil, err
	}
	fi, err := r.FS.Lstat(FSPath(p))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", nil, &Error{Code: Dangling, Path: rel, Target: p}
		}
		return "", nil, err
	}
	return p, fi, nil
}

// resolve follows every component of p; orig names the link in errors.
func (r *Resolver) resolve(p, orig string, hops *int) (string, error) {
	done := ""
	parts := strings.Split(p, "/")
	for _, part := range parts {
		if part == "" || part == "." {
			continue
		}
		next := Join(done, part)
		fi, err := r.FS.Lstat(next)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return "", &Error{Code: Dangling, Path: orig, Target: p}
			}
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			done = next
			continue
		}
		*hops++
		if *hops > maxHops {
			return "", &Error{Code: Loop, Path: orig, Target: next}
		}
		t, err := r.FS.Readlink(next)
		if err != nil {
			return "", err
		}
		target, ok := r.inside(done, t)
		if !ok {
			return "", &Error{Code: Outside, Path: orig, Target: t}
		}
		res, err := r.resolve(target, orig, hops)
		if err != nil {
			return "", err
		}
		done = res
	}
	return done, nil
}

// inside turns a link text read in dir into a repo-relative path, or
// reports that it leaves the repository.
func (r *Resolver) inside(dir, t string) (string, bool) {
	t = strings.ReplaceAll(t, "\\", "/")
	if strings.HasPrefix(t, "/") || (len(t) > 2 && t[1] == ':' && t[2] == '/') {
		c := path.Clean(t)
		for _, root := range r.Roots {
			root = strings.TrimRight(strings.ReplaceAll(root, "\\", "/"), "/")
			if root == "" {
				continue
			}
			if c == root {
				return "", true
			}
			if rel, ok := strings.CutPrefix(c, root+"/"); ok {
				return rel, true
			}
		}
		return "", false
	}
	c := path.Clean(Join(dir, t))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	if c == "." {
		c = ""
	}
	return c, true
}

// Within reports whether the resolved path p lies in dir ("" = the root).
func Within(p, dir string) bool {
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

// Join joins a repo-relative directory ("" is the root) and a name.
func Join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// FSPath is the filesystem path of a repo-relative one ("" is ".").
func FSPath(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}
