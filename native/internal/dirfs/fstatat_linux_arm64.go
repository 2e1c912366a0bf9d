package dirfs

import "golang.org/x/sys/unix"

const sysFstatat = unix.SYS_FSTATAT
