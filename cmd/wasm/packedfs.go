//go:build js && wasm

package main

import (
	"bytes"
	"os"
	"path"
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
// was given: the texts stay where they were decoded (slices of one
// buffer) and directories are listed from a table built once. Writing ten
// thousand files into memfs cost more than half of opening a bundle in
// WASM; a knowledge base that is only read never needs it. update()
// materialises the files into a memfs (toMemfs) before its first write.
type packedFS struct {
	files map[string][]byte
	dirs  map[string][]os.FileInfo // directory → its entries, sorted by name
}

// newPackedFS lists files (names: its keys, best sorted, so that the
// directory listings need no sorting). Sorted names put a directory's
// files one after another: dirs is written once per such run, not once
// per file (each map write was among the functions V8 recompiled during a
// first open: docs/architecture.md, "V8's tiers").
func newPackedFS(files map[string][]byte, names []string) *packedFS {
	p := &packedFS{files: files, dirs: map[string][]os.FileInfo{".": nil}}
	var dir string
	var run []os.FileInfo // dir's infos, not yet in dirs
	open := false
	for _, name := range names {
		d, base := split(name)
		if !open || d != dir {
			if open {
				p.dirs[dir] = run
			}
			dir, run, open = d, p.listed(d), true
		}
		run = append(run, packedInfo{name: base, size: int64(len(files[name]))})
	}
	if open {
		p.dirs[dir] = run
	}
	for _, infos := range p.dirs {
		sort.Slice(infos, func(i, j int) bool { return infos[i].Name() < infos[j].Name() })
	}
	return p
}

// listed is dir's infos so far; a directory not listed yet is added to
// its parents' listings, up to the first one listed.
func (p *packedFS) listed(dir string) []os.FileInfo {
	if infos, ok := p.dirs[dir]; ok {
		return infos
	}
	for d := dir; d != "."; {
		parent, base := split(d)
		_, seen := p.dirs[parent]
		p.dirs[parent] = append(p.dirs[parent], packedInfo{name: base, dir: true})
		if seen {
			break
		}
		d = parent
	}
	return nil
}

// split is path.Dir and path.Base of a clean relative path, without
// cleaning it again: path.Clean on every file was among the hottest
// functions of a first open in the WASM engine. Not inlined: its loop over
// the name would charge its caller's size per byte (docs/architecture.md,
// "V8's tiers").
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
	for name, text := range p.files {
		if err := util.WriteFile(fs, name, text, 0o644); err != nil {
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
	if text, ok := p.files[k]; ok {
		return packedInfo{name: path.Base(k), size: int64(len(text))}, nil
	}
	if _, ok := p.dirs[k]; ok {
		return packedInfo{name: path.Base(k), dir: true}, nil
	}
	return nil, notExist(op, name)
}

func (p *packedFS) Stat(name string) (os.FileInfo, error)  { return p.stat("stat", name) }
func (p *packedFS) Lstat(name string) (os.FileInfo, error) { return p.stat("lstat", name) }

func (p *packedFS) ReadDir(name string) ([]os.FileInfo, error) {
	infos, ok := p.dirs[packedKey(name)]
	if !ok {
		return nil, notExist("open", name)
	}
	return append([]os.FileInfo(nil), infos...), nil
}

func (p *packedFS) Open(name string) (billy.File, error) {
	return p.OpenFile(name, os.O_RDONLY, 0)
}

func (p *packedFS) OpenFile(name string, flag int, _ os.FileMode) (billy.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) != 0 {
		return nil, readOnly("open", name)
	}
	k := packedKey(name)
	text, ok := p.files[k]
	if !ok {
		return nil, notExist("open", name)
	}
	return &packedFile{Reader: bytes.NewReader(text), name: name}, nil
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
