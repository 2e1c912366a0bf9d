package history

import (
	"context"
	"sort"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/kontext/kontext/native/internal/git"
)

// diffCount counts commit diffs; the tests read it to prove that cached
// commits are not diffed again.
var diffCount atomic.Int64

// builder holds the state of one Build: the object database, the commits
// read so far and reusable buffers.
type builder struct {
	objs    *git.Objects
	differ  *git.Differ
	shallow map[plumbing.Hash]bool
	treeOf  map[plumbing.Hash]plumbing.Hash // commit → root tree, for commits read in this walk
	raw     git.Commit                      // scratch for parsing
	out     []string                        // paths found by the current diff
	collect git.ChangeFunc                  // appends to out
}

// newBuilder reads packed objects from gitDir's packs ("" reads
// everything through st) and the rest through st.
func newBuilder(st storer.EncodedObjectStorer, gitDir string) *builder {
	b := &builder{
		objs:   git.OpenObjects(gitDir, st),
		treeOf: map[plumbing.Hash]plumbing.Hash{},
	}
	b.differ = git.NewDiffer(b.objs)
	b.collect = func(path []byte, _, _ git.Side) error {
		b.out = append(b.out, string(path))
		return nil
	}
	return b
}

// close unmaps the packs; no object bytes outlive it (inflated objects are
// copies, never views of the mapping).
func (b *builder) close() { b.objs.Close() }

// readCommit reads a commit object into a walk node.
func (b *builder) readCommit(h plumbing.Hash) (*node, error) {
	if err := b.objs.ReadCommit(h, &b.raw); err != nil {
		return nil, err
	}
	c := &Commit{
		SHA:     git.HashString(h),
		Time:    time.Unix(b.raw.Time, 0).UTC(),
		Subject: b.raw.Subject,
		Author:  b.raw.Author,
		Merge:   len(b.raw.Parents) > 1,
	}
	if len(b.raw.Parents) > 0 {
		c.Parents = make([]string, len(b.raw.Parents))
		for i, p := range b.raw.Parents {
			c.Parents[i] = git.HashString(p)
		}
	}
	b.treeOf[h] = b.raw.Tree
	return &node{hash: h, tree: b.raw.Tree, c: c}, nil
}

// parentTree returns the root tree of commit h: remembered when the walk
// read h, else read (a parent whose metadata came from the cache).
func (b *builder) parentTree(h plumbing.Hash) (plumbing.Hash, error) {
	if t, ok := b.treeOf[h]; ok {
		return t, nil
	}
	return b.objs.CommitTree(h)
}

// diff returns the sorted paths that differ between trees from and to
// (from zero: every file of to).
func (b *builder) diff(ctx context.Context, from, to plumbing.Hash) ([]string, error) {
	diffCount.Add(1)
	b.out = b.out[:0]
	if err := b.differ.Diff(ctx, from, to, b.collect); err != nil {
		return nil, err
	}
	out := make([]string, len(b.out))
	copy(out, b.out)
	// The differ reports in git's tree order, where a directory sorts as if
	// its name ended in "/"; callers want plain byte order.
	sort.Strings(out)
	return out, nil
}
