package engine

import (
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/repopath"
)

// RepoPath turns a source path of a request into the repository-relative
// form, the way git takes paths (the rule is package repopath's, for
// every surface): an absolute path inside the repository root (or one of
// its aliases, the root with its symlinks resolved) loses the root; a
// path outside the repository, or one that climbs out with "..", is
// invalid_input naming the root. Without a disk root (the in-memory
// engine) absolute paths are invalid_input. A trailing "/" is kept (a
// directory).
func (e *Engine) RepoPath(p string) (string, error) {
	n, err := e.repoPath(p)
	if err != nil {
		return "", apierr.Invalid("%v", err)
	}
	return n, nil
}

func (e *Engine) repoPath(p string) (string, error) {
	return repopath.Rel(p, e.pathRoot())
}

// pathRoot is where absolute paths of requests may point: the disk root
// of a native engine, none for the in-memory one.
func (e *Engine) pathRoot() repopath.Root {
	if e.opts.Surface != Native || e.opts.Root == "" {
		return repopath.Root{}
	}
	return repopath.Root{Dir: e.opts.Root, Aliases: e.opts.RootAliases}
}

// RepoPaths normalises the source paths of a request field by RepoPath's
// rule; an error names the field (as entries.governing's do).
func (e *Engine) RepoPaths(field string, paths []string) ([]string, error) {
	return e.normPaths(field, paths)
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
