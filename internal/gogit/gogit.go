// Package gogit is the go-git implementation of engine.Git. Only native
// surfaces import it: linking go-git into the wasm would more than double
// its size.
package gogit

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

// Repo is an opened repository.
type Repo struct {
	repo *git.Repository
	root string
}

var _ engine.Git = (*Repo)(nil)

// ErrNoRepository is returned by Open when dir is not inside a git
// repository.
var ErrNoRepository = errors.New("not a git repository")

// Open finds the repository that contains dir (walking up like git does)
// and returns it with its worktree root.
func Open(dir string) (*Repo, error) {
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, ErrNoRepository
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "opening the git repository at %s", dir)
	}
	wt, err := r.Worktree()
	if errors.Is(err, git.ErrIsBareRepository) {
		return nil, apierr.Invalid("%s is a bare repository; kontext reads a worktree", dir)
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "opening the worktree at %s", dir)
	}
	root, err := filepath.Abs(wt.Filesystem.Root())
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "resolving %s", wt.Filesystem.Root())
	}
	return &Repo{repo: r, root: root}, nil
}

// Root is the worktree root (absolute).
func (r *Repo) Root() string { return r.root }

// Head returns the HEAD commit id, "" before the first commit.
func (r *Repo) Head(ctx context.Context) (string, error) {
	ref, err := r.repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", nil
	}
	if err != nil {
		return "", apierr.Wrap(apierr.OperationFailed, err, "reading HEAD")
	}
	return ref.Hash().String(), nil
}

// Blobs returns the blob ids of paths in the index and in HEAD's tree.
func (r *Repo) Blobs(ctx context.Context, paths []string) (map[string]string, map[string]string, error) {
	index := map[string]string{}
	head := map[string]string{}
	idx, err := r.repo.Storer.Index()
	if err != nil {
		return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "reading the git index")
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	for _, e := range idx.Entries {
		if want[e.Name] && e.Stage == 0 {
			index[e.Name] = e.Hash.String()
		}
	}
	ref, err := r.repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return index, head, nil
	}
	if err != nil {
		return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "reading HEAD")
	}
	commit, err := r.repo.CommitObject(ref.Hash())
	if err != nil {
		return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "reading the HEAD commit")
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "reading the HEAD tree")
	}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		e, err := tree.FindEntry(p)
		if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "looking up %s in HEAD", p)
		}
		if e.Mode.IsFile() {
			head[p] = e.Hash.String()
		}
	}
	return index, head, nil
}
