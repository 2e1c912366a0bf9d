package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/kontext/kontext/engine"
)

// watchMask is every change to a directory's entries or to a file in it.
const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR

// shapeMask are the events after which the set of watched directories
// may be different.
const shapeMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_IGNORED | unix.IN_Q_OVERFLOW

// skipDirs are not descended into, as the knowledge reader does not.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// dirWatch is one watched directory: every name in it matters (a
// directory of a source), or only names (a directory on the way to one).
type dirWatch struct {
	path  string
	all   bool
	names map[string]bool
}

// watcher is the inotify instance and what it watches. Only the request
// goroutine (under server.mu) touches it, except count and degradedNow.
type watcher struct {
	fd      int
	root    string
	buf     []byte
	rebuild bool // the watches must be set again before the next read
	stale   bool // a watched file may have changed: the next read stats again
	// changed are the files of the sources that changed in place since
	// the last read (relative to the root); full says something else
	// changed too, so the next read stats every file.
	changed []string
	full    bool
	// degraded is why requests fall back now ("" when none): a symbolic
	// link in the knowledge tree (its target is not watched).
	degraded string

	mu      sync.Mutex // guards watches for count and degradedNow
	watches map[int]*dirWatch
}

func newWatcher(root string) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	return &watcher{fd: fd, root: root, buf: make([]byte, 64<<10), rebuild: true, watches: map[int]*dirWatch{}}, nil
}

func (w *watcher) close() { unix.Close(w.fd) }

func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.watches)
}

func (w *watcher) degradedNow() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.degraded
}

// drain reads every queued event (until the non-blocking read has none)
// and records what it means: inotify queues an event inside the system
// call that made the change, so every change finished before a request
// was sent is read here before the request is answered.
func (w *watcher) drain() error {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if errors.Is(err, unix.EAGAIN) {
			return nil
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading inotify events: %w", err)
		}
		if n < unix.SizeofInotifyEvent {
			return fmt.Errorf("reading inotify events: a short read of %d bytes", n)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := ""
			if ev.Len > 0 {
				raw := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				name = strings.TrimRight(string(raw), "\x00")
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
			w.event(int(ev.Wd), ev.Mask, name)
		}
	}
}

func (w *watcher) event(wd int, mask uint32, name string) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		w.stale, w.rebuild, w.full = true, true, true // events were lost: trust nothing
		return
	}
	w.mu.Lock()
	d := w.watches[wd]
	w.mu.Unlock()
	if d == nil {
		return // a watch already removed
	}
	self := mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0
	if !d.all && !self && !d.names[name] {
		return // another file beside a path of the knowledge tree
	}
	w.stale = true
	// A new or removed name may be a directory or a link; a name on the
	// way to the tree (a config file, the storage dir) may change what is
	// watched.
	if mask&shapeMask != 0 || !d.all {
		w.rebuild, w.full = true, true
		return
	}
	// A file of a source written or touched in place: the next read can
	// re-stat it alone.
	rel, err := filepath.Rel(w.root, filepath.Join(d.path, name))
	if name == "" || self || err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		w.full = true
		return
	}
	w.changed = append(w.changed, filepath.ToSlash(rel))
}

// watchAll sets the watches for what e's read depends on: the directories
// on the way to every input, each source directory recursively, each
// watched before it is listed. Watches no longer needed are removed.
func (w *watcher) watchAll(ctx context.Context, e *engine.Engine) error {
	b := &building{w: w, next: map[int]*dirWatch{}}
	// The configuration decides the rest: its files are watched before
	// the read that returns the inputs.
	for _, f := range engine.ConfigFiles() {
		if _, _, err := b.chain(f); err != nil {
			return err
		}
	}
	sources, files, err := engine.KnowledgeInputs(ctx, e)
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, _, err := b.chain(f); err != nil {
			return err
		}
	}
	for _, src := range sources {
		dir, isDir := w.root, true
		if src != "" && src != "." {
			if dir, isDir, err = b.chain(src); err != nil {
				return err
			}
		}
		if isDir {
			if err := b.walk(dir); err != nil {
				return err
			}
		}
	}
	b.checkLinks()
	w.mu.Lock()
	for wd := range w.watches {
		if b.next[wd] == nil {
			unix.InotifyRmWatch(w.fd, uint32(wd))
		}
	}
	w.watches = b.next
	w.degraded = b.degraded
	w.mu.Unlock()
	return nil
}

