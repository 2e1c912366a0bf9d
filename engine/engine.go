// Package engine is kontext's knowledge engine and its one operation
// dispatcher. It is pure: it reads a billy filesystem, reaches git only
// through the Git interface, and compiles for js/wasm. Every surface (CLI,
// MCP, Go embedding, WASM, edge worker) calls Engine.Request and returns
// the envelope it produces.
package engine

import (
	"context"
	"os"
	"time"

	"github.com/go-git/go-billy/v5"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/kb"
)

// Version is the engine version reported by status.
var Version = "0.1.0-dev"

// APIVersion is the application API version.
const APIVersion = 1

// Git is what the engine needs from a git repository. Its go-git
// implementation lives in a native-only package.
type Git interface {
	// Head returns the HEAD commit id, or "" before the first commit.
	Head(ctx context.Context) (string, error)
	// Blobs returns the blob ids of paths in the index and in HEAD's tree;
	// a path absent from either is absent from that map.
	Blobs(ctx context.Context, paths []string) (index, head map[string]string, err error)
}

// Surface says which operations an engine serves.
type Surface int

const (
	// Native serves every implemented operation (the CLI, MCP, Go embedding).
	Native Surface = iota
	// Snapshot serves the read subset over an in-memory file set (WASM).
	Snapshot
)

// Options configure an Engine.
type Options struct {
	FS      billy.Filesystem // the working tree; its root is the repository root
	Git     Git              // nil when there is no git repository
	History History          // nil without git history (history-derived fields stay null); Git and History are ignored under js/wasm
	Writer  Writer           // nil where nothing may be written (write operations are unsupported)
	Runner  Runner           // native only: runs pinned verify commands
	Trust   Trust            // native only: the user's verify pins (nil: nothing is pinned)
	Root    string           // the root as reported by status (an absolute path natively)
	// RootAliases are other absolute spellings of Root (the root with its
	// symlinks resolved); request paths under any of them are inside.
	RootAliases []string
	Surface     Surface
	// Revision is publication.revision for a Snapshot surface (a bundle's
	// head), "" for null.
	Revision string
	// Immutable (Snapshot surfaces): the files change only through the
	// engine's owner, which calls Forget after changing them; until then
	// every request answers the snapshot of the first read without listing
	// or stating a file again.
	Immutable bool
	// Now is the clock (UTC); nil means time.Now. Native surfaces honour
	// KONTEXT_NOW through it.
	Now func() time.Time
	// Operations are rows served besides the engine's reads: a native
	// opener passes engine/drafts' write operations here.
	Operations []Operation
	// Models is the local model selection (native only; nil: none).
	Models Models
	// RelatedModel answers entries.related {llm} (native only).
	RelatedModel RelatedModel
	// RelatedCache fills the relations of a draft's related entries from a
	// cached entries.related {llm} answer; it never asks (native only).
	RelatedCache RelatedModel
	// Nested opens the repository at dir (relative to Root: a nested
	// checkout or a submodule) as an engine of its own, so that a write
	// whose paths all lie inside it is routed there (native only; nil:
	// such writes are refused).
	Nested func(dir string) (*Engine, error)
}

// SnapshotStore keeps the compiled snapshot (parsed entries and their
// diagnostics, with the size, time and identity of each file they were
// parsed from) between processes. The engine encodes and validates it;
// the store only moves bytes. See docs/architecture.md.
type SnapshotStore interface {
	// LoadSnapshot returns the stored bytes, nil when there are none.
	LoadSnapshot() ([]byte, error)
	// SaveSnapshot replaces the stored bytes atomically.
	SaveSnapshot(data []byte) error
	// FileID is a file's identity beyond size and modification time (the
	// inode and the change time, as git's index compares them), 0 when the
	// platform has none.
	FileID(fi os.FileInfo) uint64
	// Key names the program writing the snapshot; another key's snapshot
	// is ignored and rebuilt.
	Key() string
}

// Engine answers API requests over one repository or file set. It is safe
// for concurrent use and caches parsed entries between requests.
type Engine struct {
	opts         Options
	ops          []Operation // the dispatch table: reads, then opts.Operations
	reader       *kb.Reader
	lineageCache lineageCache
	commits      commitCache      // engines over committed files, by commit (atCommit)
	commit       *commitFiles     // set on an engine atCommit made: the files it holds
	adoption     AdoptionFinder   // nil: status gives no adoption hint
	incomplete   IncompleteLister // nil: status lists no unfinished writes
	boundaries   BoundaryFinder   // nil: governing names no nested repositories
}

// New returns an engine over opts.FS.
func New(opts Options) *Engine {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	r := kb.NewReader(opts.FS)
	r.SetImmutable(opts.Immutable)
	if opts.Surface == Native && opts.Root != "" {
		r.SetRoots(append([]string{opts.Root}, opts.RootAliases...))
	}
	return &Engine{opts: opts, ops: Table(opts.Operations...), reader: r}
}

// UseSnapshotStore keeps the engine's parse cache in s between processes
// (see SnapshotStore). It is a method the native opener calls, not an
// option of New, so that the WASM engine, which never calls it, links
// none of the snapshot codec.
func (e *Engine) UseSnapshotStore(s SnapshotStore) { e.reader.SetStore(s) }

// Forget drops cached parses of paths (all when none are given). Callers
// that change files of an in-memory filesystem call it.
func (e *Engine) Forget(paths ...string) { e.reader.Forget(paths...) }

// SetRevision changes publication.revision of a Snapshot surface.
func (e *Engine) SetRevision(rev string) { e.opts.Revision = rev }

func (e *Engine) Now() time.Time { return e.opts.Now().UTC() }

// Today is the engine's UTC day (2006-01-02): status.review_due names the
// entries whose review date lies before it.
func (e *Engine) Today() string { return e.Now().Format("2006-01-02") }

// State is one read: the snapshot plus what git says about its files.
// Write operations (engine/drafts) plan on one, taken under the write lock.
type State struct {
	Snap *kb.Snapshot
	Head string // the HEAD commit ("" before the first commit or off git)
	Pub  map[string]api.Publication
	Cfg  *config.Config
}

func (e *Engine) Read(ctx context.Context) (*State, error) {
	if st, ok := ctx.Value(pinKey{e}).(*State); ok {
		return st, nil
	}
	head := ""
	if nativeBuild && e.opts.Git != nil {
		h, err := e.opts.Git.Head(ctx)
		if err != nil {
			return nil, err
		}
		head = h
	} else {
		head = e.opts.Revision
	}
	snap, err := e.reader.Read(head)
	if err != nil {
		return nil, err
	}
	return &State{Snap: snap, Head: head, Cfg: snap.Config, Pub: map[string]api.Publication{}}, nil
}

// pinKey keys a read pinned to a context for one engine (Pin).
type pinKey struct{ e *Engine }

// Pin reads the knowledge base once and returns a context under which
// every read of e answers that same state without listing or stating a
// file again: an operation made of many reads (bundle.build pages through
// every entry twice) sees one snapshot and pays for one listing.
func (e *Engine) Pin(ctx context.Context) (context.Context, error) {
	st, err := e.Read(ctx)
	if err != nil {
		return ctx, err
	}
	return context.WithValue(ctx, pinKey{e}, st), nil
}

// Options returns the options the engine was opened with (write
// operations reach the Writer, Runner and Trust through them).
func (e *Engine) Options() Options { return e.opts }

// FS is the filesystem the engine reads.
func (e *Engine) FS() billy.Filesystem { return e.reader.FS() }
