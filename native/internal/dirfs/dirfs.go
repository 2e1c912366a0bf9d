// Package dirfs wraps the working tree's filesystem so that listing a
// directory stats each entry relative to the open directory (fstatat on
// Linux) instead of resolving every file's full path again: a read of a
// large knowledge base lists thousands of files, and their stats are most
// of a warm call's cost. Everything else is the wrapped filesystem's.
package dirfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	securejoin "github.com/cyphar/filepath-securejoin"
	"github.com/go-git/go-billy/v5"
)

// FS is a billy.Filesystem whose ReadDir stats entries
// relative to the directory.
type FS struct {
	billy.Filesystem
	root string
	// rootFD is the root opened once for openat2 (see openBeneath).
	rootOnce sync.Once
	rootFD   int
}

// New wraps fs, whose root is root.
func New(fs billy.Filesystem, root string) billy.Filesystem {
	if !supported {
		return fs
	}
	return &FS{Filesystem: fs, root: root}
}

// openDir opens dir, resolved inside the root; abs is its path. A path
// without a link on the way is one openat2 beneath the root (Linux);
// anything else is resolved component by component (a link followed
// inside the root).
func (f *FS) openDir(dir string) (d *os.File, abs string, err error) {
	abs = f.root
	if dir != "" && dir != "." && dir != "/" {
		if d, abs, ok := f.openBeneath(dir); ok {
			return d, abs, nil
		}
		if abs, err = securejoin.SecureJoin(f.root, dir); err != nil {
			return nil, "", err
		}
	}
	d, err = os.Open(abs)
	return d, abs, err
}

// ReadDir lists dir like the wrapped filesystem (entries sorted by name,
// each with its lstat data; the directory resolved inside the root), with
// one fstatat per entry. An entry removed between listing and stat is
// left out.
func (f *FS) ReadDir(dir string) ([]os.FileInfo, error) {
	d, abs, err := f.openDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, &os.PathError{Op: "readdir", Path: filepath.Join(abs), Err: err}
	}
	sort.Strings(names)
	slab := make([]info, len(names)) // one allocation for the directory
	// stat fills slab[lo:hi]; an entry gone since the listing keeps its
	// zero value (no name). It returns where a stat failed otherwise.
	stat := func(lo, hi int) (int, error) {
		var buf []byte // each name, NUL-terminated, for the system call
		for i := lo; i < hi; i++ {
			if err := lstatAt(d, names[i], &slab[i], &buf); err != nil && !os.IsNotExist(err) {
				return i, err
			}
		}
		return hi, nil
	}
	// A large directory's stats are split over the CPUs: on a warm read
	// they are most of the cost, and each is a system call that waits on
	// nothing but the kernel.
	workers := 1
	if len(names) >= parallelFrom {
		workers = min(runtime.GOMAXPROCS(0), len(names)/(parallelFrom/2))
	}
	at, errs := make([]int, workers), make([]error, workers)
	chunk := (len(names) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at[w], errs[w] = stat(w*chunk, min((w+1)*chunk, len(names)))
		}()
	}
	at[0], errs[0] = stat(0, min(chunk, len(names)))
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			return nil, &os.PathError{Op: "lstat", Path: filepath.Join(abs, names[at[w]]), Err: err}
		}
	}
	infos := make([]os.FileInfo, 0, len(names))
	for i := range slab {
		if slab[i].present() {
			infos = append(infos, &slab[i])
		}
	}
	return infos, nil
}

// parallelFrom is the number of entries from which ReadDir splits the
// stats over goroutines (GOMAXPROCS, at least parallelFrom/2 entries each):
// below it a goroutine costs more than it saves.
const parallelFrom = 512

// ReadDirTypes lists dir (resolved inside the root) with each entry's
// type as the directory itself records it (d_type): no stat per entry, for
// a walk that only needs to tell files, directories and links apart. An
// entry whose type the filesystem does not record is lstat'ed. Sorted by
// name.
func (f *FS) ReadDirTypes(dir string) ([]fs.DirEntry, error) {
	d, abs, err := f.openDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, &os.PathError{Op: "readdir", Path: abs, Err: err}
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

// ReadFiles reads the files names of dir (regular files ReadDir listed),
// each opened relative to the open directory without following a link:
// the directory is resolved inside the root once, not once per file, and
// a file is one openat, fstat, read and close (a bundle reads every
// knowledge file; resolving each path again was most of its cost). A
// name that is no longer a regular file is an error.
func (f *FS) ReadFiles(dir string, names []string) ([][]byte, error) {
	d, abs, err := f.openDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	out := make([][]byte, len(names))
	for i, name := range names {
		if out[i], err = readAt(d, name); err != nil {
			return nil, &os.PathError{Op: "read", Path: filepath.Join(abs, name), Err: err}
		}
	}
	return out, nil
}
