//go:build unix

package snapstore

import (
	"os"
	"syscall"
)

func inode(fi os.FileInfo) uint64 {
	if i, ok := fi.(interface{ Inode() uint64 }); ok {
		return i.Inode() // a listing's compact stat data (dirfs)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
