package git

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// The layer's sentinel errors; callers test them with errors.Is. The
// lookup errors' texts are go-git's, so callers that used go-git's tree
// lookups see the same messages.
var (
	ErrMalformedCommit   = errors.New("malformed commit")
	ErrMalformedTag      = errors.New("malformed tag")
	ErrMalformedTree     = errors.New("malformed tree")
	ErrFileNotFound      = errors.New("file not found")
	ErrDirectoryNotFound = errors.New("directory not found")
	ErrEntryNotFound     = errors.New("entry not found")
	ErrInvalidPath       = errors.New("invalid path")
)

// Objects is a repository's object database: packed objects are read from
// the memory-mapped packs (opened on the first read), loose objects from
// their files, in the repository's object directory and then its
// alternates'. An optional fallback storage is asked for what neither
// holds (tests compare with go-git's). An object of another type than
// asked for is plumbing.ErrObjectNotFound, like go-git reports it.
//
// Objects is safe for concurrent use. The bytes it returns are shared
// with its caches: never modify them (Blob returns a copy).
type Objects struct {
	dir      string // the objects directory; "" reads everything through fallback
	fallback storer.EncodedObjectStorer

	mu     sync.Mutex
	dirs   []string // dir and its alternates, listed with the packs
	packs  *packSet // nil until the first read
	closed bool
	raw    rawTreeCache
	trees  map[plumbing.Hash]*Tree // parsed trees, for path lookups
}

// OpenObjects opens the object database of gitDir (a linked worktree's
// commondir is followed); fallback, when not nil, serves what the object
// directories do not hold. With gitDir == "" everything is read through
// fallback.
func OpenObjects(gitDir string, fallback storer.EncodedObjectStorer) *Objects {
	o := &Objects{fallback: fallback}
	if gitDir != "" {
		o.dir = objectsDir(gitDir)
	}
	return o
}

// objectsDir is the object directory of gitDir, following the commondir
// of a linked worktree.
func objectsDir(gitDir string) string { return filepath.Join(CommonDir(gitDir), "objects") }

// Close unmaps the packs. Objects read before stay valid (inflated objects
// are copies, never views of the mapping); reads after Close go to the
// fallback.
func (o *Objects) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.packs != nil {
		o.packs.close()
	}
	o.packs, o.closed = nil, true
}

// Read returns the type and content of object h; t may be
// plumbing.AnyObject.
func (o *Objects) Read(t plumbing.ObjectType, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	// Packs first (most objects), then loose objects, then packs written
	// since the packs were mapped (a fetch or gc in a long-lived process;
	// gc also deletes the loose copies).
	for _, from := range []source{fromPacks, fromLoose, fromNewPacks} {
		typ, data, found, err := o.readOwn(from, h)
		if !found {
			continue
		}
		if err == nil && t != plumbing.AnyObject && typ != t {
			return plumbing.InvalidObject, nil, plumbing.ErrObjectNotFound
		}
		return typ, data, err
	}
	return o.readFallback(t, h)
}

// source is where readOwn looks.
type source int

const (
	fromPacks    source = iota
	fromLoose           // the loose objects
	fromNewPacks        // packs that appeared since the last listing
)

// open lists the object directories and maps their packs at the first
// read; o.mu is held.
func (o *Objects) open() {
	if o.packs == nil {
		o.dirs = objectDirs(o.dir)
		o.packs = openPacks(o.dirs)
	}
}

// readOwn reads h from the object directories (not the fallback); found
// is false when from does not hold it, or when there are no directories
// (none given, or Close was called).
func (o *Objects) readOwn(from source, h plumbing.Hash) (plumbing.ObjectType, []byte, bool, error) {
	if o.dir == "" {
		return plumbing.InvalidObject, nil, false, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return plumbing.InvalidObject, nil, false, nil
	}
	if from == fromNewPacks && (o.packs == nil || !o.packs.refresh(o.dirs)) {
		return plumbing.InvalidObject, nil, false, nil
	}
	o.open()
	if from == fromLoose {
		// The packs' decompressor serves loose objects too (o.mu is held):
		// its window and tables are tens of kilobytes of fresh memory.
		return readLoose(o.dirs, h, &o.packs.zr)
	}
	po, found, err := o.packs.read(h)
	if err != nil {
		err = fmt.Errorf("reading %s: %w", h, err)
	}
	return po.typ, po.data, found, err
}

func (o *Objects) readFallback(t plumbing.ObjectType, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	if o.fallback == nil {
		return plumbing.InvalidObject, nil, plumbing.ErrObjectNotFound
	}
	obj, err := o.fallback.EncodedObject(t, h)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	r, err := obj.Reader()
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	defer r.Close()
	buf := make([]byte, obj.Size())
	if _, err := io.ReadFull(r, buf); err != nil {
		return plumbing.InvalidObject, nil, err
	}
	return obj.Type(), buf, nil
}

// ReadCommit reads and parses commit h into c (see ParseCommit).
func (o *Objects) ReadCommit(h plumbing.Hash, c *Commit) error {
	_, data, err := o.Read(plumbing.CommitObject, h)
	if err != nil {
		return err
	}
	if err := ParseCommit(data, c); err != nil {
		return fmt.Errorf("commit %s: %w", h, err)
	}
	return nil
}

// Commit reads and parses commit h.
func (o *Objects) Commit(h plumbing.Hash) (*Commit, error) {
	c := &Commit{}
	if err := o.ReadCommit(h, c); err != nil {
		return nil, err
	}
	return c, nil
}

// CommitTree returns the root tree of commit h.
func (o *Objects) CommitTree(h plumbing.Hash) (plumbing.Hash, error) {
	var c Commit
	if err := o.ReadCommit(h, &c); err != nil {
		return plumbing.ZeroHash, err
	}
	return c.Tree, nil
}

// Blob returns a copy of blob h's content (the caller may modify it).
func (o *Objects) Blob(h plumbing.Hash) ([]byte, error) {
	_, data, err := o.Read(plumbing.BlobObject, h)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(data), nil
}

// RawTree returns the raw content of tree h; the zero hash is the empty
// tree. Recently read trees are cached: a commit's tree is the parent tree
// of the commit diffed before it in a walk, and unchanged subtrees are
// shared by neighbours.
func (o *Objects) RawTree(h plumbing.Hash) ([]byte, error) {
	if h.IsZero() {
		return nil, nil
	}
	o.mu.Lock()
	d, ok := o.raw.get(h)
	o.mu.Unlock()
	if ok {
		return d, nil
	}
	_, d, err := o.Read(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.raw.put(h, d)
	o.mu.Unlock()
	return d, nil
}

// Tree reads and parses tree h. Parsed trees are kept (bounded), so
// looking up many paths below one directory parses it once.
func (o *Objects) Tree(h plumbing.Hash) (*Tree, error) {
	o.mu.Lock()
	t, ok := o.trees[h]
	o.mu.Unlock()
	if ok {
		return t, nil
	}
	d, err := o.RawTree(h)
	if err != nil {
		return nil, err
	}
	if t, err = ParseTree(h, d); err != nil {
		return nil, fmt.Errorf("tree %s: %w", h, err)
	}
	o.mu.Lock()
	if o.trees == nil || len(o.trees) >= maxParsedTrees {
		o.trees = map[plumbing.Hash]*Tree{}
	}
	o.trees[h] = t
	o.mu.Unlock()
	return t, nil
}

const maxParsedTrees = 4096

// FindEntry looks p ("a/b/c") up below t: ErrDirectoryNotFound when a
// leading component is missing, ErrEntryNotFound when the last one is, an
// ErrInvalidPath error for a path git would not store; a leading
// component that is not a tree is plumbing.ErrObjectNotFound. The
// semantics are go-git's (object.Tree.FindEntry).
func (o *Objects) FindEntry(t *Tree, p string) (*TreeEntry, error) {
	if err := validTreePath(p); err != nil {
		return nil, err
	}
	parts := strings.Split(p, "/")
	for ; len(parts) > 1; parts = parts[1:] {
		e, err := t.Entry(parts[0])
		if err != nil {
			return nil, ErrDirectoryNotFound
		}
		if t, err = o.Tree(e.Hash); err != nil {
			return nil, err
		}
	}
	return t.Entry(parts[0])
}

// File returns a copy of the content of the file at p below t;
// ErrFileNotFound when there is no such entry or it is not a blob.
func (o *Objects) File(t *Tree, p string) ([]byte, error) {
	e, err := o.FindEntry(t, p)
	if err != nil || e.Mode == filemode.Dir || e.Mode == filemode.Submodule {
		return nil, ErrFileNotFound
	}
	data, err := o.Blob(e.Hash)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, ErrFileNotFound
	}
	return data, err
}

// rawTreeCache keeps raw trees by hash. Two generations bound its size
// without LRU bookkeeping.
type rawTreeCache struct {
	cur, old map[plumbing.Hash][]byte
}

const rawTreeGen = 4096

func (c *rawTreeCache) get(h plumbing.Hash) ([]byte, bool) {
	if d, ok := c.cur[h]; ok {
		return d, true
	}
	if d, ok := c.old[h]; ok {
		c.put(h, d)
		return d, true
	}
	return nil, false
}

func (c *rawTreeCache) put(h plumbing.Hash, d []byte) {
	switch {
	case c.cur == nil:
		// Unsized: most calls read a few trees, and a map sized for a
		// generation is hundreds of kilobytes to fault in and clear.
		c.cur = map[plumbing.Hash][]byte{}
	case len(c.cur) >= rawTreeGen:
		// The old generation's map is cleared and reused: a new one would
		// be hundreds of kilobytes of fresh memory per generation.
		c.old, c.cur = c.cur, c.old
		if c.cur == nil {
			c.cur = make(map[plumbing.Hash][]byte, rawTreeGen)
		}
		clear(c.cur)
	}
	c.cur[h] = d
}
