package gitrepo

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/kontext/kontext/native/internal/git"
)

// The status scan (Uncommitted) reads the git index itself and compares
// the working tree with it in one walk, as git status does: each
// directory is listed once, and a tracked file found in a listing is
// stat'ed relative to its directory and compared with the index entry's
// stat data. Only what that cannot settle (a file missing from its
// listing, stat data that differ, a racily clean entry) goes through
// fileDiffers, the per-file check of the go-git path, so both paths give
// one answer. go-git's decoder allocated per entry, and the separate walk
// and stat pass looked up every path from the root.

// errNoFastStatus: the fast scan cannot read this index or platform; the
// go-git path answers instead.
var errNoFastStatus = errors.New("status scan: not supported here")

// statEntry is one index entry with the stat data the scan compares.
type statEntry struct {
	name   string
	mtime  int64 // nanoseconds
	size   uint32
	mode   filemode.FileMode
	hash   plumbing.Hash
	stage  uint8
	skip   bool // skip-worktree
	intent bool // intent-to-add
	// clean: the walk found the file in its directory's listing with stat
	// data equal to the entry's (and not racily clean).
	clean bool
}

// checked says whether the worktree file of e is compared at all (the
// go-git path's rule: conflicted and intent-to-add entries are changed
// anyway, skip-worktree entries and submodules are not looked at).
func (e *statEntry) checked() bool {
	return e.stage == 0 && !e.intent && !e.skip && e.mode != filemode.Submodule
}

// statIndex is the decoded index: entries in index order (sorted by name,
// then stage) and the cached tree's root when it is valid.
type statIndex struct {
	entries   []statEntry
	rootTree  plumbing.Hash
	rootCount int // entries the root of the cached tree covers; -1 invalid or absent
}

// parseStatIndex decodes an index file (versions 2 to 4). A split or
// sparse index, an entry git would not write or a checksum that does not
// match is errNoFastStatus: the go-git path reads (or refuses) it.
func parseStatIndex(data []byte) (*statIndex, error) {
	const hashLen = 20
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return nil, errNoFastStatus
	}
	if sum := sha1.Sum(data[:len(data)-hashLen]); !bytes.Equal(sum[:], data[len(data)-hashLen:]) {
		return nil, errNoFastStatus
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, errNoFastStatus
	}
	n := int(binary.BigEndian.Uint32(data[8:12]))
	end := len(data) - hashLen
	if n > end/62 {
		return nil, errNoFastStatus
	}
	ix := &statIndex{entries: make([]statEntry, n), rootCount: -1}
	p := 12
	var prev string
	for i := range ix.entries {
		start := p
		if p+62 > end {
			return nil, errNoFastStatus
		}
		e := &ix.entries[i]
		e.mtime = int64(binary.BigEndian.Uint32(data[p+8:]))*1e9 + int64(binary.BigEndian.Uint32(data[p+12:]))
		e.mode = filemode.FileMode(binary.BigEndian.Uint32(data[p+24:]))
		e.size = binary.BigEndian.Uint32(data[p+36:])
		copy(e.hash[:], data[p+40:p+60])
		flags := binary.BigEndian.Uint16(data[p+60:])
		e.stage = uint8(flags>>12) & 3
		p += 62
		if flags&0x4000 != 0 {
			if version < 3 || p+2 > end {
				return nil, errNoFastStatus
			}
			ext := binary.BigEndian.Uint16(data[p:])
			e.skip, e.intent = ext&(1<<14) != 0, ext&(1<<13) != 0
			p += 2
		}
		if version == 4 {
			strip, m := git.OffsetVarint(data[p:end])
			if m == 0 || strip > len(prev) {
				return nil, errNoFastStatus
			}
			p += m
			z := bytes.IndexByte(data[p:end], 0)
			if z < 0 {
				return nil, errNoFastStatus
			}
			e.name = prev[:len(prev)-strip] + string(data[p:p+z])
			p += z + 1
		} else {
			z := bytes.IndexByte(data[p:end], 0)
			if z < 0 {
				return nil, errNoFastStatus
			}
			// The names stay views of data, which the scan keeps alive and
			// never writes (changed paths are copied out).
			e.name = unsafe.String(&data[p], z)
			p = start + ((p+z-start)+8)&^7
		}
		// The walk finds entries by binary search: they must be in git's
		// order (by name; a sparse directory entry is not a file).
		if e.mode&0o170000 == 0o040000 || e.name == "" || (i > 0 && e.name < prev) {
			return nil, errNoFastStatus
		}
		prev = e.name
	}
	for p+8 <= end {
		sig := string(data[p : p+4])
		size := int(binary.BigEndian.Uint32(data[p+4 : p+8]))
		p += 8
		if size > end-p {
			return nil, errNoFastStatus
		}
		switch sig {
		case "link", "sdir":
			return nil, errNoFastStatus
		case "TREE":
			ix.rootTree, ix.rootCount = rootOfTree(data[p : p+size])
		}
		p += size
	}
	return ix, nil
}

