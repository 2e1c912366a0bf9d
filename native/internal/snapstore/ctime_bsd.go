//go:build darwin || freebsd || netbsd

package snapstore

import "syscall"

// changeTime is the file's status change time (ctime) in Unix ns.
func changeTime(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }
