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
	return PathStats(path.Join(gitDir, "HEAD"), path.Join(gitDir, "index"))
}

// PathStats are the stat data of absolute paths, an absent one recorded
// as absent; nil when one cannot be stat'ed.
func PathStats(paths ...string) []Stat {
	out := make([]Stat, 0, len(paths))
	for _, p := range paths {
		var st syscall.Stat_t
		switch err := syscall.Lstat(p, &st); {
		case err == nil:
			out = append(out, fromSys(p, &st))
		case err == syscall.ENOENT || err == syscall.ENOTDIR:
			out = append(out, Stat{Path: p, Absent: true})
		default:
			return nil
		}
	}
	return out
}

// RefStats are the stat data of what HEAD names, taken before a read:
// a branch's loose ref and packed-refs in the common dir (a commit moves
// the branch and may leave HEAD and the index as they were). ok is false
// when HEAD names something else (a ref table, a symbolic ref chain, a
// ref outside refs/heads/): then only a full read can say what it is.
func RefStats(gitDir string) ([]Stat, bool) {
	head, err := os.ReadFile(path.Join(gitDir, "HEAD"))
	if err != nil {
		return nil, false
	}
	name := trimNewline(string(head))
	if !hasPrefix(name, "ref: ") {
		return []Stat{}, isHex(name) // detached: HEAD's own stat data cover it
	}
	name = name[len("ref: "):]
	if !hasPrefix(name, "refs/heads/") || path.Clean(name) != name {
		return nil, false
	}
	common := gitDir
	if c, err := os.ReadFile(path.Join(gitDir, "commondir")); err == nil {
		if c := trimNewline(string(c)); path.IsAbs(c) {
			common = c
		} else {
			common = path.Join(gitDir, c)
		}
	}
	if _, err := os.Lstat(path.Join(common, "reftable")); err == nil {
		return nil, false
	}
	loose := path.Join(common, name)
	if data, err := os.ReadFile(loose); err == nil && hasPrefix(string(data), "ref:") {
		return nil, false
	}
	st := PathStats(loose, path.Join(common, "packed-refs"))
	return st, st != nil
}

func trimNewline(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
