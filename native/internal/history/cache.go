package history

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/kontext/kontext/native/internal/git"
)

// The cache is a directory of immutable segment files. Each Build that
// diffed new commits writes one segment with just those commits (to a
// temporary file, then renamed, so concurrent processes never see half a
// file and never overwrite each other's work); loading reads every segment.
// When segments pile up, a Build writes one merged segment and removes the
// ones it read. Two processes compacting at once only duplicate records,
// and a segment removed under a reader only costs that reader some diffs.
//
// Segment format: the magic line, records, then a CRC-32C of everything
// before it. A record is the 20-byte sha, a flags byte (bit 0: merge), the
// parent count and 20-byte parents, the committer time (varint unix
// seconds), the subject and the author name (each uvarint length + bytes)
// and the path count, each path as uvarint bytes shared with the previous
// path + uvarint suffix length + suffix (paths are sorted, so prefixes
// compress well).
const (
	segMagic     = "kontext-commits-2\n" // segments of another version are dropped on load
	segPrefix    = "seg-"
	segSuffix    = ".kxc"
	maxSegments  = 8
	flagMerge    = 1
	cacheSubpath = "kontext/cache/commits"
)

// crcTable is built on first use, not at start-up of every CLI call.
var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

type commitCache struct {
	dir    string
	loaded []string // segment files read by load
}

func openCache(gitDir string) *commitCache {
	if gitDir == "" {
		return &commitCache{}
	}
	return &commitCache{dir: filepath.Join(gitDir, filepath.FromSlash(cacheSubpath))}
}

// load reads every segment. Unreadable or corrupt segments are skipped:
// the cache is only an accelerator.
func (c *commitCache) load() map[plumbing.Hash]*Commit {
	out := map[plumbing.Hash]*Commit{}
	if c.dir == "" {
		return out
	}
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return out
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, segPrefix) || !strings.HasSuffix(name, segSuffix) {
			continue
		}
		p := filepath.Join(c.dir, name)
		data, err := os.ReadFile(p)
		if err != nil {
			continue // removed by a concurrent compaction
		}
		if err := decodeSegment(data, out); err != nil {
			// Segments are renamed into place whole, so this is real
			// damage; drop it and let the commits be diffed again.
			_ = os.Remove(p)
			continue
		}
		c.loaded = append(c.loaded, p)
	}
	return out
}

// store writes a segment with commits; when there are too many segments it
// writes all of all (the loaded commits plus the new ones) and removes the
// segments it loaded.
func (c *commitCache) store(commits []*Commit, all map[plumbing.Hash]*Commit) error {
	if c.dir == "" {
		return nil
	}
	compact := len(c.loaded)+1 > maxSegments
	if compact {
		for _, cm := range commits {
			h, _ := parseHash(cm.SHA)
			all[h] = cm
		}
		commits = make([]*Commit, 0, len(all))
		for _, cm := range all {
			commits = append(commits, cm)
		}
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	data := encodeSegment(commits)
	f, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		name := fmt.Sprintf("%s%x-%d-%x%s", segPrefix, time.Now().UnixNano(), os.Getpid(), rand.Uint64(), segSuffix)
		err = os.Rename(tmp, filepath.Join(c.dir, name))
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if compact {
		for _, p := range c.loaded {
			_ = os.Remove(p)
		}
	}
	return nil
}

func encodeSegment(commits []*Commit) []byte {
	buf := make([]byte, 0, 64+len(commits)*128)
	buf = append(buf, segMagic...)
	for _, cm := range commits {
		h, _ := parseHash(cm.SHA)
		buf = append(buf, h[:]...)
		var flags byte
		if cm.Merge {
			flags |= flagMerge
		}
		buf = append(buf, flags)
		buf = binary.AppendUvarint(buf, uint64(len(cm.Parents)))
		for _, p := range cm.Parents {
			ph, _ := parseHash(p)
			buf = append(buf, ph[:]...)
		}
		buf = binary.AppendVarint(buf, cm.Time.Unix())
		buf = binary.AppendUvarint(buf, uint64(len(cm.Subject)))
		buf = append(buf, cm.Subject...)
		buf = binary.AppendUvarint(buf, uint64(len(cm.Author)))
		buf = append(buf, cm.Author...)
		buf = binary.AppendUvarint(buf, uint64(len(cm.Paths)))
		prev := ""
		for _, p := range cm.Paths {
			shared := 0
			for shared < len(p) && shared < len(prev) && p[shared] == prev[shared] {
				shared++
			}
			buf = binary.AppendUvarint(buf, uint64(shared))
			buf = binary.AppendUvarint(buf, uint64(len(p)-shared))
			buf = append(buf, p[shared:]...)
			prev = p
		}
	}
	return binary.BigEndian.AppendUint32(buf, crc32.Checksum(buf, crcTable()))
}

var errBadSegment = errors.New("corrupt commit cache segment")

// segReader decodes a segment; the first error sticks.
type segReader struct {
	d   []byte
	err error
}

func (r *segReader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.d) {
		r.err = errBadSegment
		return nil
	}
	b := r.d[:n]
	r.d = r.d[n:]
	return b
}

func (r *segReader) uvarint() int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.d)
	if n <= 0 || v > uint64(len(r.d))+1<<20 {
		r.err = errBadSegment
		return 0
	}
	r.d = r.d[n:]
	return int(v)
}

func (r *segReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.d)
	if n <= 0 {
		r.err = errBadSegment
		return 0
	}
	r.d = r.d[n:]
	return v
}

func decodeSegment(data []byte, out map[plumbing.Hash]*Commit) error {
	if len(data) < len(segMagic)+4 || string(data[:len(segMagic)]) != segMagic {
		return errBadSegment
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, crcTable()) != binary.BigEndian.Uint32(data[len(data)-4:]) {
		return errBadSegment
	}
	r := &segReader{d: body[len(segMagic):]}
	var recs []*Commit
	for len(r.d) > 0 && r.err == nil {
		var h plumbing.Hash
		copy(h[:], r.bytes(20))
		flags := r.bytes(1)
		cm := &Commit{SHA: git.HashString(h)}
		if len(flags) == 1 {
			cm.Merge = flags[0]&flagMerge != 0
		}
		np := r.uvarint()
		for i := 0; i < np && r.err == nil; i++ {
			var ph plumbing.Hash
			copy(ph[:], r.bytes(20))
			cm.Parents = append(cm.Parents, git.HashString(ph))
		}
		cm.Time = time.Unix(r.varint(), 0).UTC()
		cm.Subject = string(r.bytes(r.uvarint()))
		cm.Author = string(r.bytes(r.uvarint()))
		npaths := r.uvarint()
		if !cm.Merge {
			// Non-nil even when empty: an empty commit is known to have
			// changed nothing.
			cm.Paths = make([]string, 0, npaths)
		}
		var prev []byte
		for i := 0; i < npaths && r.err == nil; i++ {
			shared := r.uvarint()
			suffix := r.bytes(r.uvarint())
			if shared > len(prev) {
				r.err = errBadSegment
				break
			}
			p := append(prev[:shared:shared], suffix...)
			cm.Paths = append(cm.Paths, string(p))
			prev = p
		}
		recs = append(recs, cm)
	}
	if r.err != nil {
		return r.err
	}
	for _, cm := range recs {
		h, _ := parseHash(cm.SHA)
		out[h] = cm
	}
	return nil
}
