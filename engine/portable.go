package engine

import (
	"context"
	"os"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/kb"
)

// A portable snapshot is the compiled snapshot of a file set that travels
// with the files (a bundle's `snapshot`): the parsed entries, diagnostics
// and compiled match index, so an engine over the same files in a browser,
// Node or the edge answers without parsing Markdown or YAML. It is
// content-addressed: each stored parse is used only for a file whose
// content has the checksum recorded with it (and so the blob id), and the compiled
// part only when every file (and the configuration, ledger, overlay and
// revision) is the one it was built from. A snapshot of another engine
// version or a corrupt one is ignored; the files are parsed instead.

// portableKey names the parser a portable snapshot was built with.
func portableKey() string { return "kontext-portable " + Version }

// PortableSnapshotReadable reports whether data is a portable snapshot
// this version of the engine reads. One of another kontext version, or a
// corrupt one, is ignored where it is opened: the engine parses the files
// instead.
func PortableSnapshotReadable(data []byte) bool { return kb.SnapshotReadable(data, portableKey()) }

// portableStore holds a portable snapshot in memory.
type portableStore struct {
	data  []byte
	save  bool
	saved []byte
}

func (p *portableStore) LoadSnapshot() ([]byte, error) { return p.data, nil }
func (p *portableStore) SaveSnapshot(d []byte) error {
	p.saved = d
	return nil
}
func (p *portableStore) FileID(os.FileInfo) uint64 { return 0 }
func (p *portableStore) Key() string               { return portableKey() }
func (p *portableStore) SaveBack() bool            { return p.save }

// UsePortableSnapshot makes the engine answer from data, a portable
// snapshot of its files (CompileSnapshot), wherever the files are the ones
// it was built from. Call it before the first request.
func (e *Engine) UsePortableSnapshot(data []byte) {
	e.reader.SetReadOnlyStore(&portableStore{data: data})
}

// CompileSnapshot parses files (repo-relative path → content, as a bundle
// holds them) the way an engine of the Snapshot surface opened on them
// with this revision reads them, and returns the portable snapshot of
// them. seed (nil for none) is an engine that read (most of) the same
// files: its parses are reused wherever the content is the same (checked
// by blob id), so a bundle of a warm repository parses nothing again.
func CompileSnapshot(ctx context.Context, files map[string]string, revision string, seed *Engine) ([]byte, error) {
	fs := memfs.New()
	for name, text := range files {
		if err := util.WriteFile(fs, name, []byte(text), 0o644); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "compiling the snapshot: writing %s", name)
		}
	}
	store := &portableStore{save: true}
	e := New(Options{FS: fs, Surface: Snapshot, Revision: revision})
	e.reader.SetStore(store)
	if seed != nil {
		e.reader.Seed(seed.reader)
	}
	if _, err := e.Read(ctx); err != nil {
		return nil, err
	}
	if store.saved == nil {
		return nil, apierr.New(apierr.OperationFailed, "compiling the snapshot: nothing was stored")
	}
	return store.saved, nil
}
