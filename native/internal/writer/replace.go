package writer

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kontext/kontext/engine/apierr"
)

// ReplaceFile rewrites the existing repo-relative file rel with data, but
// only while it still holds before, the bytes the write was planned from.
// The caller holds the kontext write lock, so no kontext writer races it;
// the check is against writers outside kontext (an editor, `echo >>`):
//
//   - a handle on the old file is opened first and kept open;
//   - the new version is written to a temporary file (fsynced);
//   - immediately before the rename the old file is read again through the
//     handle and the path is checked to still be that file: any difference
//     from before is operation_conflict naming the file, nothing written;
//   - after the rename the old inode is read once more through the handle:
//     a writer that got in between the check and the rename (its bytes went
//     to the old inode) is detected, its content is put back at the path
//     (nothing of theirs lost) and the answer is operation_conflict.
func (w *Writer) ReplaceFile(rel string, data, before []byte) error {
	clean, abs, err := w.resolve(rel)
	if err != nil {
		return err
	}
	old, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return changedSincePlan(clean, "it was removed")
	}
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "opening %s", clean)
	}
	defer old.Close()
	ofi, err := old.Stat()
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "reading %s", clean)
	}
	if !ofi.Mode().IsRegular() {
		return apierr.Invalid("path %q exists and is not a regular file", clean)
	}
	if err := w.checkInside(clean, abs); err != nil {
		return err
	}
	dir := filepath.Dir(abs)
	RemoveStaleTemps(abs) // ReplaceFile runs under the write lock
	tmpName, err := writeTemp(abs, data, ofi.Mode().Perm())
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", clean)
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmpName)
		}
	}()
	faultpause("pause_before_rename")
	// The check, immediately before the rename.
	cur, err := readAt0(old)
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "reading %s", clean)
	}
	if !bytes.Equal(cur, before) {
		return changedSincePlan(clean, "it was edited")
	}
	if pfi, err := os.Lstat(abs); err != nil || !os.SameFile(pfi, ofi) {
		return changedSincePlan(clean, "it was replaced")
	}
	if err := os.Rename(tmpName, abs); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", clean)
	}
	renamed = true
	syncDir(dir)
	faultpause("pause_after_rename")
	// No window after the rename: a writer that opened the old file before
	// it wrote into the old inode, which the handle still reads.
	return restoreIfEdited(clean, abs, old, data, before, ofi.Mode().Perm())
}

// restoreIfEdited re-reads the replaced file's old inode through its
// handle; when an outside writer changed it, its content is put back at
// abs (again, while the writer may still be appending) and the write is
// operation_conflict.
func restoreIfEdited(clean, abs string, old *os.File, data, before []byte, mode fs.FileMode) error {
	got, err := readAt0(old)
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "re-reading the old version of %s", clean)
	}
	if bytes.Equal(got, before) {
		return nil
	}
	for i := 0; i < 5; i++ {
		cur, err := os.ReadFile(abs)
		if err != nil || !bytes.Equal(cur, data) {
			// Someone wrote the path itself too: keep theirs there and the
			// old version's edit next to it.
			side := abs + ".kontext-conflict"
			_ = AtomicWrite(side, got, mode)
			return changedSincePlan(clean, "it was edited while kontext wrote it; the path keeps the newest edit and the other one is in "+filepath.Base(side))
		}
		if err := AtomicWrite(abs, got, mode); err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "%s was edited while kontext wrote it, and putting the edited version back failed: it is still readable as the file's previous version", clean)
		}
		again, err := readAt0(old)
		if err != nil || bytes.Equal(again, got) {
			break
		}
		got, data = again, got // the writer is still appending: put back the newer bytes
	}
	return changedSincePlan(clean, "it was edited while kontext wrote it; the edited version is back in place")
}

func changedSincePlan(clean, how string) error {
	e := apierr.New(apierr.OperationConflict, "%s changed since this write was planned (%s); nothing of kontext's change is written or staged: check the file, then retry with a new operation_id", clean, how)
	e.Extra = map[string]any{"path": clean}
	return e
}

// readAt0 reads the whole file from its start (the handle's offset does
// not matter).
func readAt0(f *os.File) ([]byte, error) {
	return io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
}

// writeTemp writes data to a fsynced temporary file next to abs and
// returns its name.
func writeTemp(abs string, data []byte, mode fs.FileMode) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".kontext-tmp-*")
	if err != nil {
		return "", err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}
