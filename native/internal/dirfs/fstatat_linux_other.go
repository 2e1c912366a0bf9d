//go:build linux && !amd64 && !arm64

package dirfs

import "golang.org/x/sys/unix"

// fstatat is unix.Fstatat (buf unused: only amd64 and arm64 reuse it).
func fstatat(fd int, name string, _ *[]byte, st *unix.Stat_t, flags int) error {
	return unix.Fstatat(fd, name, st, flags)
}
