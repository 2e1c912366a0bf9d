// Package dirfs wraps the working tree's filesystem so that listing a
// directory stats each entry relative to the open directory (fstatat on
// Linux) instead of resolving every file's full path again: a read of a
// large knowledge base lists thousands of files, and their stats are most
// of a warm call's cost. Everything else is the wrapped filesystem's.
package dirfs

import (
	"os"
	"path/filepath"
	"sort"

	securejoin "github.com/cyphar/filepath-securejoin"
	"github.com/go-git/go-billy/v5"
)

// FS is a billy.Filesystem whose ReadDir stats entries
// relative to the directory.
type FS struct {
	billy.Filesystem
	root string
}

// New wraps fs, whose root is root.
func New(fs billy.Filesystem, root string) billy.Filesystem {
	if !supported {
		return fs
	}
	return &FS{Filesystem: fs, root: root}
}

// ReadDir lists dir like the wrapped filesystem (entries sorted by name,
// each with its lstat data; the directory resolved inside the root), with
// one fstatat per entry. An entry removed between listing and stat is
// left out.
func (f *FS) ReadDir(dir string) ([]os.FileInfo, error) {
	abs := f.root
	if dir != "" && dir != "." && dir != "/" {
		var err error
		if abs, err = securejoin.SecureJoin(f.root, dir); err != nil {
			return nil, err
		}
	}
	d, err := os.Open(abs)
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
	infos := make([]os.FileInfo, 0, len(names))
	for i, name := range names {
		err := lstatAt(d, name, &slab[i])
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "lstat", Path: filepath.Join(abs, name), Err: err}
		}
		infos = append(infos, &slab[i])
	}
	return infos, nil
}
