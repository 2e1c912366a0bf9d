//go:build linux

package writer

import (
	"io/fs"
	"syscall"
	"time"
)

// statData returns ctime, mtime, dev, ino, uid and gid of fi as git
// records them in the index.
func statData(fi fs.FileInfo) (ctime, mtime time.Time, dev, ino, uid, gid uint32) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fi.ModTime(), fi.ModTime(), 0, 0, 0, 0
	}
	return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)), time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)),
		uint32(st.Dev), uint32(st.Ino), st.Uid, st.Gid
}
