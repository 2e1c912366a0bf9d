package match

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/bmatcuk/doublestar/v4"
)

// Set is the rule set of one owner (an entry): its compiled patterns in
// written order, invalid ones already dropped by the caller.
type Set struct {
	Owner    int
	Patterns []Pattern
}

// Match is one governed path and the rule that won it.
type Match struct {
	Path        string
	Rule        string // Raw of the most specific matching positive pattern
	Specificity int
}

// Result lists what one owner governs among the queried paths.
type Result struct {
	Owner       int
	Matches     []Match // one per input path it governs, in input path order
	Specificity int     // the best of Matches
}

// Naive is the reference oracle: every pattern of every set against every
// path with doublestar.Match. Lookup must return exactly the same. A pattern
// whose Glob is not a valid doublestar pattern never matches (in both).
func Naive(sets []Set, paths []string) []Result {
	var out []Result
	var valid []bool
	for _, si := range ownerOrder(sets) {
		set := &sets[si]
		valid = valid[:0]
		for _, p := range set.Patterns {
			valid = append(valid, doublestar.ValidatePattern(p.Glob))
		}
		var res Result
		for _, path := range paths {
			best := -1
			for j, p := range set.Patterns {
				if p.Negated || !valid[j] {
					continue
				}
				if ok, _ := doublestar.Match(p.Glob, path); ok && (best < 0 || p.Specificity > set.Patterns[best].Specificity) {
					best = j
				}
			}
			if best < 0 {
				continue
			}
			excluded := false
			for j, p := range set.Patterns {
				if p.Negated && valid[j] {
					if ok, _ := doublestar.Match(p.Glob, path); ok {
						excluded = true
						break
					}
				}
			}
			if excluded {
				continue
			}
			w := set.Patterns[best]
			res.Matches = append(res.Matches, Match{Path: path, Rule: w.Raw, Specificity: w.Specificity})
			res.Specificity = max(res.Specificity, w.Specificity)
		}
		if res.Matches != nil {
			res.Owner = set.Owner
			out = append(out, res)
		}
	}
	return out
}

// ownerOrder returns set positions sorted by Owner, stable so duplicate
// owners keep their input order in both Naive and Lookup.
func ownerOrder(sets []Set) []int32 {
	order := make([]int32, len(sets))
	for i := range order {
		order[i] = int32(i)
	}
	// Positions break ties: the stable order (sort.Slice: see builder.encode).
	sort.Slice(order, func(i, j int) bool {
		if a, b := sets[order[i]].Owner, sets[order[j]].Owner; a != b {
			return a < b
		}
		return order[i] < order[j]
	})
	return order
}

// kind says how a compiled glob is decided. Everything but kindGlob is a
// plain string comparison proven equal to doublestar.Match for that shape
// (on valid UTF-8), which is what makes the index cheap.
type kind uint8

const (
	kindGlob       kind = iota // anything else: doublestar.Match on the full path
	kindNever                  // invalid glob: never matches
	kindExact                  // no wildcard: path == glob
	kindUnder                  // tail "**": the prefix itself or anything below it
	kindSuffix                 // tail "*S": remainder is one segment ending in S
	kindDeepSuffix             // tail "**/*S", S != "": last segment of remainder ends in S
	kindLastSeg                // tail "**/X": last segment of remainder is X
	kindAnySeg                 // tail "**/X/**": some segment of remainder is X
)

// matcher is one distinct glob split into its literal prefix (the leading
// wildcard-free segments) and a tail. A path matches only if it equals the
// prefix or continues it with "/" (doublestar compares literal bytes one by
// one before any backtracking point exists); the tail is then decided on the
// remainder after that "/".
type matcher struct {
	glob     string
	kind     kind
	anchored bool   // has a literal prefix (possibly one empty segment)
	prefix   string // literal prefix without the trailing "/"
	arg      string // S or X of the tail
}

