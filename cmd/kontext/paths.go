package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native"
)

// repoArgs resolves source path arguments the way git does: a relative
// path is relative to the directory kontext runs in (after -C, with its
// symlinks resolved as git's getcwd does), and the engine turns the
// absolute result into the repository-relative form, refusing paths
// outside the repository with invalid_input naming the root.
func repoArgs(g *globals, args []string) ([]string, error) {
	e, err := native.Open(g.dir)
	if err != nil {
		return nil, err
	}
	base, err := filepath.Abs(g.dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	out := make([]string, 0, len(args))
	for _, a := range args {
		p := a
		if !filepath.IsAbs(p) && !strings.HasPrefix(p, "/") {
			p = filepath.Join(base, filepath.FromSlash(a))
			if strings.HasSuffix(a, "/") || strings.HasSuffix(a, string(os.PathSeparator)) {
				p += "/"
			}
		}
		rel, err := e.RepoPath(p)
		if err != nil {
			if p != a {
				return nil, apierr.Invalid("%s (given as %q, relative to %s)", apierr.As(err).Message, a, base)
			}
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}
