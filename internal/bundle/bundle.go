// Package bundle writes knowledge bundles (kontext.bundle/v1): the
// knowledge files of a change's head and base, the paths the change
// touches, the history-derived fields of every entry and the drift result,
// in one JSON document. The review console and the edge worker load a
// bundle into the WASM engine, which recomputes everything else from the
// files.
//
// The bundle itself is the engine's bundle.build operation (every surface
// can ask for it); this package opens the native engine, asks, and writes
// the document to a file.
package bundle

import (
	"bytes"
	"context"
	"io"
	"time"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/worktree"
	"github.com/kontext/kontext/internal/outfile"
	"github.com/kontext/kontext/native"
)

// Schema is the schema id of the bundles this package writes.
const Schema = worktree.BundleSchema

// The document's types live in engine/api (the result of bundle.build).
type (
	// Bundle is a kontext.bundle/v1 document.
	Bundle = api.Bundle
	// Repository describes the change a bundle is about.
	Repository = api.BundleRepository
	// Config is the configuration file at head.
	Config = api.BundleConfig
	// History holds the history-derived fields of one entry.
	History = api.BundleHistory
)

// Options select what a bundle covers.
type Options struct {
	Dir  string // a directory inside the repository ("" = ".")
	Base string // base revision; "" = the default drift base
	Head string // head revision; "" = HEAD (committed files only)
	// Worktree includes uncommitted knowledge (HEAD plus the working
	// tree): local review only, never a bundle to publish.
	Worktree bool
	// Broad includes broad entries (always-on rules) in drift.
	Broad bool
	// Now stamps generated_at; nil means KONTEXT_NOW or the clock.
	Now func() time.Time
	// Progress is told about long work (the history index build), as
	// native.Options.Progress.
	Progress func(event, task string, fields map[string]any)
}

// Build assembles the bundle of the change opts select (bundle.build).
func Build(ctx context.Context, opts Options) (*Bundle, error) {
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	eng, err := native.OpenWith(dir, native.Options{Progress: opts.Progress})
	if err != nil {
		return nil, err
	}
	if c := native.BundleSnapshots(eng); c != nil {
		ctx = worktree.WithSnapshotCache(ctx, c)
	}
	b, err := worktree.Bundle(ctx, eng, &api.BundleInput{Base: opts.Base, Head: opts.Head, Worktree: opts.Worktree, Broad: opts.Broad})
	if err != nil {
		return nil, err
	}
	if opts.Now != nil {
		b.GeneratedAt = opts.Now().UTC().Format(time.RFC3339)
	}
	return b, nil
}

// Marshal encodes b as indented JSON with a final newline. HTML-sensitive
// characters (<, >, &) are escaped as \u003c…, so the document can be
// inlined in a <script> element as it is.
//
// It is Encode into memory: the bytes of json.MarshalIndent(b, "", "  ")
// and a newline, without encoding the whole document twice.
func Marshal(b *Bundle) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(b.Snapshot) + 1<<20)
	if err := Encode(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile writes b to path by the rules of every -o (package outfile:
// atomically for a file, directly for a device or FIFO, a link followed).
// It streams the document (Encode) and returns its size.
func WriteFile(path string, b *Bundle) (int, error) {
	n, err := outfile.Write(path, func(w io.Writer) error { return Encode(w, b) })
	return int(n), err
}