func compileMatcher(glob string) matcher {
	m := matcher{glob: glob}
	if !doublestar.ValidatePattern(glob) {
		m.kind = kindNever
		return m
	}
	first := strings.IndexAny(glob, nonLiteral)
	if first < 0 {
		m.kind = kindExact
		return m
	}
	tail := glob
	if cut := strings.LastIndexByte(glob[:first], '/'); cut >= 0 {
		m.anchored, m.prefix, tail = true, glob[:cut], glob[cut+1:]
	}
	switch {
	case tail == "**":
		m.kind = kindUnder
	case strings.HasPrefix(tail, "**/*") && isSegLiteral(tail[4:]) && tail[4:] != "":
		m.kind, m.arg = kindDeepSuffix, tail[4:]
	case strings.HasPrefix(tail, "**/") && strings.HasSuffix(tail, "/**") && len(tail) > 6 && isSegLiteral(tail[3:len(tail)-3]):
		m.kind, m.arg = kindAnySeg, tail[3:len(tail)-3]
	case strings.HasPrefix(tail, "**/") && isSegLiteral(tail[3:]) && tail[3:] != "":
		m.kind, m.arg = kindLastSeg, tail[3:]
	case strings.HasPrefix(tail, "*") && isSegLiteral(tail[1:]):
		m.kind, m.arg = kindSuffix, tail[1:]
	default:
		m.kind = kindGlob
	}
	return m
}

// isSegLiteral: no wildcard, no escape, no separator.
func isSegLiteral(s string) bool { return !strings.ContainsAny(s, nonLiteral+"/") }

// matchPath decides the matcher on a whole path.
func (m *matcher) matchPath(path string) bool {
	switch m.kind {
	case kindNever:
		return false
	case kindExact:
		return path == m.glob
	case kindGlob:
		return doublestar.MatchUnvalidated(m.glob, path)
	}
	rem := path
	if m.anchored {
		if !strings.HasPrefix(path, m.prefix) {
			return false
		}
		if len(path) == len(m.prefix) {
			// Only a tail that can match nothing at all matches the prefix
			// itself; of the fast shapes that is "/**".
			return m.kind == kindUnder
		}
		if path[len(m.prefix)] != '/' {
			return false
		}
		rem = path[len(m.prefix)+1:]
	}
	return m.matchRem(rem)
}

// matchRem decides a fast tail on the remainder after the prefix and its "/"
// (the whole path when not anchored).
func (m *matcher) matchRem(rem string) bool {
	switch m.kind {
	case kindUnder:
		return true
	case kindSuffix:
		return strings.IndexByte(rem, '/') < 0 && strings.HasSuffix(rem, m.arg)
	case kindDeepSuffix:
		return strings.HasSuffix(lastSegment(rem), m.arg)
	case kindLastSeg:
		return lastSegment(rem) == m.arg
	case kindAnySeg:
		for seg := range strings.SplitSeq(rem, "/") {
			if seg == m.arg {
				return true
			}
		}
		return false
	}
	return false
}

