package gitrepo

import (
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"golang.org/x/sys/unix"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native/internal/git"
)

// scanWorktree walks the working tree once: every file of a directory's
// listing that the index tracks is stat'ed relative to the directory
// (fstatat) and marked clean when its stat data equal the entry's; every
// other file that no ignore rule covers is added to changed, as is an
// untracked nested repository ("dir/"). The rules are untracked's.
//
// The directories down to splitDepth are tasks that up to GOMAXPROCS
// workers (at most 4) take in turn, each walking the rest of its subtree
// alone, as git status stats with several threads: the walk is mostly
// system calls, which run side by side.
func (r *Repo) scanWorktree(ctx context.Context, ix *statIndex, indexTime int64, changed map[string]bool) error {
	root, err := openDir(unix.AT_FDCWD, r.root)
	if err != nil {
		return errNoFastStatus
	}
	defer unix.Close(root)
	p := &scanPool{root: root}
	p.cond = sync.NewCond(&p.mu)
	p.push(scanTask{hi: len(ix.entries), patterns: readPatternFile(filepath.Join(git.CommonDir(r.gitDir), "info", "exclude"), nil)})
	scans := make([]*scan, min(runtime.GOMAXPROCS(0), 4))
	var wg sync.WaitGroup
	for i := range scans {
		s := &scan{r: r, ix: ix, indexTime: indexTime, changed: map[string]bool{}, buf: make([]byte, 16<<10), pool: p}
		scans[i] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				t, ok := p.pop()
				if !ok {
					return
				}
				p.done(s.task(ctx, t))
			}
		}()
	}
	wg.Wait()
	if p.err != nil {
		return p.err
	}
	for _, s := range scans {
		for k := range s.changed {
			changed[k] = true
		}
	}
	return nil
}

// splitDepth: directories at most this deep (the root's children are 1)
// are tasks of their own.
const splitDepth = 2

// scanTask is one directory to walk: its path ("/"-terminated, "" for
// the root), its tracked entries ix.entries[lo:hi] and the ignore patterns
// that apply to it.
type scanTask struct {
	rel      string
	lo, hi   int
	patterns []gitignore.Pattern
}

// scanPool holds the directories no worker has taken yet.
type scanPool struct {
	root    int // the worktree's directory
	mu      sync.Mutex
	cond    *sync.Cond
	stack   []scanTask
	pending int   // tasks pushed and not done
	err     error // the first task's error
}

func (p *scanPool) push(t scanTask) {
	p.mu.Lock()
	p.stack = append(p.stack, t)
	p.pending++
	p.cond.Signal()
	p.mu.Unlock()
}

// pop waits for a task; false when all are done or one failed.
func (p *scanPool) pop() (scanTask, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.stack) == 0 && p.pending > 0 && p.err == nil {
		p.cond.Wait()
	}
	if p.err != nil || len(p.stack) == 0 {
		return scanTask{}, false
	}
	t := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	return t, true
}

// done ends a task.
func (p *scanPool) done(err error) {
	p.mu.Lock()
	p.pending--
	if err != nil && p.err == nil {
		p.err = err
	}
	if p.pending == 0 || p.err != nil {
		p.cond.Broadcast()
	}
	p.mu.Unlock()
}

type scan struct {
	r         *Repo
	ix        *statIndex
	indexTime int64
	changed   map[string]bool
	buf       []byte // getdents
	path      []byte // the directory listed, relative, "/"-terminated ("" at the root)
	pool      *scanPool
}

// task opens and walks t's directory. One that went away or may not be
// read is skipped, as a subdirectory is.
func (s *scan) task(ctx context.Context, t scanTask) error {
	name := strings.TrimSuffix(t.rel, "/")
	if name == "" {
		name = "."
	}
	s.path = append(s.path[:0], t.rel...)
	fd, err := openDir(s.pool.root, name)
	if err != nil {
		if skippable(err) {
			return nil
		}
		return apierr.Wrap(apierr.OperationFailed, err, "listing %s", s.rel())
	}
	defer unix.Close(fd)
	return s.dir(ctx, fd, t.lo, t.hi, t.patterns)
}

func skippable(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)
}

// Directory entry types of getdents64.
const (
	dtUnknown = 0
	dtDir     = 4
)

