package engine

import (
	"context"

	"github.com/go-git/go-billy/v5"

	"github.com/kontext/kontext/engine/api"
)

// BoundaryFinder names the requested paths that lie inside a nested
// repository (a submodule or a nested checkout).
type BoundaryFinder func(fsys billy.Filesystem, paths []string) []api.Boundary

// UseBoundaryFinder makes entries.governing say which requested paths
// another repository governs. Only a worktree on disk has nested
// repositories, so the native opener installs it; the WASM engine, which
// never calls this, links none of it.
func (e *Engine) UseBoundaryFinder(f BoundaryFinder) { e.boundaries = f }

type noBoundariesKey struct{}

// WithoutBoundaries returns a context in which entries.governing leaves
// boundaries out: a caller inside the process that reads only the
// governing entries (the brief, the pull-request report) does not pay one
// lstat per directory of its paths for a list it drops.
func WithoutBoundaries(ctx context.Context) context.Context {
	return context.WithValue(ctx, noBoundariesKey{}, true)
}

// boundariesOf is what governing answers as boundaries for paths: none
// without a finder or inside WithoutBoundaries.
func (e *Engine) boundariesOf(ctx context.Context, paths []string) []api.Boundary {
	if e.boundaries == nil || ctx.Value(noBoundariesKey{}) != nil {
		return nil
	}
	return e.boundaries(e.FS(), paths)
}
