//go:build linux

package quick

import (
	"os"
	"path"
	"syscall"
)

// StatOf is fi's stat data as recorded for path; ok is false when fi
// carries none (a filesystem without struct stat). A nil fi is an
// absent path.
func StatOf(path string, fi os.FileInfo) (Stat, bool) {
	if fi == nil {
		return Stat{Path: path, Absent: true}, true
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Stat{}, false
	}
	return fromSys(path, st), true
}

func fromSys(path string, st *syscall.Stat_t) Stat {
	return Stat{Path: path, Mode: uint32(st.Mode), Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(),
		Ino: uint64(st.Ino), Dev: uint64(st.Dev)}
}

// GitStats are the stat data of the git dir's HEAD and index, taken
// before a read: a commit, checkout or stage since then makes the sidecar
// stale (the full command reads both).
func GitStats(gitDir string) []Stat {
	var out []Stat
	for _, name := range []string{"HEAD", "index"} {
		p := path.Join(gitDir, name)
		var st syscall.Stat_t
		switch err := syscall.Lstat(p, &st); {
		case err == nil:
			out = append(out, fromSys(p, &st))
		case err == syscall.ENOENT:
			out = append(out, Stat{Path: p, Absent: true})
		default:
			return nil
		}
	}
	return out
}
