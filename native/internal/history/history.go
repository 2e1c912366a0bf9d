// Package history is kontext's native commit index: for every commit
// reachable from HEAD (up to a limit) its parents, committer time, subject
// and the paths it changed against its first parent. The history operations
// (since, drift, changed, landed) are answered from it.
//
// It reads and diffs objects through internal/git, kontext's one git object
// layer: go-git's Log with a path filter is wrong on merges (it compares a
// commit with the previous one in traversal order, not with its parent) and
// far slower than git. A commit's changed paths never
// change, so they are cached forever under <git-dir>/kontext/cache/commits/
// and only commits new since the last walk cost a tree diff.
package history

import (
	"container/heap"
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/native/internal/git"
)

// ErrNoCommits is returned by Build when the repository has no commits;
// callers map it to the no_commits error code.
var ErrNoCommits = errors.New("repository has no commits")

// Commit is one walked commit: the engine's type, so that an index is
// handed to the engine without copying its commits. SHA is the full hex
// id; Parents are in commit order (first parent first); Time is the
// committer time, UTC; Subject the first line of the message; Author the
// author name (without the email). Paths are the paths changed against the
// first parent, sorted, with "/" separators and unquoted: renames appear as
// both the old and the new path (git's --no-renames), a submodule when its
// commit changed, every file for a root commit and for a shallow boundary
// commit (git treats it as a root: its parents are cut off); nil for merges,
// which are walked but not counted as changes. Merge is set for a commit
// with more than one parent, except on a shallow boundary (a root there,
// like git log shows it).
type Commit = engine.Commit

// Index is the commit index of one HEAD.
type Index struct {
	Head string // the sha the walk started from
	// Commits are the walked commits, newest first; every commit comes
	// before its parents (a topological order, ties broken by time).
	Commits []*Commit
	bySHA   map[string]*Commit // Commits by full sha, built on first use (see lookup)
	// Truncated is set when the walk stopped at maxCommits with commits
	// left: answers about older history are then incomplete.
	Truncated bool
	// Shallow is set in a shallow clone: history ends at the shallow
	// boundary, so counts are lower bounds.
	Shallow bool
}

// Reachable reports whether sha is head or one of its ancestors among the
// walked commits. Everything walked is reachable from head, so this is a
// lookup; a commit beyond the walk limit reports false (see Truncated).
func (ix *Index) Reachable(sha string) bool {
	_, ok := ix.lookup(sha)
	return ok
}

// lookup finds a walked commit by full sha. The map is built on the first
// lookup (not safe for concurrent use): the engine's lineage keeps its
// own, and building one per walk was a 5,000-entry map per --json call
// for nothing.
func (ix *Index) lookup(sha string) (*Commit, bool) {
	if ix.bySHA == nil {
		ix.bySHA = make(map[string]*Commit, len(ix.Commits))
		for _, c := range ix.Commits {
			ix.bySHA[c.SHA] = c
		}
	}
	c, ok := ix.bySHA[sha]
	return c, ok
}

// Since returns the non-merge commits reachable from the index head and not
// from `from`, newest first (the Commits order). from == "" means all of
// them. Commits of a branch merged after `from` count when `from` cannot
// reach them, which is what "reachable from HEAD and not from that look's
// commit" means. When `from` is not among the walked commits (unknown, or
// beyond the walk limit) nothing is excluded; callers check Reachable and
// Truncated to tell those cases apart.
func (ix *Index) Since(from string) []*Commit {
	excluded := map[string]bool{}
	if c, ok := ix.lookup(from); ok {
		// Ancestors of from, within the walked commits.
		stack := []*Commit{c}
		excluded[c.SHA] = true
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range c.Parents {
				if pc, ok := ix.lookup(p); ok && !excluded[p] {
					excluded[p] = true
					stack = append(stack, pc)
				}
			}
		}
	}
	var out []*Commit
	for _, c := range ix.Commits {
		if !c.Merge && !excluded[c.SHA] {
			out = append(out, c)
		}
	}
	return out
}

// Build walks from head (a full sha) over all parents, merged branches
// included, up to maxCommits commits (<= 0: no limit), newest committer
// time first like git rev-list. Each non-merge commit's tree is diffed
// against its first parent's; results are read from and added to the cache
// under <gitDir>/kontext/cache/commits/. head == "" (no HEAD yet) gives
// ErrNoCommits.
//
// Objects are read through internal/git: packed ones from the packs under
// gitDir (following a linked worktree's commondir), memory-mapped; st
// serves everything else (loose objects, alternates). The shallow list is
// gitDir's: boundary commits are treated as parentless, like git does.
func Build(ctx context.Context, st storer.EncodedObjectStorer, gitDir, head string, maxCommits int) (*Index, error) {
	if head == "" {
		return nil, ErrNoCommits
	}
	headHash, ok := parseHash(head)
	if !ok {
		return nil, fmt.Errorf("history: head %q is not a full sha", head)
	}
	c := openCache(gitDir)
	var shallow map[plumbing.Hash]bool
	if gitDir != "" {
		var err error
		if shallow, err = git.Shallow(gitDir); err != nil {
			return nil, fmt.Errorf("history: reading the shallow list: %w", err)
		}
	}
	if len(shallow) == 0 {
		if ix, ok := c.loadLog(head, maxCommits); ok {
			return ix, nil
		}
	}

	b := newBuilder(st, gitDir)
	defer b.close()
	ix := &Index{Head: head}
	b.shallow, ix.Shallow = shallow, len(shallow) > 0
	cached := c.load()
	loggable := !ix.Shallow // false once a commit is missing: not logged

	// Walk newest first by committer time (git rev-list's default order),
	// so a limit keeps the most recent history across all branches.
	var (
		q       commitQueue
		seen    = map[plumbing.Hash]bool{headHash: true}
		walked  []*node
		maxWalk = maxCommits
	)
	if maxWalk <= 0 {
		maxWalk = int(^uint(0) >> 1)
	}
	get := func(h plumbing.Hash) (*node, error) {
		if cc, ok := cached[h]; ok {
			return &node{hash: h, c: cc, cached: true}, nil
		}
		return b.readCommit(h)
	}
	first, err := get(headHash)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, ErrNoCommits
	}
	if err != nil {
		return nil, err
	}
	heap.Push(&q, first)
	for q.Len() > 0 {
		if len(walked) == maxWalk {
			ix.Truncated = true
			break
		}
		if len(walked)%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		n := heap.Pop(&q).(*node)
		walked = append(walked, n)
		if b.shallow[n.hash] {
			continue // git treats a shallow boundary as a root
		}
		for _, p := range n.c.Parents {
			ph, _ := parseHash(p)
			if seen[ph] {
				continue
			}
			seen[ph] = true
			pn, err := get(ph)
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				loggable = false
				continue // missing history (shallow or partial clone)
			}
			if err != nil {
				return nil, err
			}
			heap.Push(&q, pn)
		}
	}

	// Diff what the cache does not know yet. A shallow boundary commit is
	// a root to git (its parents are cut off), merge or not, so it lists
	// every file; so does a commit whose first parent is missing. Neither
	// is cached: deepening the clone changes their answer.
	var toStore []*Commit
	for i, n := range walked {
		if n.cached {
			continue
		}
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		complete := true
		var parentTree plumbing.Hash
		switch {
		case b.shallow[n.hash]:
			complete = false
			n.c.Merge = false
		case n.c.Merge:
			toStore = append(toStore, n.c)
			continue
		case len(n.c.Parents) == 1:
			ph, _ := parseHash(n.c.Parents[0])
			pt, err := b.parentTree(ph)
			switch {
			case errors.Is(err, plumbing.ErrObjectNotFound):
				complete, loggable = false, false
			case err != nil:
				return nil, err
			default:
				parentTree = pt
			}
		}
		paths, err := b.diff(ctx, parentTree, n.tree)
		if err != nil {
			return nil, fmt.Errorf("history: diffing %s: %w", n.c.SHA, err)
		}
		n.c.Paths = paths
		if complete {
			toStore = append(toStore, n.c)
		}
	}
	if len(toStore) > 0 {
		// A cache that cannot be written only costs the next walk time.
		_ = c.store(toStore, cached)
	}

	ix.Commits = topoOrder(walked)
	if loggable {
		_ = c.storeLog(ix, maxCommits) // like a segment: only time lost if not written
	}
	return ix, nil
}

// node is a commit during the walk.
type node struct {
	hash   plumbing.Hash
	tree   plumbing.Hash // zero when the metadata came from the cache
	c      *Commit
	cached bool // Paths are known (from the cache)
}

// topoOrder orders the walked commits so that every commit precedes its
// parents, newest first among the commits that are ready (Kahn's algorithm
// over the walked subgraph). Committer times can be skewed, so ordering by
// time alone would not guarantee it.
func topoOrder(walked []*node) []*Commit {
	idx := make(map[string]int, len(walked))
	for i, n := range walked {
		idx[n.c.SHA] = i
	}
	children := make([]int, len(walked))
	for _, n := range walked {
		for _, p := range n.c.Parents {
			if i, ok := idx[p]; ok {
				children[i]++
			}
		}
	}
	var q commitQueue
	for i, n := range walked {
		if children[i] == 0 {
			heap.Push(&q, n)
		}
	}
	out := make([]*Commit, 0, len(walked))
	for q.Len() > 0 {
		n := heap.Pop(&q).(*node)
		out = append(out, n.c)
		for _, p := range n.c.Parents {
			if i, ok := idx[p]; ok {
				children[i]--
				if children[i] == 0 {
					heap.Push(&q, walked[i])
				}
			}
		}
	}
	return out
}

// commitQueue is a max-heap of nodes by committer time, then sha for a
// deterministic order.
type commitQueue []*node

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	if !q[i].c.Time.Equal(q[j].c.Time) {
		return q[i].c.Time.After(q[j].c.Time)
	}
	return q[i].c.SHA > q[j].c.SHA
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(*node)) }
func (q *commitQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}

// parseHash parses a full hex sha.
func parseHash(s string) (plumbing.Hash, bool) { return git.ParseHash(s) }
