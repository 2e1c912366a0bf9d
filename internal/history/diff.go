package history

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// diffCount counts commit diffs; the tests read it to prove that cached
// commits are not diffed again.
var diffCount atomic.Int64

// builder holds the state of one Build: the storage, the raw trees read so
// far and reusable buffers.
type builder struct {
	st      storer.EncodedObjectStorer
	gitDir  string
	packs   *packSet // opened on the first object read; nil: read everything through st
	shallow map[plumbing.Hash]bool
	treeOf  map[plumbing.Hash]plumbing.Hash // commit → root tree, for commits read in this walk
	trees   treeCache
	path    []byte   // the directory being diffed, "/"-terminated
	out     []string // paths found by the current diff
}

func newBuilder(st storer.EncodedObjectStorer) *builder {
	return &builder{
		st:     st,
		treeOf: map[plumbing.Hash]plumbing.Hash{},
		trees:  treeCache{cur: map[plumbing.Hash][]byte{}},
	}
}

// close unmaps the packs; no object bytes outlive it (inflated objects are
// copies, never views of the mapping).
func (b *builder) close() {
	if b.packs != nil {
		b.packs.close()
	}
}

// treeCache keeps raw trees read recently. A commit's tree is the first
// parent tree of the commit diffed right before it in walk order, and
// unchanged subtrees are shared by neighbours, so a small cache saves most
// of the object reads. Two generations bound its size without LRU
// bookkeeping.
type treeCache struct {
	cur, old map[plumbing.Hash][]byte
}

const treeCacheGen = 4096

func (c *treeCache) get(h plumbing.Hash) ([]byte, bool) {
	if d, ok := c.cur[h]; ok {
		return d, true
	}
	if d, ok := c.old[h]; ok {
		c.put(h, d)
		return d, true
	}
	return nil, false
}

func (c *treeCache) put(h plumbing.Hash, d []byte) {
	if len(c.cur) >= treeCacheGen {
		c.old, c.cur = c.cur, make(map[plumbing.Hash][]byte, treeCacheGen)
	}
	c.cur[h] = d
}

// readObject returns the raw content of an object.
// The returned bytes may be shared with caches: never modify them.
func (b *builder) readObject(t plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	if b.packs == nil && b.gitDir != "" {
		// Lazily: a fully cached walk reads no object at all.
		b.packs = openPacks(objectsDir(b.gitDir))
	}
	if b.packs != nil {
		o, found, err := b.packs.read(h)
		if found {
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", h, err)
			}
			if o.typ != t {
				return nil, plumbing.ErrObjectNotFound
			}
			return o.data, nil
		}
	}
	obj, err := b.st.EncodedObject(t, h)
	if err != nil {
		return nil, err
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, obj.Size())
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// readCommit reads and parses a commit object. It parses the raw object
// rather than using object.Commit: only a few headers are needed, and
// decoding signatures and the whole message costs allocations per commit.
func (b *builder) readCommit(h plumbing.Hash) (*node, error) {
	data, err := b.readObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	n := &node{hash: h, c: &Commit{SHA: h.String()}}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			break // end of headers; the message follows
		}
		key, val, _ := bytes.Cut(line, []byte{' '})
		switch string(key) {
		case "tree":
			if !plumbing.IsHash(string(val)) {
				return nil, fmt.Errorf("history: commit %s: bad tree header", h)
			}
			n.tree = plumbing.NewHash(string(val))
		case "parent":
			if !plumbing.IsHash(string(val)) {
				return nil, fmt.Errorf("history: commit %s: bad parent header", h)
			}
			n.c.Parents = append(n.c.Parents, string(val))
		case "author":
			n.c.Author = signatureName(val)
		case "committer":
			n.c.Time = signatureTime(val)
		}
	}
	subject := data
	if i := bytes.IndexByte(subject, '\n'); i >= 0 {
		subject = subject[:i]
	}
	n.c.Subject = string(bytes.TrimRight(subject, "\r"))
	n.c.Merge = len(n.c.Parents) > 1
	b.treeOf[h] = n.tree
	return n, nil
}

// signatureName returns the name of "Name <email> 1700000000 +0100".
func signatureName(sig []byte) string {
	if i := bytes.IndexByte(sig, '<'); i >= 0 {
		sig = sig[:i]
	}
	return string(bytes.TrimSpace(sig))
}

// signatureTime parses the time of "Name <email> 1700000000 +0100".
func signatureTime(sig []byte) time.Time {
	if i := bytes.LastIndexByte(sig, '>'); i >= 0 {
		sig = sig[i+1:]
	}
	f := bytes.Fields(sig)
	if len(f) == 0 {
		return time.Time{}
	}
	sec, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(sec, 0).UTC()
}

// commitTree returns the root tree of commit h, from the commits read
// during this walk or by reading the commit object (a parent whose
// metadata came from the cache).
func (b *builder) commitTree(h plumbing.Hash) (plumbing.Hash, error) {
	if t, ok := b.treeOf[h]; ok {
		return t, nil
	}
	n, err := b.readCommit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return n.tree, nil
}

