//go:build js && wasm

package main

import (
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5"
)

// stableFS gives the files of an in-memory filesystem stable modification
// times. go-billy's memfs reports time.Now() as every file's ModTime, so
// the engine's per-file parse cache (keyed on size and mtime) would never
// hit and every request would re-parse the whole knowledge base. Writes go
// through touch, which gives the file a new, later time; update also calls
// Engine.Forget, so a stale parse is never served even if a write bypassed
// touch.
type stableFS struct {
	billy.Filesystem
	mu    sync.Mutex
	clock int64
	mod   map[string]time.Time
	// opened: the files open was given, which have the time opened
	// until they are first written (touch gives later times), so open
	// records no time per file; nil while the files are the packed ones
	// (writable fills it).
	opened map[string]bool
}

// opened is the time of a file as open gave it.
var opened = time.Unix(1, 0)

func newStableFS(fs *packedFS) *stableFS {
	return &stableFS{Filesystem: fs, mod: map[string]time.Time{}}
}

func key(name string) string {
	if isClean(name) { // what the engine asks for, nearly always
		return name
	}
	return path.Clean(strings.TrimPrefix(name, "/"))
}

// writable replaces a read-only packedFS by a memfs holding its files,
// before the first write.
func (s *stableFS) writable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.Filesystem.(*packedFS)
	if !ok {
		return nil
	}
	fs, err := p.toMemfs()
	if err != nil {
		return err
	}
	s.Filesystem = fs
	s.opened = make(map[string]bool, len(p.names))
	for _, name := range p.names {
		s.opened[name] = true
	}
	return nil
}

// Lend lends the text of a file open was given while the files are the
// packed, read-only ones (kb.Lender): they are slices of the buffer open
// claimed, which nothing writes again; the first update copies them into
// a memfs, and from then on nothing is lent.
func (s *stableFS) Lend(name string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.Filesystem.(*packedFS)
	if !ok {
		return nil, false
	}
	i := p.file(packedKey(name))
	if i < 0 {
		return nil, false
	}
	return p.texts[i], true
}

// touch records that name was (re)written.
func (s *stableFS) touch(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock++
	s.mod[key(name)] = time.Unix(1, s.clock)
}

// forget drops the times of name and everything below it.
func (s *stableFS) forget(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(name)
	for p := range s.mod {
		if p == k || strings.HasPrefix(p, k+"/") {
			delete(s.mod, p)
		}
	}
	for p := range s.opened {
		if p == k || strings.HasPrefix(p, k+"/") {
			delete(s.opened, p)
		}
	}
}

// packed reports whether the files are still the packed ones open was
// given: nothing has been written (touch) or removed (forget) yet, so
// every file has the time opened, which packedInfo reports itself.
func (s *stableFS) packed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.Filesystem.(*packedFS)
	return ok
}

func (s *stableFS) info(name string, fi os.FileInfo) os.FileInfo {
	if fi == nil || fi.IsDir() || s.packed() {
		return fi
	}
	return s.infoKey(key(name), fi)
}

// infoKey is info of a file whose key is k.
func (s *stableFS) infoKey(k string, fi os.FileInfo) os.FileInfo {
	s.mu.Lock()
	t, ok := s.mod[k]
	if !ok {
		ok, t = s.opened[k], opened
	}
	s.mu.Unlock()
	if !ok {
		return fi // unknown to stableFS: memfs's ever-changing time, never cached
	}
	return stableInfo{fi, t}
}

func (s *stableFS) Stat(name string) (os.FileInfo, error) {
	fi, err := s.Filesystem.Stat(name)
	return s.info(name, fi), err
}

func (s *stableFS) Lstat(name string) (os.FileInfo, error) {
	fi, err := s.Filesystem.Lstat(name)
	return s.info(name, fi), err
}

func (s *stableFS) ReadDir(dir string) ([]os.FileInfo, error) {
	infos, err := s.Filesystem.ReadDir(dir)
	if s.packed() {
		return infos, err // a listing of ten thousand files, each as it is
	}
	prefix := key(dir) + "/" // a listed name is one clean element
	if prefix == "./" {
		prefix = ""
	}
	for i, fi := range infos {
		if fi != nil && !fi.IsDir() {
			infos[i] = s.infoKey(prefix+fi.Name(), fi)
		}
	}
	return infos, err
}

type stableInfo struct {
	os.FileInfo
	mod time.Time
}

func (i stableInfo) ModTime() time.Time { return i.mod }
