package history

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
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
	name := fmt.Sprintf("%s%x-%d-%x%s", segPrefix, time.Now().UnixNano(), os.Getpid(), rand.Uint64(), segSuffix)
	if err := c.write(name, encodeSegment(commits)); err != nil {
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
	buf = appendRecords(buf, commits)
	return binary.BigEndian.AppendUint32(buf, crc32.Checksum(buf, crcTable()))
}

func appendRecords(buf []byte, commits []*Commit) []byte {
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
	return buf
}

// A walk log is one Build's answer for one head and limit: the walked
// commits in the Index's order with the truncated flag, so that a later
// Build of the same head (every call until the next commit) decodes it
// and neither reads the segments nor walks, sorts or reads the commits at
// the walk's edge again. A walk depends only on the commits reachable
// from head, which never change, and on the limit, which is in the name;
// a shallow or incomplete walk (missing parents) is never logged, since
// deepening or fetching changes it. The newest maxLogs logs are kept.
//
// Log format: the magic line, a flags byte (bit 0: truncated), records as
// in a segment, a CRC-32C.
const (
	logMagic     = "kontext-walk-1\n"
	logPrefix    = "walk-"
	logSuffix    = ".kxw"
	maxLogs      = 4
	flagTruncate = 1
)

func logName(head string, maxCommits int) string {
	return fmt.Sprintf("%s%s-%d%s", logPrefix, head, max(maxCommits, 0), logSuffix)
}

// loadLog returns the logged walk of head, or false when there is none
// (or it is damaged: then it is removed).
func (c *commitCache) loadLog(head string, maxCommits int) (*Index, bool) {
	if c.dir == "" {
		return nil, false
	}
	p := filepath.Join(c.dir, logName(head, maxCommits))
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	body, err := checkedBody(data, logMagic)
	var commits []*Commit
	if err == nil && len(body) > 0 {
		commits, err = decodeRecords(body[1:])
	}
	if err != nil || len(body) == 0 || len(commits) == 0 || commits[0].SHA != head {
		_ = os.Remove(p)
		return nil, false
	}
	return &Index{Head: head, Commits: commits, Truncated: body[0]&flagTruncate != 0}, true
}

// storeLog writes ix as the walk log of its head and limit, and removes
// all but the newest maxLogs logs.
func (c *commitCache) storeLog(ix *Index, maxCommits int) error {
	if c.dir == "" {
		return nil
	}
	buf := make([]byte, 0, 64+len(ix.Commits)*128)
	buf = append(buf, logMagic...)
	var flags byte
	if ix.Truncated {
		flags |= flagTruncate
	}
	buf = appendRecords(append(buf, flags), ix.Commits)
	buf = binary.BigEndian.AppendUint32(buf, crc32.Checksum(buf, crcTable()))
	if err := c.write(logName(ix.Head, maxCommits), buf); err != nil {
		return err
	}
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return err
	}
	type logFile struct {
		path string
		mod  time.Time
	}
	var logs []logFile
	for _, e := range ents {
		if name := e.Name(); strings.HasPrefix(name, logPrefix) && strings.HasSuffix(name, logSuffix) {
			if info, err := e.Info(); err == nil {
				logs = append(logs, logFile{filepath.Join(c.dir, name), info.ModTime()})
			}
		}
	}
	if len(logs) > maxLogs {
		sort.Slice(logs, func(i, j int) bool { return logs[i].mod.After(logs[j].mod) })
		for _, l := range logs[maxLogs:] {
			_ = os.Remove(l.path)
		}
	}
	return nil
}

// write puts data under name in the cache directory through a temporary
// file and a rename, so readers never see half a file.
func (c *commitCache) write(name string, data []byte) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
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
		err = os.Rename(tmp, filepath.Join(c.dir, name))
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
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
	body, err := checkedBody(data, segMagic)
	if err != nil {
		return err
	}
	recs, err := decodeRecords(body)
	if err != nil {
		return err
	}
	for _, cm := range recs {
		h, _ := parseHash(cm.SHA)
		out[h] = cm
	}
	return nil
}