// building is one watchAll's new watch set.
type building struct {
	w        *watcher
	next     map[int]*dirWatch
	links    []string // the symbolic links met on the way and in the trees
	degraded string
}

// add watches dir (all names, or one more name).
func (b *building) add(dir string, all bool, name string) error {
	wd, err := unix.InotifyAddWatch(b.w.fd, dir, watchMask)
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
		return nil // gone since it was listed: its parent's event says so
	case errors.Is(err, unix.ENOSPC):
		return errors.New("the inotify watch limit is reached (raise fs.inotify.max_user_watches)")
	case err != nil:
		return fmt.Errorf("watching %s: %w", dir, err)
	}
	d := b.next[wd]
	if d == nil {
		d = &dirWatch{path: dir, names: map[string]bool{}}
		b.next[wd] = d
	}
	d.all = d.all || all
	if name != "" {
		d.names[name] = true
	}
	b.w.mu.Lock()
	if b.w.watches[wd] == nil {
		b.w.watches[wd] = d // events that arrive while building are kept
	}
	b.w.mu.Unlock()
	return nil
}

// chain watches every directory from the root down to rel's parent, each
// for the one name on the way, and returns rel's absolute path and
// whether it is a directory (a missing component ends the chain: its
// creation is an event of the last directory watched).
func (b *building) chain(rel string) (string, bool, error) {
	cur := b.w.root
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, p := range parts {
		if p == "" || p == "." {
			continue
		}
		if err := b.add(cur, false, p); err != nil {
			return "", false, err
		}
		next := filepath.Join(cur, p)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", false, nil
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			b.linked(next)
			return "", false, nil
		}
		if !fi.IsDir() {
			return next, false, nil
		}
		cur = next
		if i == len(parts)-1 {
			return cur, true, nil
		}
	}
	return cur, true, nil
}

// walk watches dir and every directory below it (skipping what the reader
// skips).
func (b *building) walk(dir string) error {
	if err := b.add(dir, true, ""); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ENOTDIR) {
			return nil
		}
		return err
	}
	for _, en := range entries {
		switch t := en.Type(); {
		case t&os.ModeSymlink != 0:
			b.linked(filepath.Join(dir, en.Name()))
		case t.IsDir() && !skipDirs[en.Name()]:
			if err := b.walk(filepath.Join(dir, en.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// linked records a symbolic link met on the way to an input or in a
// source's tree; checkLinks decides once every watch is set.
func (b *building) linked(p string) { b.links = append(b.links, p) }

// checkLinks keeps the daemon answering while every link it met resolves
// to a file or directory inside a tree it watches whole (a link within
// the knowledge tree, or a repository's AGENTS.md tree holding a
// framework's version links): a change behind such a link is an event of
// a watched directory, and retargeting the link is an event of its own.
// Any other link (dangling, leaving the repository, into a skipped or
// unwatched directory) has a target no watch sees, so every request falls
// back while it is there.
func (b *building) checkLinks() {
	if len(b.links) == 0 {
		return
	}
	// The trees were walked along real directories (never through a
	// link), so a watched path is real once the root's own links are
	// resolved.
	realRoot, err := filepath.EvalSymlinks(b.w.root)
	if err != nil {
		realRoot = b.w.root
	}
	whole := map[string]bool{}
	for _, d := range b.next {
		if d.all {
			whole[realRoot+strings.TrimPrefix(d.path, b.w.root)] = true
		}
	}
	for _, p := range b.links {
		dir := ""
		if t, err := filepath.EvalSymlinks(p); err == nil {
			if fi, err := os.Stat(t); err == nil {
				dir = t
				if !fi.IsDir() {
					dir = filepath.Dir(t)
				}
			}
		}
		if !whole[dir] {
			rel, _ := filepath.Rel(b.w.root, p)
			b.degraded = "the knowledge tree holds a symbolic link (" + filepath.ToSlash(rel) + ") whose target is not in a watched tree, so requests run in the client"
			return
		}
	}
}
