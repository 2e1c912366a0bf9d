package gitrepo

import (
	"context"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/kontext/kontext/engine/apierr"
)

// Diff lists, sorted, the files that differ between commits from and to
// (full shas; `git diff --name-only from to`). from "" is the empty tree.
func (r *Repo) Diff(ctx context.Context, from, to string) ([]string, error) {
	set := map[string]bool{}
	if from != to {
		var a plumbing.Hash
		if from != "" {
			t, err := r.commitTree(from)
			if err != nil {
				return nil, err
			}
			a = t
		}
		b, err := r.commitTree(to)
		if err != nil {
			return nil, err
		}
		if err := r.changedPaths(ctx, a, b, set); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "comparing %s with %s", from, to)
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}
