//go:build linux

package quick

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT
