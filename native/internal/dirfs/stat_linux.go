package dirfs

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const supported = true

// lstatAt fills fi with the lstat data of name in the open directory d
// (fstatat). The kernel writes into a stack buffer; only the fields
// callers read are kept, so a listing of thousands of files stores ~70
// bytes per file in one slab instead of a 144-byte struct stat and a
// FileInfo allocated for each. buf is the caller's scratch for the name
// (see fstatat).
func lstatAt(d *os.File, name string, fi *info, buf *[]byte) error {
	var st unix.Stat_t
	for {
		err := fstatat(int(d.Fd()), name, buf, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	*fi = info{name: name, size: st.Size, mtime: unix.TimespecToNsec(st.Mtim), ctime: unix.TimespecToNsec(st.Ctim),
		ino: uint64(st.Ino), dev: uint64(st.Dev), mode: st.Mode, uid: st.Uid, gid: st.Gid}
	return nil
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
	name         string
	size         int64
	mtime, ctime int64 // Unix ns
	ino, dev     uint64
	mode         uint32
	uid, gid     uint32
}

// present tells a stat'ed entry from one gone since the listing (left zero).
func (i *info) present() bool { return i.name != "" }

func (i *info) Name() string       { return i.name }
func (i *info) Size() int64        { return i.size }
func (i *info) ModTime() time.Time { return time.Unix(0, i.mtime) }
func (i *info) IsDir() bool        { return i.Mode().IsDir() }

// Inode is the file's inode number (what the snapshot store's FileID
// reads, without building a struct stat).
func (i *info) Inode() uint64 { return i.ino }

// ChangeTime is the file's status change time (ctime) in Unix ns, which
// the snapshot store's FileID folds in with the inode.
func (i *info) ChangeTime() int64 { return i.ctime }

// Sys is a *syscall.Stat_t, as os.Lstat gives, holding the fields kept:
// mode, size, inode, device, owner, group, modification and change times.
func (i *info) Sys() any {
	st := &syscall.Stat_t{Mode: i.mode, Size: i.size, Uid: i.uid, Gid: i.gid,
		Mtim: syscall.NsecToTimespec(i.mtime), Ctim: syscall.NsecToTimespec(i.ctime)}
	setWord(&st.Ino, i.ino)
	setWord(&st.Dev, i.dev)
	return st
}

// setWord sets a field whose width differs between architectures.
func setWord[T ~uint32 | ~uint64](dst *T, v uint64) { *dst = T(v) }

// Mode converts the stat mode bits as os.Lstat does.
func (i *info) Mode() os.FileMode {
	m := os.FileMode(i.mode & 0o777)
	switch i.mode & syscall.S_IFMT {
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
	if i.mode&syscall.S_ISGID != 0 {
		m |= os.ModeSetgid
	}
	if i.mode&syscall.S_ISUID != 0 {
		m |= os.ModeSetuid
	}
	if i.mode&syscall.S_ISVTX != 0 {
		m |= os.ModeSticky
	}
	return m
}

// noOpenat2 is set once the kernel refused openat2 (older than 5.6, or a
// sandbox that filters it): every directory is then resolved the long way.
var noOpenat2 atomic.Bool

// openBeneath opens the directory dir (a relative path) beneath the root
// in one system call, refusing any symbolic link on the way and any
// escape (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS): the common case of a
// knowledge tree walk, which lists each directory by its real path.
// Resolving it component by component costs one lstat per component and
// is what a path with a link needs (ok false: the caller does that, and
// reports the errors, such as a missing directory).
func (f *FS) openBeneath(dir string) (*os.File, string, bool) {
	if noOpenat2.Load() {
		return nil, "", false
	}
	f.rootOnce.Do(func() {
		f.rootFD = -1
		if fd, err := unix.Open(f.root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
			f.rootFD = fd // kept for the life of the process, as the root is
		}
	})
	if f.rootFD < 0 {
		return nil, "", false
	}
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(f.rootFD, dir, &how)
		switch err {
		case nil:
			abs := filepath.Join(f.root, filepath.FromSlash(dir))
			return os.NewFile(uintptr(fd), abs), abs, true
		case unix.EINTR, unix.EAGAIN:
			continue
		case unix.ENOSYS, unix.EPERM:
			noOpenat2.Store(true)
		}
		return nil, "", false
	}
}