// dir scans the open directory fd (s.path) whose tracked entries are
// ix.entries[lo:hi].
func (s *scan) dir(ctx context.Context, fd int, lo, hi int, patterns []gitignore.Pattern) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	list, err := s.list(fd)
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "listing %s", s.rel())
	}
	base := len(s.path)
	var parts []string // s.path split, once there are patterns to match
	for it := list; it != ""; {
		name, typ, rest := dirent(it)
		it = rest
		if name == ".gitignore" && s.typeOf(fd, name, typ) != dtDir {
			parts = s.parts()
			patterns = append(patterns[:len(patterns):len(patterns)], readPatternFile(filepath.Join(s.r.root, s.rel(), ".gitignore"), parts)...)
			break
		}
	}
	var m gitignore.Matcher
	if len(patterns) > 0 {
		m = gitignore.NewMatcher(patterns)
		parts = s.parts()
	}
	ignored := func(name string, isDir bool) bool {
		return m != nil && m.Match(append(parts[:len(parts):len(parts)], name), isDir)
	}
	es := s.ix.entries
	for it := list; it != ""; {
		name, typ, rest := dirent(it)
		it = rest
		if name == "." || name == ".." || name == ".git" {
			continue
		}
		s.path = append(s.path[:base], name...)
		i := lo + lowerBound(es[lo:hi], s.key())
		exact := i < hi && es[i].name == s.key()
		if s.typeOf(fd, name, typ) == dtDir {
			if exact && es[i].mode == filemode.Submodule {
				continue
			}
			// The entries under name/ are those from "name/" up to "name0"
			// ('0' follows '/').
			s.path = append(s.path, '/')
			a := i + lowerBound(es[i:hi], s.key())
			s.path[len(s.path)-1] = '0'
			b := a + lowerBound(es[a:hi], s.key())
			s.path[len(s.path)-1] = '/'
			if a == b { // no tracked file below: ignored, a nested repository or untracked
				if ignored(name, true) {
					continue
				}
				var st unix.Stat_t
				if fstatat(fd, name+"/.git", &st) == nil {
					s.changed[string(s.path)] = true
					continue
				}
			}
			if strings.Count(s.key(), "/") <= splitDepth {
				s.pool.push(scanTask{rel: string(s.path), lo: a, hi: b, patterns: patterns})
				continue
			}
			sub, err := openDir(fd, name)
			if err != nil {
				if skippable(err) {
					continue
				}
				return apierr.Wrap(apierr.OperationFailed, err, "listing %s", s.rel())
			}
			err = s.dir(ctx, sub, a, b, patterns)
			unix.Close(sub)
			if err != nil {
				return err
			}
			continue
		}
		if !exact {
			if !ignored(name, false) {
				s.changed[string(s.path)] = true
			}
			continue
		}
		for j := i; j < hi && es[j].name == es[i].name; j++ {
			e := &es[j]
			if !e.checked() {
				continue
			}
			var st unix.Stat_t
			if fstatat(fd, name, &st) != nil {
				continue // fileDiffers tells
			}
			mode, ok := gitMode(st.Mode)
			mtime := st.Mtim.Sec*1e9 + st.Mtim.Nsec
			e.clean = ok && mode == e.mode && statClean(uint32(st.Size), mtime, e.size, e.mtime, s.indexTime)
		}
	}
	s.path = s.path[:base]
	return nil
}

// key is s.path as a string for comparisons only (it changes under it).
func (s *scan) key() string { return unsafe.String(unsafe.SliceData(s.path), len(s.path)) }

// rel is the directory listed ("" at the root).
func (s *scan) rel() string { return strings.TrimSuffix(string(s.path), "/") }

// parts is the directory listed as path elements (nil at the root), the
// domain of its ignore patterns.
func (s *scan) parts() []string {
	if rel := s.rel(); rel != "" {
		return strings.Split(rel, "/")
	}
	return nil
}

// typeOf is a listed entry's type, asking the file system when the
// listing did not say.
func (s *scan) typeOf(fd int, name string, typ byte) byte {
	if typ != dtUnknown {
		return typ
	}
	var st unix.Stat_t
	if fstatat(fd, name, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return dtDir
	}
	return typ
}

// list reads the whole listing of fd (getdents64 records).
func (s *scan) list(fd int) (string, error) {
	n := 0
	for {
		if len(s.buf)-n < 4096 {
			s.buf = append(s.buf, make([]byte, len(s.buf))...)
		}
		m, err := unix.Getdents(fd, s.buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", err
		}
		if m <= 0 {
			return string(s.buf[:n]), nil
		}
		n += m
	}
}

// dirent decodes the first getdents64 record of b: name, type and the
// records after it.
func dirent(b string) (name string, typ byte, rest string) {
	if len(b) < 19 {
		return "", 0, ""
	}
	reclen := int(binary.NativeEndian.Uint16([]byte(b[16:18])))
	if reclen < 19 || reclen > len(b) {
		return "", 0, ""
	}
	name = b[19:reclen]
	if z := strings.IndexByte(name, 0); z >= 0 {
		name = name[:z]
	}
	return name, b[18], b[reclen:]
}

// gitMode is the index mode of a regular file or symlink with stat mode m
// (as filemode.NewFromOSFileMode gives it); false for anything else.
func gitMode(m uint32) (filemode.FileMode, bool) {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		if m&0o100 != 0 {
			return filemode.Executable, true
		}
		return filemode.Regular, true
	case unix.S_IFLNK:
		return filemode.Symlink, true
	}
	return filemode.Empty, false
}

func openDir(at int, name string) (int, error) {
	for {
		fd, err := unix.Openat(at, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func fstatat(fd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}
