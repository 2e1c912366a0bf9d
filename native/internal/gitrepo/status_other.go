//go:build !linux

package gitrepo

import "context"

// scanWorktree is Linux-only (getdents64 and fstatat); elsewhere the
// go-git path answers.
func (r *Repo) scanWorktree(context.Context, *statIndex, int64, map[string]bool) error {
	return errNoFastStatus
}
