//go:build !linux

package gogit

import "context"

// scanWorktree is Linux-only (getdents64 and fstatat); elsewhere the
// go-git path answers.
func (r *Repo) scanWorktree(context.Context, *statIndex, int64, map[string]bool) error {
	return errNoFastStatus
}
