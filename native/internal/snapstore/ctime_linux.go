//go:build linux

package snapstore

import "syscall"

// changeTime is the file's status change time (ctime) in Unix ns.
func changeTime(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
