package engine

import (
	"context"
	"sync"
	"time"
)

// Commit is one commit of the history index.
type Commit struct {
	SHA     string
	Parents []string
	Time    time.Time // committer time, UTC
	Subject string
	Author  string   // author name
	Paths   []string // changed vs the first parent; nil for merges
	Merge   bool
}

// CommitLog is one head's history: commits newest first, every commit
// before its parents.
type CommitLog struct {
	Head      string
	Commits   []*Commit
	Truncated bool // the walk stopped at index.max_commits
	Shallow   bool // a shallow clone: counts are lower bounds
}

// Base is a resolved drift base.
type Base struct {
	SHA     string // "" for fallback-none
	Source  string // explicit | origin-head | origin-main | upstream | default-remote | fallback-none
	Warning string // why there is no base (fallback-none)
}

// History is the git history that history operations and fields need.
// Native surfaces provide it; the in-memory engine has none: its
// history-derived fields stay null and history operations are unsupported.
type History interface {
	// Log returns the commit log from head (a full sha) of at most
	// maxCommits commits; nil when head is "".
	Log(ctx context.Context, head string, maxCommits int) (*CommitLog, error)
	// FileAt returns a file's content in a commit; ok is false when the
	// file does not exist there.
	FileAt(ctx context.Context, sha, path string) (data []byte, ok bool, err error)
	// Tree returns the regular files below any of dirs ("" = the whole
	// tree) in commit sha for which want is true (nil: all), with their
	// blob ids; a file want leaves out is never read. Symbolic links come
	// too (Link set, Data their target) where want takes them or their name
	// has no extension (a directory may be linked): a dir that is a link is
	// one.
	Tree(ctx context.Context, sha string, dirs []string, want func(path string) bool) (map[string]TreeFile, error)
	// Resolve resolves a revision (sha, unique short sha, branch, tag,
	// remote ref, HEAD~2, …) to a full commit sha; an unknown revision is
	// invalid_input.
	Resolve(ctx context.Context, rev string) (string, error)
	// RefTip returns the commit a full ref name (refs/…) points at.
	RefTip(ctx context.Context, ref string) (string, error)
	// MergeBase returns the best common ancestor of a and b ("" if none).
	MergeBase(ctx context.Context, a, b string) (string, error)
	// DefaultBase finds the drift base of HEAD when none is given.
	DefaultBase(ctx context.Context) (Base, error)
	// Uncommitted lists the paths with staged, unstaged or untracked (not
	// ignored) changes, sorted.
	Uncommitted(ctx context.Context) ([]string, error)
	// Branch is the short name of the branch HEAD is on; "" when detached.
	Branch() (string, error)
	// ChangedSince lists the files changed since base: from the merge base
	// of base and HEAD to HEAD, plus the uncommitted ones; sorted.
	ChangedSince(ctx context.Context, base string) ([]string, error)
	// Diff lists the paths that differ between two commits, sorted.
	Diff(ctx context.Context, from, to string) ([]string, error)
}

// TreeFile is one committed file.
type TreeFile struct {
	Blob string
	Data []byte
	Link bool // a symbolic link: Data is its target as written
}

// uncommittedMemo holds one answer of History.Uncommitted for the context
// it was put in.
type uncommittedMemo struct {
	once  sync.Once
	paths []string
	err   error
}

type uncommittedKey struct{}

// WithUncommittedMemo returns a context in which History implementations
// that honour it (the native one) answer Uncommitted once and repeat that
// answer: one command that asks several operations about the same working
// tree (kontext ci: the change's files and drift) lists it once. A
// long-lived server never sets it, so its answers stay fresh.
func WithUncommittedMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, uncommittedKey{}, &uncommittedMemo{})
}

// MemoUncommitted answers list() once per WithUncommittedMemo context (a
// copy each time); without one it calls list.
func MemoUncommitted(ctx context.Context, list func() ([]string, error)) ([]string, error) {
	m, ok := ctx.Value(uncommittedKey{}).(*uncommittedMemo)
	if !ok {
		return list()
	}
	m.once.Do(func() { m.paths, m.err = list() })
	if m.err != nil {
		return nil, m.err
	}
	return append([]string(nil), m.paths...), nil
}
