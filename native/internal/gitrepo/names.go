package gitrepo

import (
	"context"
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native/internal/git"
)

// NamesOnRefs returns the names of the files directly in dir on the tips of
// every local branch and remote-tracking ref, so that a new ADR number is
// free on branches that are not merged yet. Only trees are read, no blobs.
func (r *Repo) NamesOnRefs(ctx context.Context, dir string) ([]string, error) {
	var tips []string
	for _, prefix := range []string{"refs/heads/", "refs/remotes/"} {
		names, err := r.refs.Names(prefix)
		if err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "listing refs")
		}
		for _, name := range names {
			if h, ok, err := r.refCommit(name); err == nil && ok {
				tips = append(tips, h)
			}
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, sha := range tips {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		_, c, err := r.peelToCommit(plumbing.NewHash(sha))
		if err != nil {
			continue
		}
		t, err := r.tree(c.Tree)
		if err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "reading the tree of %s", sha)
		}
		if dir != "" && dir != "." {
			e, err := r.objs.FindEntry(t, dir)
			if errors.Is(err, git.ErrEntryNotFound) || errors.Is(err, git.ErrDirectoryNotFound) || errors.Is(err, git.ErrFileNotFound) || (err == nil && e.Mode != filemode.Dir) {
				continue
			}
			if err != nil {
				return nil, apierr.Wrap(apierr.OperationFailed, err, "looking up %s in %s", dir, sha)
			}
			if t, err = r.tree(e.Hash); err != nil {
				return nil, apierr.Wrap(apierr.OperationFailed, err, "reading %s in %s", dir, sha)
			}
		}
		for _, e := range t.Entries {
			if !seen[e.Name] {
				seen[e.Name] = true
				out = append(out, e.Name)
			}
		}
	}
	return out, nil
}
