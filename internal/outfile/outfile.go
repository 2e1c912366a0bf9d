// Package outfile writes the file a command's -o / --out names, by the
// same rules for every command:
//
//   - `-` (and /dev/stdout, /dev/fd/1, /proc/self/fd/1) is standard
//     output: IsStdout says so and the command writes to its stdout;
//   - a regular file, or a path that does not exist yet, is written
//     atomically: a temporary file in its directory, then a rename, so a
//     reader never sees half a file and a failed write leaves it as it was;
//   - a symbolic link is followed to its target, which is replaced the same
//     way (the link stays a link);
//   - /dev/stderr, /dev/fd/N and /proc/self/fd/N are written to that open
//     descriptor of the process;
//   - anything else that is not a directory (a character device such as
//     /dev/null or /dev/full, a FIFO, a socket, a link into /dev/fd or
//     /proc) is opened and written directly, never replaced, and a failed
//     write is an error.
package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kontext/kontext/engine/apierr"
)

// IsStdout reports whether path names standard output.
func IsStdout(path string) bool {
	switch path {
	case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	return false
}

// fdOf is the descriptor number a path names: /dev/stderr (2),
// /dev/fd/N or /proc/self/fd/N; standard output is IsStdout's.
func fdOf(path string) (int, bool) {
	if path == "/dev/stderr" {
		return 2, true
	}
	for _, prefix := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if rest, ok := strings.CutPrefix(path, prefix); ok {
			n, err := strconv.Atoi(rest)
			if err == nil && n >= 0 && n != 1 && strconv.Itoa(n) == rest {
				return n, true
			}
		}
	}
	return 0, false
}

// maxLinks bounds the symbolic links followed (as the kernel's ELOOP).
const maxLinks = 40

// Write writes what write produces to path by the rules above and
// returns the number of bytes written. An error of the file (creating,
// writing, renaming) is an operation_failed API error naming path; an
// error write returns of its own is returned as it is. Write must not be
// called with a path IsStdout accepts.
func Write(path string, write func(w io.Writer) error) (int64, error) {
	if path == "" {
		return 0, apierr.Invalid("no output file given")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return 0, apierr.Invalid("the output path %q contains a NUL byte", path)
	}
	if fd, ok := fdOf(path); ok {
		// An open descriptor of this process (/dev/stderr, /dev/fd/3):
		// written as it is, not reopened (reopening a pipe another user
		// made is refused).
		f, err := dupFile(fd, path) // a copy: closing it leaves the descriptor open
		if err != nil {
			return 0, apierr.Wrap(apierr.InvalidInput, err, "%s is not an open file descriptor", path)
		}
		cw := &countingWriter{w: f}
		werr := write(cw)
		f.Close()
		switch {
		case cw.err != nil:
			return cw.n, writeErr(path, cw.n, cw.err)
		case werr != nil:
			return cw.n, werr
		}
		return cw.n, nil
	}
	target, direct, err := resolve(path)
	if err != nil {
		return 0, err
	}
	if direct {
		return writeDirect(path, target, write)
	}
	return writeAtomic(path, target, write)
}

// resolve follows symbolic links from path to what it finally names.
// direct is true when that is not a regular file (or a new path), or when
// a link leads through /proc or /dev/fd (whose "links" name open files,
// not paths to replace).
func resolve(path string) (target string, direct bool, err error) {
	target = path
	for i := 0; ; i++ {
		fi, err := os.Lstat(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return target, false, nil
		case err != nil:
			return "", false, apierr.Wrap(apierr.OperationFailed, err, "cannot write %s", path)
		}
		mode := fi.Mode()
		switch {
		case mode.IsRegular():
			return target, false, nil
		case mode.IsDir():
			return "", false, apierr.Invalid("%s is a directory: give a file name", path)
		case mode&fs.ModeSymlink == 0:
			return target, true, nil // device, FIFO, socket
		}
		if i == maxLinks {
			return "", false, apierr.Invalid("%s: too many levels of symbolic links", path)
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", false, apierr.Wrap(apierr.OperationFailed, err, "cannot write %s", path)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		if magic(target) || magic(link) {
			return target, true, nil
		}
		target = link
	}
}

// magic reports a path under /proc or /dev/fd: its links are the kernel's
// view of open files (pipe:[123], a terminal), not names to replace.
func magic(p string) bool {
	p = filepath.Clean(p)
	return p == "/proc" || strings.HasPrefix(p, "/proc/") || p == "/dev/fd" || strings.HasPrefix(p, "/dev/fd/") ||
		p == "/dev/stdout" || p == "/dev/stderr"
}

// writeDirect opens target for writing without creating or replacing it.
// A regular file reached through /proc or /dev/fd is appended to (as the
// shell's redirection left it).
func writeDirect(path, target string, write func(w io.Writer) error) (int64, error) {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return 0, apierr.Wrap(apierr.OperationFailed, err, "cannot open %s for writing", path)
	}
	cw := &countingWriter{w: f}
	werr := write(cw)
	cerr := f.Close()
	switch {
	case cw.err != nil:
		return cw.n, writeErr(path, cw.n, cw.err)
	case werr != nil:
		return cw.n, werr
	case cerr != nil:
		return cw.n, writeErr(path, cw.n, cerr)
	}
	return cw.n, nil
}

// writeAtomic writes a temporary file beside target and renames it over
// target. An existing file keeps its permission bits; a new one is 0644
// (before the umask's say over the temporary file's 0600 is lifted).
func writeAtomic(path, target string, write func(w io.Writer) error) (int64, error) {
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, apierr.Invalid("cannot write %s: the directory %s does not exist", path, dir)
		}
		return 0, apierr.Wrap(apierr.OperationFailed, err, "cannot write %s", path)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	cw := &countingWriter{w: f}
	if err := write(cw); err != nil {
		if cw.err != nil {
			return 0, writeErr(path, cw.n, cw.err)
		}
		return 0, err
	}
	if cw.err != nil {
		return 0, writeErr(path, cw.n, cw.err)
	}
	if err := f.Chmod(perm); err != nil {
		return 0, writeErr(path, cw.n, err)
	}
	if err := f.Sync(); err != nil {
		return 0, writeErr(path, cw.n, err)
	}
	if err := f.Close(); err != nil {
		return 0, writeErr(path, cw.n, err)
	}
	if err := os.Rename(tmp, target); err != nil {
		return 0, apierr.Wrap(apierr.OperationFailed, err, "cannot write %s", path)
	}
	ok = true
	return cw.n, nil
}

func writeErr(path string, n int64, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is named once, below
	}
	return apierr.Wrap(apierr.OperationFailed, err, "writing %s failed after %d bytes", path, n)
}

// countingWriter counts the bytes written and keeps the file's error, so
// a failed write reads as a write error, not as the encoder's.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		c.err = err
	}
	return n, err
}