func lastSegment(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// extKey buckets a literal suffix by what follows its last '.': a path's
// last segment can only end in S if its own extension is the same.
func extKey(s string) (string, bool) {
	dot := strings.LastIndexByte(s, '.')
	if dot < 0 {
		return "", false
	}
	return s[dot+1:], true
}

// Index is the compiled governing matcher of one snapshot, kept as its
// stored bytes (see codec.go): fixed-width tables of sets, patterns,
// distinct globs and the patterns using them, plus sorted probe tables
// that file each positive glob under the one string a matching path must
// contain (the exact path, a literal prefix, an extension, a segment). A
// lookup binary-searches those tables with the path's own strings and
// tests only the globs it finds, so loading a stored index costs one
// bounds check per record and no allocation per pattern. It is immutable
// and safe for concurrent Lookup.
type Index struct {
	data string // the encoded index; every string an answer holds points into it

	nsets, nglobs               int
	sets, pats, negs, globs, rf int // byte offsets of the record tables
	heap                        int // byte offset of the string heap
	tabs                        [ntabs]table

	scratches sync.Pool
}

// table is one sorted probe table: n glob ids from byte offset off.
type table struct{ off, n int }

// The probe tables: which string of a path finds a glob.
const (
	tabExact   = iota // no wildcard: the path itself
	tabPrefix         // anchored: the path up to one of its "/" (or all of it)
	tabDeepExt        // "**/*S", S with a '.': the last segment's extension
	tabRootExt        // "*S", S with a '.': the extension of a path without "/"
	tabLastSeg        // "**/X": the last segment
	tabAnySeg         // "**/X/**": any segment
	tabScan           // "**", "*S" and "**/*S" without '.', other globs: tested on every path
	ntabs
)

// tableOf says where a positive glob is filed (-1: never matches).
func tableOf(m *matcher) int {
	switch {
	case m.kind == kindNever:
		return -1
	case m.kind == kindExact:
		return tabExact
	case m.anchored:
		return tabPrefix
	case m.kind == kindDeepSuffix || m.kind == kindSuffix:
		if _, ok := extKey(m.arg); !ok {
			return tabScan
		}
		if m.kind == kindDeepSuffix {
			return tabDeepExt
		}
		return tabRootExt
	case m.kind == kindLastSeg:
		return tabLastSeg
	case m.kind == kindAnySeg:
		return tabAnySeg
	}
	return tabScan
}

// keyOf is the string a glob is sorted and found by in table t.
func keyOf(t int, m *matcher) string {
	switch t {
	case tabExact:
		return m.glob
	case tabPrefix:
		return m.prefix
	case tabDeepExt, tabRootExt:
		ext, _ := extKey(m.arg)
		return ext
	}
	return m.arg
}

// ref is one positive pattern using a distinct glob.
type ref struct {
	set  int32 // set position in the NewIndex input
	pat  int32 // pattern index within the set (ties: lowest wins)
	spec int32
}

// NewIndex compiles the sets once per snapshot. Identical globs are compiled
// once and shared by all patterns that use them.
func NewIndex(sets []Set) *Index {
	npats, raw := 0, 0
	for si := range sets {
		npats += len(sets[si].Patterns)
		for _, p := range sets[si].Patterns {
			raw += len(p.Raw)
		}
	}
	b := builder{negs: make([][]int32, len(sets)), globs: make([]matcher, 0, npats), refs: make([][]ref, 0, npats), raw: raw}
	posID := make(map[string]int32, npats)
	negID := map[string]int32{}
	for si := range sets {
		for pi, p := range sets[si].Patterns {
			ids := posID
			if p.Negated {
				ids = negID
			}
			id, ok := ids[p.Glob]
			if !ok {
				id = int32(len(b.globs))
				b.globs = append(b.globs, compileMatcher(p.Glob))
				b.refs = append(b.refs, nil)
				ids[p.Glob] = id
			}
			if p.Negated {
				b.negs[si] = append(b.negs[si], id)
				continue
			}
			b.refs[id] = append(b.refs[id], ref{set: int32(si), pat: int32(pi), spec: int32(p.Specificity)})
		}
	}
	enc := b.encode(sets)
	ix, err := DecodeIndex(unsafe.String(unsafe.SliceData(enc), len(enc)), -1) // enc is not written again
	if err != nil {
		panic(err) // NewIndex encoded an index it cannot decode
	}
	return ix
}

// u32 reads the little-endian word at byte offset o. (Not inlined: its
// dozens of call sites would grow the WASM engine more than it saves; the
// decoding loops use le32.)
//
//go:noinline
func (ix *Index) u32(o int) uint32 { return le32(ix.data, o) }

func le32(s string, o int) uint32 {
	s = s[o : o+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func (ix *Index) str(off, n uint32) string {
	return ix.data[ix.heap+int(off) : ix.heap+int(off)+int(n)]
}

func (ix *Index) owner(si int32) int32 { return int32(ix.u32(ix.sets + int(si)*setBytes)) }

// span is the range [start, end) of record si of a table whose records
// store their cumulative end at byte offset at (its first record starts at 0).
func (ix *Index) span(base, size, at int, si int32) (int, int) {
	end := int(ix.u32(base + int(si)*size + at))
	if si == 0 {
		return 0, end
	}
	return int(ix.u32(base + int(si-1)*size + at)), end
}

// raw is the Raw string of pattern pat of set si.
func (ix *Index) raw(si, pat int32) string {
	start, _ := ix.span(ix.sets, setBytes, 4, si)
	o := ix.pats + (start+int(pat))*patBytes
	return ix.str(ix.u32(o), ix.u32(o+4))
}

// matcher is glob id as stored (decode checked every bound used here).
func (ix *Index) matcher(id int32) matcher {
	o := ix.globs + int(id)*globBytes
	g := ix.str(ix.u32(o), ix.u32(o+4))
	pl, ka := ix.u32(o+8), ix.u32(o+12)
	m := matcher{glob: g, kind: kind(ka & 0xff), anchored: ka>>8 == 1}
	tail := g
	if m.anchored {
		m.prefix, tail = g[:pl], g[pl+1:]
	}
	switch m.kind {
	case kindDeepSuffix:
		m.arg = tail[4:]
	case kindAnySeg:
		m.arg = tail[3 : len(tail)-3]
	case kindLastSeg:
		m.arg = tail[3:]
	case kindSuffix:
		m.arg = tail[1:]
	}
	return m
}

func (ix *Index) tableID(t, i int) int32 { return int32(ix.u32(ix.tabs[t].off + i*tabBytes + 8)) }

// tableKey is the key of entry i of table t, stored with it so a binary
// search reads no glob record.
func (ix *Index) tableKey(t, i int) string {
	o := ix.tabs[t].off + i*tabBytes
	return ix.str(ix.u32(o), ix.u32(o+4))
}

// probe feeds every glob of table t filed under key k that matches path
// to hit.
func (ix *Index) probe(s *scratch, t int, k, path string) {
	n := ix.tabs[t].n
	lo, hi := 0, n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if ix.tableKey(t, mid) < k {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for ; lo < n && ix.tableKey(t, lo) == k; lo++ {
		id := ix.tableID(t, lo)
		if m := ix.matcher(id); m.matchPath(path) {
			ix.hit(s, id)
		}
	}
}

// candidates feeds every positive glob matching path to hit. matchPath
// decides; the tables only select the globs that can match at all.
func (ix *Index) candidates(s *scratch, path string) {
	ix.probe(s, tabExact, path, path)
	if ix.tabs[tabPrefix].n > 0 {
		for i := 0; i < len(path); i++ {
			if path[i] == '/' {
				ix.probe(s, tabPrefix, path[:i], path)
			}
		}
		ix.probe(s, tabPrefix, path, path)
	}
	last := lastSegment(path)
	if ext, ok := extKey(last); ok {
		ix.probe(s, tabDeepExt, ext, path)
		if len(last) == len(path) { // "*S" only matches at the root
			ix.probe(s, tabRootExt, ext, path)
		}
	}
	ix.probe(s, tabLastSeg, last, path)
	if ix.tabs[tabAnySeg].n > 0 {
		// A segment repeated in the path hits again; hit is idempotent.
		for seg := range strings.SplitSeq(path, "/") {
			ix.probe(s, tabAnySeg, seg, path)
		}
	}
	for i := range ix.tabs[tabScan].n {
		id := ix.tableID(tabScan, i)
		if m := ix.matcher(id); m.matchPath(path) {
			ix.hit(s, id)
		}
	}
}

// scratch is per-Lookup working memory, pooled so steady-state lookups
// allocate only their results. Generation stamps avoid clearing per path.
type scratch struct {
	pathGen  uint32
	pathMark []uint32 // == pathGen: the set has a positive hit on this path
	bestPat  []int32
	bestSpec []int32
	touched  []int32
	lookGen  uint32
	slotMark []uint32 // == lookGen: slot is valid for this lookup
	slot     []int32  // set position -> its slot in this lookup
	hitSets  []int32  // per slot: the set (sorted by owner at the end)
	count    []int32  // per slot: matches
	cursor   []int32  // per result: next free index in the match array
	hits     []hitRec // every governed (set, path) in path order
}

// hitRec is one governed path, kept until the lookup knows how many matches
// each set has, so all matches share one exactly sized allocation.
type hitRec struct {
	set, path, pat, spec int32
}

func newScratch(n int) *scratch {
	return &scratch{
		pathMark: make([]uint32, n),
		bestPat:  make([]int32, n),
		bestSpec: make([]int32, n),
		slotMark: make([]uint32, n),
		slot:     make([]int32, n),
	}
}

func (s *scratch) nextPath() {
	if s.pathGen++; s.pathGen == 0 {
		clear(s.pathMark)
		s.pathGen = 1
	}
	s.touched = s.touched[:0]
}

// hit records every pattern using glob id as matching the current path,
// keeping per set the most specific (ties: first written).
func (ix *Index) hit(s *scratch, id int32) {
	start, end := ix.span(ix.globs, globBytes, 16, id)
	for o := ix.rf + start*refBytes; o < ix.rf+end*refBytes; o += refBytes {
		set, pat, spec := int32(ix.u32(o)), int32(ix.u32(o+4)), int32(ix.u32(o+8))
		if s.pathMark[set] != s.pathGen {
			s.pathMark[set] = s.pathGen
			s.bestPat[set], s.bestSpec[set] = pat, spec
			s.touched = append(s.touched, set)
		} else if spec > s.bestSpec[set] || (spec == s.bestSpec[set] && pat < s.bestPat[set]) {
			s.bestPat[set], s.bestSpec[set] = pat, spec
		}
	}
}

// Sets is the number of sets ix indexes.
func (ix *Index) Sets() int { return ix.nsets }

// SetIs reports whether set si of ix has this owner and exactly these
// patterns (Raw). When every set of ix is, in order, a set of owners and
// pattern texts that all compile (Compile), ix is the index NewIndex
// builds of them: a knowledge base rebuilt after an edit that changed no
// entry's paths keeps the index it had.
func (ix *Index) SetIs(si, owner int, raws []string) bool {
	start, end := ix.span(ix.sets, setBytes, 4, int32(si))
	if ix.owner(int32(si)) != int32(owner) || end-start != len(raws) {
		return false
	}
	for pi, raw := range raws {
		if ix.raw(int32(si), int32(pi)) != raw {
			return false
		}
	}
	return true
}

// Lookup answers which sets govern each path; results are sorted by Owner
// (stable for equal owners) and identical to Naive(sets, paths). Paths are
// expected normalised (repopath.Normalize) and valid UTF-8.
func (ix *Index) Lookup(paths []string) []Result {
	s := ix.scratches.Get().(*scratch)
	defer ix.scratches.Put(s)
	if s.lookGen++; s.lookGen == 0 {
		clear(s.slotMark)
		s.lookGen = 1
	}
	s.hitSets, s.count, s.hits = s.hitSets[:0], s.count[:0], s.hits[:0]
	for pi, path := range paths {
		s.nextPath()
		ix.candidates(s, path)
		for _, si := range s.touched {
			if ix.excluded(si, path) {
				continue
			}
			if s.slotMark[si] != s.lookGen {
				s.slotMark[si] = s.lookGen
				s.slot[si] = int32(len(s.hitSets))
				s.hitSets = append(s.hitSets, si)
				s.count = append(s.count, 0)
			}
			s.count[s.slot[si]]++
			s.hits = append(s.hits, hitRec{set: si, path: int32(pi), pat: s.bestPat[si], spec: s.bestSpec[si]})
		}
	}
	if len(s.hits) == 0 {
		return nil
	}
	// Lay the results out in owner order (set order among equal owners)
	// over one shared match array; slot is re-pointed from counting slot
	// to result index.
	hs := s.hitSets // keys are distinct (sort.Slice: see builder.encode)
	sort.Slice(hs, func(i, j int) bool {
		if a, b := ix.owner(hs[i]), ix.owner(hs[j]); a != b {
			return a < b
		}
		return hs[i] < hs[j]
	})
	out := make([]Result, len(s.hitSets))
	all := make([]Match, len(s.hits))
	s.cursor = slices.Grow(s.cursor[:0], len(out))[:len(out)]
	off := int32(0)
	for i, si := range s.hitSets {
		n := s.count[s.slot[si]]
		out[i].Owner = int(ix.owner(si))
		out[i].Matches = all[off : off+n : off+n]
		s.slot[si], s.cursor[i] = int32(i), off
		off += n
	}
	for _, h := range s.hits {
		i := s.slot[h.set]
		all[s.cursor[i]] = Match{Path: paths[h.path], Rule: ix.raw(h.set, h.pat), Specificity: int(h.spec)}
		s.cursor[i]++
		out[i].Specificity = max(out[i].Specificity, int(h.spec))
	}
	return out
}

// excluded: negatives are only evaluated for sets with a positive hit.
func (ix *Index) excluded(si int32, path string) bool {
	start, end := ix.span(ix.sets, setBytes, 8, si)
	for o := ix.negs + start*4; o < ix.negs+end*4; o += 4 {
		if m := ix.matcher(int32(ix.u32(o))); m.matchPath(path) {
			return true
		}
	}
	return false
}