// diff returns the sorted paths that differ between trees from and to
// (from zero: every file of to). Equal subtrees are skipped by hash
// without being read.
func (b *builder) diff(from, to plumbing.Hash) ([]string, error) {
	diffCount.Add(1)
	b.path = b.path[:0]
	b.out = b.out[:0]
	if err := b.diffTrees(from, to); err != nil {
		return nil, err
	}
	out := make([]string, len(b.out))
	copy(out, b.out)
	// The merge below walks git's tree order, where a directory sorts as if
	// its name ended in "/"; callers want plain byte order.
	sort.Strings(out)
	return out, nil
}

func (b *builder) tree(h plumbing.Hash) ([]byte, error) {
	if h.IsZero() {
		return nil, nil
	}
	if d, ok := b.trees.get(h); ok {
		return d, nil
	}
	d, err := b.readObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	b.trees.put(h, d)
	return d, nil
}

// entry is one parsed raw tree entry; name aliases the raw tree.
type entry struct {
	mode []byte
	name []byte
	hash plumbing.Hash
	dir  bool
}

var errBadTree = errors.New("malformed tree object")

// nextEntry parses the first entry of a raw tree ("<mode> <name>\0<20-byte
// id>") and returns the rest.
func nextEntry(d []byte) (entry, []byte, error) {
	sp := bytes.IndexByte(d, ' ')
	if sp < 0 {
		return entry{}, nil, errBadTree
	}
	nul := bytes.IndexByte(d[sp+1:], 0)
	if nul < 0 || sp+1+nul+1+20 > len(d) {
		return entry{}, nil, errBadTree
	}
	e := entry{mode: d[:sp], name: d[sp+1 : sp+1+nul]}
	e.dir = string(e.mode) == "40000"
	end := sp + 1 + nul + 1
	copy(e.hash[:], d[end:end+20])
	return e, d[end+20:], nil
}

// compareEntries orders entries like git sorts trees: by name bytes, a
// directory's name counting as if it ended in "/". A file and a directory
// of the same name are therefore different entries, which makes a file
// replaced by a directory a delete plus adds, as git reports it.
func compareEntries(a, b *entry) int {
	n := min(len(a.name), len(b.name))
	if c := bytes.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	var ca, cb byte
	if len(a.name) > n {
		ca = a.name[n]
	} else if a.dir {
		ca = '/'
	}
	if len(b.name) > n {
		cb = b.name[n]
	} else if b.dir {
		cb = '/'
	}
	return int(ca) - int(cb)
}

// diffTrees merges the sorted entries of two trees (either may be zero)
// and records every changed non-directory path under b.path. Submodules
// (gitlinks) are leaves: a changed commit id is a changed path.
func (b *builder) diffTrees(x, y plumbing.Hash) error {
	if x == y {
		return nil
	}
	xd, err := b.tree(x)
	if err != nil {
		return err
	}
	yd, err := b.tree(y)
	if err != nil {
		return err
	}
	var ex, ey entry
	haveX, haveY := false, false
	for {
		if !haveX && len(xd) > 0 {
			if ex, xd, err = nextEntry(xd); err != nil {
				return fmt.Errorf("tree %s: %w", x, err)
			}
			haveX = true
		}
		if !haveY && len(yd) > 0 {
			if ey, yd, err = nextEntry(yd); err != nil {
				return fmt.Errorf("tree %s: %w", y, err)
			}
			haveY = true
		}
		switch {
		case !haveX && !haveY:
			return nil
		case !haveY:
			err = b.side(&ex, true)
			haveX = false
		case !haveX:
			err = b.side(&ey, false)
			haveY = false
		default:
			c := compareEntries(&ex, &ey)
			switch {
			case c < 0:
				err = b.side(&ex, true)
				haveX = false
			case c > 0:
				err = b.side(&ey, false)
				haveY = false
			default:
				haveX, haveY = false, false
				if ex.dir {
					err = b.sub(ex.name, ex.hash, ey.hash)
				} else if ex.hash != ey.hash || !bytes.Equal(ex.mode, ey.mode) {
					// A mode change alone (chmod, file ↔ symlink) is a
					// change to git too.
					b.emit(ex.name)
				}
			}
		}
		if err != nil {
			return err
		}
	}
}

// side records an entry present on one side only: a file, or every file
// below a directory.
func (b *builder) side(e *entry, old bool) error {
	if !e.dir {
		b.emit(e.name)
		return nil
	}
	if old {
		return b.sub(e.name, e.hash, plumbing.ZeroHash)
	}
	return b.sub(e.name, plumbing.ZeroHash, e.hash)
}

// sub diffs the subtree name.
func (b *builder) sub(name []byte, x, y plumbing.Hash) error {
	n := len(b.path)
	b.path = append(append(b.path, name...), '/')
	err := b.diffTrees(x, y)
	b.path = b.path[:n]
	return err
}

func (b *builder) emit(name []byte) {
	n := len(b.path)
	b.path = append(b.path, name...)
	b.out = append(b.out, string(b.path))
	b.path = b.path[:n]
}
