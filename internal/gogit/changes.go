package gogit

import (
	"context"
	"errors"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/kontext/kontext/engine/apierr"
)

// Branch returns the short name of the branch HEAD is on ("main"), also
// before the first commit; "" when HEAD is detached.
func (r *Repo) Branch() (string, error) {
	ref, err := r.st.Reference(plumbing.HEAD)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", nil
	}
	if err != nil {
		return "", apierr.Wrap(apierr.OperationFailed, err, "reading HEAD")
	}
	if ref.Type() == plumbing.SymbolicReference && ref.Target().IsBranch() {
		return ref.Target().Short(), nil
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
			if err := r.diffTrees(ctx, a, b, "", set); err != nil {
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

// commitTree returns the root tree of commit sha.
func (r *Repo) commitTree(sha string) (*rawTree, error) {
	c, err := r.commit(plumbing.NewHash(sha))
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading commit %s", sha)
	}
	t, err := r.tree(c.TreeHash)
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading the tree of %s", sha)
	}
	return t, nil
}

// diffTrees adds to out the paths (below prefix) whose entries differ
// between trees a and b; either may be nil (empty). Identical subtrees
// are skipped by hash; a submodule is one path.
func (r *Repo) diffTrees(ctx context.Context, a, b *rawTree, prefix string, out map[string]bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if a != nil && b != nil && a.Hash == b.Hash {
		return nil
	}
	type pair struct{ a, b *treeEntry }
	pairs := map[string]*pair{}
	if a != nil {
		for i := range a.Entries {
			pairs[a.Entries[i].Name] = &pair{a: &a.Entries[i]}
		}
	}
	if b != nil {
		for i := range b.Entries {
			e := &b.Entries[i]
			if p, ok := pairs[e.Name]; ok {
				p.b = e
			} else {
				pairs[e.Name] = &pair{b: e}
			}
		}
	}
	for name, p := range pairs {
		path := prefix + name
		if p.a != nil && p.b != nil && p.a.Hash == p.b.Hash && p.a.Mode == p.b.Mode {
			continue
		}
		var sa, sb *rawTree
		var err error
		if p.a != nil && p.a.Mode == filemode.Dir {
			if sa, err = r.tree(p.a.Hash); err != nil {
				return err
			}
		} else if p.a != nil {
			out[path] = true
		}
		if p.b != nil && p.b.Mode == filemode.Dir {
			if sb, err = r.tree(p.b.Hash); err != nil {
				return err
			}
		} else if p.b != nil {
			out[path] = true
		}
		if sa != nil || sb != nil {
			if err := r.diffTrees(ctx, sa, sb, path+"/", out); err != nil {
				return err
			}
		}
	}
	return nil
}
