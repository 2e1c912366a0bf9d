package worktree

import (
	"context"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

// Change is the change a pull request makes: its resolved base and head
// and the files it touches.
type Change struct {
	// Base is the resolved base commit (full sha).
	Base string
	// From is the merge base of Base and head (Base for unrelated
	// histories): the change is From..head.
	From string
	// Head is the resolved head commit, or "" for HEAD plus the working
	// tree.
	Head string
	// HeadCommit is Head, or HEAD's sha when Head is the working tree.
	HeadCommit string
	// Paths are the files changed from the merge base of base and head to
	// head (plus the uncommitted ones when Head is ""), sorted.
	Paths []string
}

// ChangeOf resolves base (a revision, required) and head (a revision, or
// "" for HEAD plus the working tree) and lists the files the change
// touches, as bundle's changed_paths does: from their merge base, so
// commits that landed on the base branch meanwhile are not the change's.
func ChangeOf(ctx context.Context, e *engine.Engine, base, head string) (*Change, error) {
	h := e.Options().History
	if h == nil {
		return nil, apierr.Invalid("a change needs a git repository; %s is not in one", e.Options().Root)
	}
	for _, rev := range []string{base, head} {
		if strings.HasPrefix(rev, "-") {
			return nil, apierr.Invalid("revision %q starts with '-'; pass a git revision such as origin/main", rev)
		}
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	if st.Head == "" {
		return nil, apierr.New(apierr.NoCommits, "the repository has no commits yet; a change compares commits")
	}
	c := &Change{}
	if c.Base, err = h.Resolve(ctx, base); err != nil {
		return nil, err
	}
	c.HeadCommit = st.Head
	if head != "" {
		if c.Head, err = h.Resolve(ctx, head); err != nil {
			return nil, err
		}
		c.HeadCommit = c.Head
	}
	if c.From, err = h.MergeBase(ctx, c.Base, c.HeadCommit); err != nil {
		return nil, err
	}
	if c.From == "" {
		c.From = c.Base // unrelated histories: compare the trees
	}
	set := map[string]bool{}
	paths, err := h.Diff(ctx, c.From, c.HeadCommit)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		set[p] = true
	}
	if head == "" {
		dirty, err := h.Uncommitted(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range dirty {
			set[strings.TrimSuffix(p, "/")] = true
		}
	}
	c.Paths = make([]string, 0, len(set))
	for p := range set {
		c.Paths = append(c.Paths, p)
	}
	sort.Strings(c.Paths)
	return c, nil
}
