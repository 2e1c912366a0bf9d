//go:build js && wasm

package main

import (
	"bytes"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/helper/chroot"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"
)

// packedFS is the read-only filesystem open builds over the file set it
// was given: the names and texts stay where they were decoded (slices of
// one buffer), in two slices sorted by name, and a directory is listed from
// the run of names under it when it is read. Writing ten thousand files
// into memfs cost more than half of opening a bundle in WASM; a knowledge
// base that is only read never needs it. update() materialises the files
// into a memfs (toMemfs) before its first write. No map and no object per
// file: an open repository of the edge worker holds its snapshot, these
// two slices and the buffer, and the collector scans two arrays, not a
// thousand objects.
type packedFS struct {
	names []string // sorted
	texts [][]byte // texts[i] is names[i]'s
}

// newPackedFS is the filesystem of names (sorted, distinct) and their
// texts.
func newPackedFS(names []string, texts [][]byte) *packedFS {
	return &packedFS{names: names, texts: texts}
}

// file is the index of the file k (a clean key), or -1.
func (p *packedFS) file(k string) int {
	i, ok := slices.BinarySearch(p.names, k)
	if !ok {
		return -1
	}
	return i
}

// under is the run of names below directory k ("." is the root): [i, j).
func (p *packedFS) under(k string) (int, int) {
	if k == "." {
		return 0, len(p.names)
	}
	prefix := k + "/"
	i, _ := slices.BinarySearch(p.names, prefix)
	j := i + sort.Search(len(p.names)-i, func(n int) bool { return !strings.HasPrefix(p.names[i+n], prefix) })
	return i, j
}

// isDir reports whether k is a directory: the root, or a prefix of a name.
func (p *packedFS) isDir(k string) bool {
	i, j := p.under(k)
	return k == "." || i < j
}

// split is path.Dir and path.Base of a clean relative path, without
// cleaning it again. Not inlined: its loop over the name would charge its
// caller's size per byte (docs/architecture.md, "V8's tiers").
//
//go:noinline
func split(name string) (dir, base string) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return ".", name
}

// toMemfs copies the files into a writable in-memory filesystem.
func (p *packedFS) toMemfs() (billy.Filesystem, error) {
	fs := memfs.New()
	for i, name := range p.names {
		if err := util.WriteFile(fs, name, p.texts[i], 0o644); err != nil {
			return nil, err
		}
	}
	return fs, nil
}

func packedKey(name string) string {
	if isClean(name) {
		return name
	}
	k := path.Clean(strings.TrimPrefix(name, "/"))
	if k == "" || k == "/" {
		return "."
	}
	return k
}

func notExist(op, name string) error {
	return &os.PathError{Op: op, Path: name, Err: syscall.ENOENT}
}

func readOnly(op, name string) error {
	return &os.PathError{Op: op, Path: name, Err: syscall.EROFS}
}

func (p *packedFS) stat(op, name string) (os.FileInfo, error) {
	k := packedKey(name)
	if i := p.file(k); i >= 0 {
		return packedInfo{name: path.Base(k), size: int64(len(p.texts[i]))}, nil
	}
	if p.isDir(k) {
		return packedInfo{name: path.Base(k), dir: true}, nil
	}
	return nil, notExist(op, name)
}

func (p *packedFS) Stat(name string) (os.FileInfo, error)  { return p.stat("stat", name) }
func (p *packedFS) Lstat(name string) (os.FileInfo, error) { return p.stat("lstat", name) }

// ReadDir lists the run of names under the directory, in name order: a
// file for a name with no "/" after the prefix, else its first element,
// once, as a directory.
func (p *packedFS) ReadDir(name string) ([]os.FileInfo, error) {
	k := packedKey(name)
	i, j := p.under(k)
	if i == j && k != "." {
		return nil, notExist("open", name)
	}
	skip := len(k) + 1
	if k == "." {
		skip = 0
	}
	var infos []os.FileInfo
	for n := i; n < j; n++ {
		rest := p.names[n][skip:]
		if d := strings.IndexByte(rest, '/'); d >= 0 {
			if last := len(infos) - 1; last < 0 || infos[last].Name() != rest[:d] {
				infos = append(infos, packedInfo{name: rest[:d], dir: true})
			}
			continue
		}
		infos = append(infos, packedInfo{name: rest, size: int64(len(p.texts[n]))})
	}
	// A directory sorts where its name and "/" would: after a file whose
	// name continues with a byte below "/" ("a-b" before "a/"), so the
	// listing is sorted by name, as memfs lists.
	if !sort.SliceIsSorted(infos, func(a, b int) bool { return infos[a].Name() < infos[b].Name() }) {
		sort.Slice(infos, func(a, b int) bool { return infos[a].Name() < infos[b].Name() })
	}
	return infos, nil
}

func (p *packedFS) Open(name string) (billy.File, error) {
	return p.OpenFile(name, os.O_RDONLY, 0)
}

func (p *packedFS) OpenFile(name string, flag int, _ os.FileMode) (billy.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) != 0 {
		return nil, readOnly("open", name)
	}
	i := p.file(packedKey(name))
	if i < 0 {
		return nil, notExist("open", name)
	}
	return &packedFile{Reader: bytes.NewReader(p.texts[i]), name: name}, nil
}

func (p *packedFS) Create(name string) (billy.File, error) { return nil, readOnly("open", name) }
func (p *packedFS) Rename(from, _ string) error            { return readOnly("rename", from) }
func (p *packedFS) Remove(name string) error               { return readOnly("remove", name) }
func (p *packedFS) Join(elem ...string) string             { return path.Join(elem...) }
func (p *packedFS) TempFile(dir, _ string) (billy.File, error) {
	return nil, readOnly("open", dir)
}
func (p *packedFS) MkdirAll(name string, _ os.FileMode) error { return readOnly("mkdir", name) }
func (p *packedFS) Symlink(_, link string) error              { return readOnly("symlink", link) }
func (p *packedFS) Readlink(name string) (string, error) {
	return "", &os.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
}
func (p *packedFS) Chroot(dir string) (billy.Filesystem, error) { return chroot.New(p, dir), nil }
func (p *packedFS) Root() string                                { return "/" }

type packedFile struct {
	*bytes.Reader
	name string
}

func (f *packedFile) Name() string              { return f.name }
func (f *packedFile) Write([]byte) (int, error) { return 0, readOnly("write", f.name) }
func (f *packedFile) Close() error              { return nil }
func (f *packedFile) Lock() error               { return nil }
func (f *packedFile) Unlock() error             { return nil }
func (f *packedFile) Truncate(int64) error      { return readOnly("truncate", f.name) }

type packedInfo struct {
	name string
	size int64
	dir  bool
}

func (i packedInfo) Name() string { return i.name }
func (i packedInfo) Size() int64  { return i.size }
func (i packedInfo) Mode() os.FileMode {
	if i.dir {
		return os.ModeDir | 0o755
	}
	return 0o644
}

// ModTime is the time stableFS gives the files open was given (opened):
// while the files are these, stableFS passes their infos on as they are.
func (i packedInfo) ModTime() time.Time {
	if i.dir {
		return time.Time{}
	}
	return opened
}
func (i packedInfo) IsDir() bool { return i.dir }
func (i packedInfo) Sys() any    { return nil }
