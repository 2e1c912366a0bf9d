package gitrepo

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native/internal/git"
)

// Branch returns the short name of the branch HEAD is on ("main"), also
// before the first commit; "" when HEAD is detached.
func (r *Repo) Branch() (string, error) {
	ref, err := r.refs.Ref("HEAD")
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", nil
	}
	if err != nil {
		return "", apierr.Wrap(apierr.OperationFailed, err, "reading HEAD")
	}
	if b, ok := strings.CutPrefix(ref.Target, "refs/heads/"); ok {
		return b, nil
	}
	return "", nil
}

// ChangedSince lists, sorted and without duplicates, the files changed
// since base: the committed changes between the merge base of base and
// HEAD and HEAD (`git diff --name-only base...HEAD`; base itself when the
// two share no history) plus the working tree's uncommitted changes
// (Uncommitted). An unknown base is invalid_input; without commits only
// the uncommitted changes count.
func (r *Repo) ChangedSince(ctx context.Context, base string) ([]string, error) {
	set := map[string]bool{}
	head, err := r.Head(ctx)
	if err != nil {
		return nil, err
	}
	if head != "" {
		from, err := r.Resolve(ctx, base)
		if err != nil {
			return nil, err
		}
		mb, err := r.MergeBase(ctx, from, head)
		if err != nil {
			return nil, err
		}
		if mb != "" {
			from = mb
		}
		if from != head {
			a, err := r.commitTree(from)
			if err != nil {
				return nil, err
			}
			b, err := r.commitTree(head)
			if err != nil {
				return nil, err
			}
			if err := r.changedPaths(ctx, a, b, set); err != nil {
				return nil, apierr.Wrap(apierr.OperationFailed, err, "comparing %s with HEAD", base)
			}
		}
	}
	dirty, err := r.Uncommitted(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range dirty {
		set[p] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// commitTree returns the root tree id of commit sha.
func (r *Repo) commitTree(sha string) (plumbing.Hash, error) {
	t, err := r.objs.CommitTree(plumbing.NewHash(sha))
	if err != nil {
		return plumbing.ZeroHash, apierr.Wrap(apierr.OperationFailed, err, "reading commit %s", sha)
	}
	return t, nil
}

// changedPaths adds to out the paths whose entries differ between trees
// a and b (either may be zero: the empty tree).
func (r *Repo) changedPaths(ctx context.Context, a, b plumbing.Hash, out map[string]bool) error {
	return git.NewDiffer(r.objs).Diff(ctx, a, b, func(p []byte, _, _ git.Side) error {
		out[string(p)] = true
		return nil
	})
}
