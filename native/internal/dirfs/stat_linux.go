package dirfs

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const supported = true

// The two spellings of struct stat must have one size (checked at compile
// time) for the conversion in lstatAt.
var (
	_ [unsafe.Sizeof(unix.Stat_t{}) - unsafe.Sizeof(syscall.Stat_t{})]byte
	_ [unsafe.Sizeof(syscall.Stat_t{}) - unsafe.Sizeof(unix.Stat_t{})]byte
)

// lstatAt is lstat of name in the open directory d. Sys() is a
// *syscall.Stat_t, as os.Lstat gives, so callers reading the inode work
// unchanged.
func lstatAt(d *os.File, name string) (os.FileInfo, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(int(d.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		break
	}
	// Both types are the kernel's struct stat of this architecture.
	return &info{name: name, sys: (*syscall.Stat_t)(unsafe.Pointer(&st))}, nil
}

// readAt reads the regular file name of the open directory d, not
// following a link (O_NOFOLLOW) and refusing anything but a regular file.
func readAt(d *os.File, name string) ([]byte, error) {
	var fd int
	for {
		var err error
		fd, err = unix.Openat(int(d.Fd()), name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NOCTTY, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		break
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, syscall.EINVAL
	}
	// One byte more than the size, so a file that grew shows as a short
	// read of a full buffer and is read on (as os.ReadFile does).
	buf := make([]byte, 0, st.Size+1)
	for {
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

type info struct {
	name string
	sys  *syscall.Stat_t
}

func (i *info) Name() string       { return i.name }
func (i *info) Size() int64        { return i.sys.Size }
func (i *info) ModTime() time.Time { return time.Unix(int64(i.sys.Mtim.Sec), int64(i.sys.Mtim.Nsec)) }
func (i *info) IsDir() bool        { return i.Mode().IsDir() }
func (i *info) Sys() any           { return i.sys }

// Mode converts the stat mode bits as os.Lstat does.
func (i *info) Mode() os.FileMode {
	m := os.FileMode(i.sys.Mode & 0o777)
	switch i.sys.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= os.ModeDevice
	case syscall.S_IFCHR:
		m |= os.ModeDevice | os.ModeCharDevice
	case syscall.S_IFDIR:
		m |= os.ModeDir
	case syscall.S_IFIFO:
		m |= os.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= os.ModeSymlink
	case syscall.S_IFSOCK:
		m |= os.ModeSocket
	}
	if i.sys.Mode&syscall.S_ISGID != 0 {
		m |= os.ModeSetgid
	}
	if i.sys.Mode&syscall.S_ISUID != 0 {
		m |= os.ModeSetuid
	}
	if i.sys.Mode&syscall.S_ISVTX != 0 {
		m |= os.ModeSticky
	}
	return m
}
