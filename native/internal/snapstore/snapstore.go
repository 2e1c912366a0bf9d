// Package snapstore keeps the engine's compiled snapshot in one file under
// <git-dir>/kontext/, replaced atomically (a temporary file renamed over
// it), so concurrent readers see a whole old or a whole new snapshot and
// concurrent writers never mix. It implements engine.SnapshotStore.
package snapstore

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/kontext/kontext/native/internal/buildkey"
)

// File is the snapshot stored at Path.
type File struct {
	Path string
}

// New returns the store of the worktree whose git dir is gitDir. Each
// kontext binary keeps its own file (snapshot-<hash of Key>), so two
// binaries used in turn (an editor's and the shell's) do not rebuild each
// other's snapshot on every call.
func New(gitDir string) *File {
	sum := sha256.Sum256([]byte(buildkey.Key()))
	return &File{Path: filepath.Join(gitDir, "kontext", "snapshot-"+hex.EncodeToString(sum[:6]))}
}

// LoadSnapshot returns the stored bytes, nil when there are none. On Unix
// they are the file mapped read-only (see load).
func (f *File) LoadSnapshot() ([]byte, error) {
	data, err := load(f.Path)
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
	return f.SaveSnapshotParts(data, nil)
}

// SaveSnapshotParts is SaveSnapshot of head followed by parses, written
// through one small buffer: at 10,000 entries the parses are megabytes
// the engine holds already, and joining them first cost as many fresh
// pages.
func (f *File) SaveSnapshotParts(head []byte, parses []string) error {
	if err := replace(f.Path, "snapshot-*.tmp", func(w *bufio.Writer) {
		w.Write(head)
		for _, p := range parses {
			w.WriteString(p)
		}
	}); err != nil {
		return err
	}
	prune(filepath.Dir(f.Path), f.Path)
	return nil
}

// replace writes what write writes to a temporary file (named by
// pattern) next to path and renames it over path.
func replace(path, pattern string, write func(*bufio.Writer)) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return err
	}
	tmp.Chmod(0o644) // readable like the rest of the git dir
	w := bufio.NewWriterSize(tmp, 256<<10)
	write(w)
	if err := w.Flush(); err != nil { // the writer keeps its first error
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// prune removes other binaries' snapshots and stray temporary files not
// written for a week (an old kontext no longer in use).
func prune(dir, keep string) {
	names, _ := filepath.Glob(filepath.Join(dir, "snapshot-*"))
	for _, n := range names {
		if fi, err := os.Stat(n); err == nil && n != keep && time.Since(fi.ModTime()) > 7*24*time.Hour {
			os.Remove(n)
		}
	}
}

// FileID is the file's inode and change time folded into one number (0
// where the platform has neither): with the size and modification time the
// reader compares, a file is validated as git validates its index.
func (f *File) FileID(fi os.FileInfo) uint64 { return fileID(fi) }

// mixID folds an inode and a change time (Unix ns) into one number. The
// final mix is a bijection, so for one inode two change times never give
// the same id.
func mixID(ino uint64, ctime int64) uint64 {
	if ino == 0 && ctime == 0 {
		return 0
	}
	x := ino*0x9e3779b97f4a7c15 ^ uint64(ctime)
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Key names this binary by its path, size and modification time: a rebuilt
// kontext (whose parser may read differently) ignores the old snapshot.
func (f *File) Key() string { return buildkey.Key() }
