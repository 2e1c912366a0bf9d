package gitrepo

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/kontext/kontext/native/internal/git"
)

// Objects are read, parsed and diffed by internal/git (r.objs); these are
// shortcuts.

func (r *Repo) commit(h plumbing.Hash) (*git.Commit, error) { return r.objs.Commit(h) }

func (r *Repo) tree(h plumbing.Hash) (*git.Tree, error) { return r.objs.Tree(h) }

var errNotCommit = errors.New("not a commit")

// peelToCommit follows tags from object h to a commit; it returns the
// commit's id and the commit.
func (r *Repo) peelToCommit(h plumbing.Hash) (plumbing.Hash, *git.Commit, error) {
	for range 16 {
		typ, data, err := r.objs.Read(plumbing.AnyObject, h)
		if err != nil {
			return h, nil, err
		}
		switch typ {
		case plumbing.CommitObject:
			c := &git.Commit{}
			if err := git.ParseCommit(data, c); err != nil {
				return h, nil, fmt.Errorf("commit %s: %w", h, err)
			}
			return h, c, nil
		case plumbing.TagObject:
			if h, err = git.ParseTagTarget(data); err != nil {
				return h, nil, err
			}
		default:
			return h, nil, fmt.Errorf("%s is a %s: %w", h, typ, errNotCommit)
		}
	}
	return h, nil, fmt.Errorf("%s: tag chain too long: %w", h, errNotCommit)
}
