package engine

import (
	"errors"
	"strings"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/sidecar"
)

// RepoPath turns a source path of a request into the repository-relative
// form, the way git takes paths: an absolute path inside the repository
// root (or one of its aliases, the root with its symlinks resolved) loses
// the root; a path outside the repository, or one that climbs out with
// "..", is invalid_input naming the root. Without a disk root (the
// in-memory engine) absolute paths are invalid_input. A trailing "/" is
// kept (a directory).
func (e *Engine) RepoPath(p string) (string, error) {
	n, err := e.repoPath(p)
	if err != nil {
		return "", apierr.Invalid("%v", err)
	}
	return n, nil
}

type pathError struct{ msg string }

func (p *pathError) Error() string { return p.msg }

func (e *Engine) repoPath(p string) (string, error) {
	orig := p
	p = strings.ReplaceAll(p, "\\", "/")
	if isAbsolute(p) {
		if e.opts.Surface != Native || e.opts.Root == "" {
			return "", &pathError{"path " + quote(orig) + " is absolute and this engine has no disk root; pass a path relative to the repository root"}
		}
		rel, ok := "", false
		for _, root := range append([]string{e.opts.Root}, e.opts.RootAliases...) {
			if rel, ok = sidecar.Within(p, root); ok {
				break
			}
		}
		if !ok {
			return "", &pathError{"path " + quote(orig) + " is outside the repository " + e.rootName()}
		}
		if rel == "" {
			return "", &pathError{"path " + quote(orig) + " is the repository root " + e.rootName() + ", not a file in it"}
		}
		p = rel
	}
	n, err := sidecar.CleanPath(p)
	if errors.Is(err, sidecar.ErrClimbs) {
		return "", &pathError{"path " + quote(orig) + " escapes the repository " + e.rootName() + ": it climbs out with \"..\"; pass a path inside it"}
	}
	return n, err
}

// rootName names the repository root in messages.
func (e *Engine) rootName() string {
	if e.opts.Root == "" {
		return "(the snapshot's root)"
	}
	return "(root " + strings.ReplaceAll(e.opts.Root, "\\", "/") + ")"
}

func quote(s string) string {
	q := strings.ReplaceAll(s, `\`, `\\`)
	return `"` + strings.ReplaceAll(q, `"`, `\"`) + `"`
}

// isAbsolute: "/x", "//host/x" and drive paths "C:/x".
func isAbsolute(p string) bool {
	return strings.HasPrefix(p, "/") || (len(p) > 2 && p[1] == ':' && p[2] == '/' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z'))
}

// normPaths normalises the source paths of a request field (RepoPath).
func (e *Engine) normPaths(field string, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		n, err := e.repoPath(p)
		if err != nil {
			return nil, jsonin.Errorf(field, "%v", err)
		}
		out = append(out, n)
	}
	return out, nil
}
