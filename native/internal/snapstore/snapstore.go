// Package snapstore keeps the engine's compiled snapshot in one file under
// <git-dir>/kontext/, replaced atomically (a temporary file renamed over
// it), so concurrent readers see a whole old or a whole new snapshot and
// concurrent writers never mix. It implements engine.SnapshotStore.
package snapstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// File is the snapshot stored at Path.
type File struct {
	Path string
}

// New returns the store of the worktree whose git dir is gitDir.
func New(gitDir string) *File {
	return &File{Path: filepath.Join(gitDir, "kontext", "snapshot")}
}

// LoadSnapshot returns the stored bytes, nil when there are none.
func (f *File) LoadSnapshot() ([]byte, error) {
	data, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// SaveSnapshot writes data to a temporary file next to the snapshot and
// renames it over the snapshot. It is a cache: it is not synced (a torn
// file after a crash fails its checksum and is rebuilt), and a repository
// kontext may not write to (read-only clone) simply keeps none.
func (f *File) SaveSnapshot(data []byte) error {
	dir := filepath.Dir(f.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "snapshot-*.tmp")
	if err != nil {
		return err
	}
	tmp.Chmod(0o644) // readable like the rest of the git dir
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), f.Path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// FileID is the file's inode (0 where the platform has none).
func (f *File) FileID(fi os.FileInfo) uint64 { return inode(fi) }

var (
	keyOnce sync.Once
	key     string
)

// Key names this binary by its path, size and modification time: a rebuilt
// kontext (whose parser may read differently) ignores the old snapshot.
func (f *File) Key() string {
	keyOnce.Do(func() {
		key = "unknown"
		exe, err := os.Executable()
		if err != nil {
			return
		}
		fi, err := os.Stat(exe)
		if err != nil {
			return
		}
		key = fmt.Sprintf("%s\x00%d\x00%d", exe, fi.Size(), fi.ModTime().UnixNano())
	})
	return key
}