// checkedBody is data without its magic line and checksum, once both are
// right.
func checkedBody(data []byte, magic string) ([]byte, error) {
	if len(data) < len(magic)+4 || string(data[:len(magic)]) != magic {
		return nil, errBadSegment
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, crcTable()) != binary.BigEndian.Uint32(data[len(data)-4:]) {
		return nil, errBadSegment
	}
	return body[len(magic):], nil
}

// decodeRecords decodes a run of records in order. A first pass checks
// every record and counts them, so that the second decodes into a few
// large allocations (the commits, all parent and path lists, one string
// holding every hex id, one every path, subjects and authors substrings of
// the body) instead of several per commit: per-commit allocations were
// most of a warm history read. The body is kept as the subjects' and
// authors' memory: the caller must not change it afterwards.
func decodeRecords(body []byte) ([]*Commit, error) {
	var n, nParents, nPaths, pathBytes int
	r := &segReader{d: body}
	for len(r.d) > 0 && r.err == nil {
		r.bytes(21) // sha, flags
		np := r.uvarint()
		nParents += np
		r.bytes(20 * np)
		r.varint()
		r.bytes(r.uvarint())
		r.bytes(r.uvarint())
		npaths := r.uvarint()
		nPaths += npaths
		prevLen := 0
		for i := 0; i < npaths && r.err == nil; i++ {
			shared := r.uvarint()
			suffix := r.bytes(r.uvarint())
			if shared > prevLen {
				r.err = errBadSegment
			}
			prevLen = shared + len(suffix)
			pathBytes += prevLen
		}
		n++
	}
	if r.err != nil {
		return nil, r.err
	}

	commits := make([]Commit, n)
	counts := make([][2]int, n) // parents, paths
	hexIDs := make([]byte, 0, 40*(n+nParents))
	pathText := make([]byte, 0, pathBytes)
	pathEnds := make([]int, 0, nPaths)
	text := frozen(body)
	r = &segReader{d: body}
	str := func() string { // a uvarint length, then that many bytes of text
		l := r.uvarint()
		off := len(body) - len(r.d)
		r.bytes(l)
		return text[off : off+l]
	}
	for i := range commits {
		cm := &commits[i]
		hexIDs = hex.AppendEncode(hexIDs, r.bytes(20))
		cm.Merge = r.bytes(1)[0]&flagMerge != 0
		np := r.uvarint()
		for j := 0; j < np; j++ {
			hexIDs = hex.AppendEncode(hexIDs, r.bytes(20))
		}
		cm.Time = time.Unix(r.varint(), 0).UTC()
		cm.Subject = str()
		cm.Author = str()
		npaths := r.uvarint()
		prev := len(pathText)
		for j := 0; j < npaths; j++ {
			shared := r.uvarint()
			suffix := r.bytes(r.uvarint())
			start := len(pathText)
			pathText = append(pathText, pathText[prev:prev+shared]...)
			pathText = append(pathText, suffix...)
			prev = start
			pathEnds = append(pathEnds, len(pathText))
		}
		counts[i] = [2]int{np, npaths}
	}
	if r.err != nil { // the first pass checked every record
		return nil, r.err
	}

	ids, allPaths := frozen(hexIDs), frozen(pathText)
	parents := make([]string, nParents)
	paths := make([]string, nPaths)
	out := make([]*Commit, n)
	id, pi, pathStart := 0, 0, 0
	next := func() string { s := ids[id*40 : id*40+40]; id++; return s }
	for i := range commits {
		cm := &commits[i]
		out[i] = cm
		cm.SHA = next()
		np, npaths := counts[i][0], counts[i][1]
		if np > 0 {
			cm.Parents = parents[:np:np]
			parents = parents[np:]
			for j := range cm.Parents {
				cm.Parents[j] = next()
			}
		}
		if !cm.Merge || npaths > 0 {
			// Non-nil even when empty: an empty commit is known to have
			// changed nothing.
			cm.Paths = paths[:npaths:npaths]
			paths = paths[npaths:]
			for j := range cm.Paths {
				end := pathEnds[pi]
				cm.Paths[j] = allPaths[pathStart:end]
				pathStart = end
				pi++
			}
		}
	}
	return out, nil
}

// frozen is b as a string without a copy (a copy is a fresh page to fault
// in per 4 KiB of history); b is never written after this.
func frozen(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
