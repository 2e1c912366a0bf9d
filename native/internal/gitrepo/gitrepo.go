// Package gitrepo is the native implementation of engine.Git. Objects,
// trees, diffs, refs, abbreviated ids and the shallow list come from
// internal/git (the one git object layer); of go-git it keeps codecs: the
// git index, gitignore patterns and the config format. It deliberately
// does not open go-git's storage (storage/filesystem): that links go-git's
// repository config, whose URL regexps and packfile machinery every CLI
// call paid for at start-up although the layer reads all of it. Only
// native surfaces import it: linking go-git into the wasm would more than
// double its size.
package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native/internal/git"
	"github.com/kontext/kontext/native/internal/history"
)

// Repo is an opened repository.
type Repo struct {
	root   string
	gitDir string // this worktree's git dir (local state lives below it)

	// Progress, when set, is told about long work (the history index).
	Progress func(event, task string, fields map[string]any)

	objs *git.Objects
	refs *git.Refs
}

var (
	_ engine.Git     = (*Repo)(nil)
	_ engine.History = (*Repo)(nil)
)

// ErrNoRepository is returned by Open when dir is not inside a git
// worktree.
var ErrNoRepository = errors.New("not a git repository")

// Open finds the worktree that contains dir (walking up like git does,
// following a ".git" file of a linked worktree or submodule and its
// commondir) and opens its object database (read on first use). It
// deliberately avoids go-git's top-level package, whose transports cost
// milliseconds of start-up.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "resolving %s", dir)
	}
	root, gitDir := "", ""
	for d := abs; ; {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			root = d
			if fi.IsDir() {
				gitDir = p
			} else if gitDir, err = readGitFile(p); err != nil {
				return nil, err
			}
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, ErrNoRepository
		}
		d = parent
	}
	return &Repo{root: root, gitDir: gitDir, objs: git.OpenObjects(gitDir, nil), refs: git.OpenRefs(gitDir)}, nil
}

// readGitFile reads a "gitdir: <path>" file.
func readGitFile(p string) (string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", apierr.Wrap(apierr.OperationFailed, err, "reading %s", p)
	}
	line := strings.TrimSpace(string(data))
	d, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", apierr.New(apierr.OperationFailed, "%s is not a gitdir file", p)
	}
	d = strings.TrimSpace(d)
	if !filepath.IsAbs(d) {
		d = filepath.Join(filepath.Dir(p), d)
	}
	return d, nil
}

// Root is the worktree root (absolute).
func (r *Repo) Root() string { return r.root }

// Head returns the HEAD commit id, "" before the first commit.
func (r *Repo) Head(ctx context.Context) (string, error) {
	h, err := r.refs.Resolve("HEAD")
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", nil
	}
	if err != nil {
		return "", apierr.Wrap(apierr.OperationFailed, err, "reading HEAD")
	}
	return h.String(), nil
}

// Blobs returns the blob ids of paths in the index and in HEAD's tree.
func (r *Repo) Blobs(ctx context.Context, paths []string) (map[string]string, map[string]string, error) {
	head := map[string]string{}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	// The index is scanned directly (names only, one pass); go-git's
	// decoder reads the forms the scan leaves to it (split or sparse
	// indexes).
	index, err := git.IndexBlobs(r.gitDir, want)
	if errors.Is(err, git.ErrIndexUnsupported) {
		index = map[string]string{}
		idx, err := r.readIndex()
		if err != nil {
			return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "reading the git index")
		}
		for _, e := range idx.Entries {
			if want[e.Name] && e.Stage == 0 {
				index[e.Name] = e.Hash.String()
			}
		}
	} else if err != nil {
		return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "reading the git index")
	}
	headID, err := r.refs.Resolve("HEAD")
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return index, head, nil
	}
	if err != nil {
		return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "reading HEAD")
	}
	commit, err := r.commit(headID)
	if err != nil {
		return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "reading the HEAD commit")
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	// Only the directories of the paths are read from HEAD's tree; a path
	// below a file is not in HEAD (as git ls-tree says), not an error.
	err = r.objs.LookupPaths(commit.Tree, paths, func(p string, e git.RawEntry) {
		if e.Mode.IsFile() {
			head[p] = e.Hash.String()
		}
	})
	if err != nil {
		return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "looking paths up in HEAD")
	}
	return index, head, nil
}

// IndexFile returns the content path has in the git index (stage 0);
// ok is false when the index has no such entry.
func (r *Repo) IndexFile(ctx context.Context, path string) ([]byte, bool, error) {
	index, _, err := r.Blobs(ctx, []string{path})
	if err != nil {
		return nil, false, err
	}
	id, ok := index[path]
	if !ok {
		return nil, false, nil
	}
	data, err := r.objs.Blob(plumbing.NewHash(id))
	if err != nil {
		return nil, false, apierr.Wrap(apierr.OperationFailed, err, "reading the staged %s", path)
	}
	return data, true, nil
}

// GitDir is this worktree's git directory.
func (r *Repo) GitDir() string { return r.gitDir }

// Log returns the commit index of head (a full sha), cached per commit
// under <git-dir>/kontext/cache/; nil when head is "" or there are no
// commits.
func (r *Repo) Log(ctx context.Context, head string, maxCommits int) (*engine.CommitLog, error) {
	if head == "" {
		return nil, nil
	}
	start := time.Now()
	r.progress("start", "history.index", nil)
	ix, err := history.Build(ctx, nil, r.gitDir, head, maxCommits)
	if err == nil {
		r.progress("done", "history.index", map[string]any{"commits": len(ix.Commits), "ms": time.Since(start).Milliseconds()})
	}
	if errors.Is(err, history.ErrNoCommits) {
		return nil, nil
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading the commit history")
	}
	return &engine.CommitLog{Head: ix.Head, Truncated: ix.Truncated, Shallow: ix.Shallow, Commits: ix.Commits}, nil
}

// FileAt returns the content of path in commit sha.
func (r *Repo) FileAt(ctx context.Context, sha, path string) ([]byte, bool, error) {
	commit, err := r.commit(plumbing.NewHash(sha))
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, apierr.Wrap(apierr.OperationFailed, err, "reading commit %s", sha)
	}
	tree, err := r.tree(commit.Tree)
	if err != nil {
		return nil, false, apierr.Wrap(apierr.OperationFailed, err, "reading the tree of %s", sha)
	}
	data, err := r.objs.File(tree, path)
	if errors.Is(err, git.ErrFileNotFound) || errors.Is(err, git.ErrDirectoryNotFound) || errors.Is(err, git.ErrEntryNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, apierr.Wrap(apierr.OperationFailed, err, "reading %s in %s", path, sha)
	}
	return data, true, nil
}

func (r *Repo) progress(event, task string, fields map[string]any) {
	if r.Progress != nil {
		r.Progress(event, task, fields)
	}
}