// rootOfTree reads the root of the TREE extension: its entry count and
// tree id (-1 when the root is invalidated or the extension unreadable).
func rootOfTree(b []byte) (plumbing.Hash, int) {
	var h plumbing.Hash
	if len(b) == 0 || b[0] != 0 { // the root's path is ""
		return h, -1
	}
	b = b[1:]
	sp := bytes.IndexByte(b, ' ')
	nl := bytes.IndexByte(b, '\n')
	if sp < 0 || nl < sp {
		return h, -1
	}
	count, err := strconv.Atoi(string(b[:sp]))
	if err != nil || count < 0 || len(b) < nl+1+len(h) {
		return h, -1
	}
	copy(h[:], b[nl+1:])
	return h, count
}

// uncommittedFast is uncommitted through the status scan, or
// errNoFastStatus.
func (r *Repo) uncommittedFast(ctx context.Context) ([]string, error) {
	f, err := os.Open(filepath.Join(r.gitDir, "index"))
	if err != nil {
		return nil, errNoFastStatus
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, errNoFastStatus
	}
	data := make([]byte, fi.Size())
	_, err = readFull(f, data)
	f.Close()
	if err != nil {
		return nil, errNoFastStatus
	}
	ix, err := parseStatIndex(data)
	if err != nil {
		return nil, err
	}
	indexTime := fi.ModTime().UnixNano()
	changed := map[string]bool{}
	if err := r.scanWorktree(ctx, ix, indexTime, changed); err != nil {
		return nil, err
	}
	same := false
	if ix.rootCount == len(ix.entries) {
		if same, err = r.treeIsHead(ix.rootTree); err != nil {
			return nil, err
		}
	}
	var head map[string]headFile
	if !same {
		if head, err = r.headFiles(ctx); err != nil {
			return nil, err
		}
	}
	tracked := make(map[string]bool, len(head))
	for i := range ix.entries {
		e := &ix.entries[i]
		if head != nil {
			tracked[e.name] = true
		}
		if e.stage != 0 || e.intent {
			changed[e.name] = true // conflicted or intent-to-add
			continue
		}
		if !same {
			if h, ok := head[e.name]; !ok || h.hash != e.hash || h.mode != e.mode {
				changed[e.name] = true // staged
			}
		}
		if !e.checked() || e.clean {
			continue
		}
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		dirty, err := r.fileDiffers(e.name, e.mode, e.size, e.mtime, e.hash, indexTime)
		if err != nil {
			return nil, err
		}
		if dirty {
			changed[e.name] = true
		}
	}
	for p := range head {
		if !tracked[p] {
			changed[p] = true // staged deletion
		}
	}
	out := make([]string, 0, len(changed))
	for p := range changed {
		out = append(out, strings.Clone(p)) // never a view of the index data
	}
	sort.Strings(out)
	return out, nil
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// lowerBound is the first entry in es whose name is not below key.
func lowerBound(es []statEntry, key string) int {
	lo, hi := 0, len(es)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if es[m].name < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
