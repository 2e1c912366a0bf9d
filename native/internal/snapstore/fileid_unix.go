//go:build unix

package snapstore

import (
	"os"
	"syscall"
)

// fileID is fi's identity beyond size and modification time, as git's
// index validates a file: its inode and its change time (a same-size
// in-place edit whose modification time was put back still changes the
// ctime).
func fileID(fi os.FileInfo) uint64 {
	if i, ok := fi.(interface {
		Inode() uint64
		ChangeTime() int64
	}); ok {
		return mixID(i.Inode(), i.ChangeTime()) // a listing's compact stat data (dirfs)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return mixID(uint64(st.Ino), changeTime(st))
	}
	return 0
}
