package engine

import (
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
