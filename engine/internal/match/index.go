package match

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(sets[a].Owner, sets[b].Owner) })
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

// ref is one positive pattern using a distinct glob.
type ref struct {
	set  int32 // set position in the NewIndex input
	pat  int32 // pattern index within the set (ties: lowest wins)
	spec int32
}

type node struct {
	children map[string]*node
	under    []int32 // kindUnder globs: reaching the node is a match
	tests    []int32 // other globs with this prefix
}

// Index is the compiled governing matcher of one snapshot: a literal-prefix
// trie plus buckets for root-level globs, so a lookup tests only candidate
// globs. It is immutable after NewIndex and safe for concurrent Lookup.
type Index struct {
	nsets int
	owner []int32    // set position -> Owner
	rank  []int32    // set position -> position in owner order
	order []int32    // owner order -> set position
	raws  [][]string // set position -> pattern Raw strings
	negs  [][]int32  // set position -> its negative globs

	globs []matcher
	refs  [][]ref // per positive glob, in (set, pattern) order

	exact     map[string][]int32 // exact globs by path
	root      node               // anchored globs by literal prefix
	all       []int32            // unanchored "**"
	deepExt   map[string][]int32 // "**/*S" by extension of S
	rootExt   map[string][]int32 // "*S" by extension of S
	noExt     []int32            // "*S" and "**/*S" whose S has no '.'
	lastSeg   map[string][]int32 // "**/X" by X
	anySeg    map[string][]int32 // "**/X/**" by X
	residual  []int32            // unanchored globs tested per path
	scratches sync.Pool

	// A decoded index files its globs into the trie and buckets at first
	// need: filing costs far more than testing every glob against the one
	// path a whole-process call asks about. Lookups test every positive
	// glob (matchPath, the same decision the trie's candidates reach) until
	// linearLimit paths have been asked in all, then the globs are filed.
	placed    atomic.Bool
	placeOnce sync.Once
	scanned   atomic.Int64
}

// linearLimit is how many paths a decoded index answers by testing every
// glob before it files them (filing one glob costs about as much as
// testing a few dozen).
const linearLimit = 16

// placeAll files every positive glob (a decoded index, at first need).
func (ix *Index) placeAll() {
	ix.placeOnce.Do(func() {
		ix.exact, ix.deepExt, ix.rootExt = map[string][]int32{}, map[string][]int32{}, map[string][]int32{}
		ix.lastSeg, ix.anySeg = map[string][]int32{}, map[string][]int32{}
		for id := range ix.globs {
			if len(ix.refs[id]) > 0 {
				ix.place(int32(id), &ix.globs[id])
			}
		}
		ix.placed.Store(true)
	})
}

// linear reports whether this lookup of n paths tests every glob instead
// of walking the trie (filing the globs once the limit is passed).
func (ix *Index) linear(n int) bool {
	if ix.placed.Load() {
		return false
	}
	if ix.scanned.Add(int64(n)) <= linearLimit {
		return true
	}
	ix.placeAll()
	return false
}

// scan feeds every positive glob matching path to hit, testing each: the
// answer candidates gives, without the trie.
func (ix *Index) scan(s *scratch, path string) {
	for id := range ix.globs {
		if len(ix.refs[id]) > 0 && ix.globs[id].matchPath(path) {
			ix.hit(s, int32(id))
		}
	}
}

// NewIndex compiles the sets once per snapshot. Identical globs are compiled
// once and shared by all patterns that use them.
func NewIndex(sets []Set) *Index {
	ix := &Index{
		nsets:   len(sets),
		owner:   make([]int32, len(sets)),
		rank:    make([]int32, len(sets)),
		raws:    make([][]string, len(sets)),
		negs:    make([][]int32, len(sets)),
		exact:   map[string][]int32{},
		deepExt: map[string][]int32{},
		rootExt: map[string][]int32{},
		lastSeg: map[string][]int32{},
		anySeg:  map[string][]int32{},
	}
	ix.order = ownerOrder(sets)
	for r, si := range ix.order {
		ix.rank[si] = int32(r)
	}
	posID := map[string]int32{}
	negID := map[string]int32{}
	for si := range sets {
		ix.owner[si] = int32(sets[si].Owner)
		raws := make([]string, len(sets[si].Patterns))
		for pi, p := range sets[si].Patterns {
			raws[pi] = p.Raw
			if p.Negated {
				id, ok := negID[p.Glob]
				if !ok {
					id = int32(len(ix.globs))
					ix.globs = append(ix.globs, compileMatcher(p.Glob))
					ix.refs = append(ix.refs, nil)
					negID[p.Glob] = id
				}
				ix.negs[si] = append(ix.negs[si], id)
				continue
			}
			id, ok := posID[p.Glob]
			if !ok {
				id = int32(len(ix.globs))
				m := compileMatcher(p.Glob)
				ix.globs = append(ix.globs, m)
				ix.refs = append(ix.refs, nil)
				posID[p.Glob] = id
				ix.place(id, &m)
			}
			ix.refs[id] = append(ix.refs[id], ref{set: int32(si), pat: int32(pi), spec: int32(p.Specificity)})
		}
		ix.raws[si] = raws
	}
	ix.scratches.New = func() any { return newScratch(ix.nsets) }
	ix.placed.Store(true)
	return ix
}

// place files a positive glob where lookups will find it.
func (ix *Index) place(id int32, m *matcher) {
	switch {
	case m.kind == kindNever:
	case m.kind == kindExact:
		ix.exact[m.glob] = append(ix.exact[m.glob], id)
	case m.anchored:
		n := &ix.root
		for seg := range strings.SplitSeq(m.prefix, "/") {
			c := n.children[seg]
			if c == nil {
				if n.children == nil {
					n.children = map[string]*node{}
				}
				c = &node{}
				n.children[seg] = c
			}
			n = c
		}
		if m.kind == kindUnder {
			n.under = append(n.under, id)
		} else {
			n.tests = append(n.tests, id)
		}
	case m.kind == kindUnder:
		ix.all = append(ix.all, id)
	case m.kind == kindDeepSuffix || m.kind == kindSuffix:
		ext, ok := extKey(m.arg)
		switch {
		case !ok:
			ix.noExt = append(ix.noExt, id)
		case m.kind == kindDeepSuffix:
			ix.deepExt[ext] = append(ix.deepExt[ext], id)
		default:
			ix.rootExt[ext] = append(ix.rootExt[ext], id)
		}
	case m.kind == kindLastSeg:
		ix.lastSeg[m.arg] = append(ix.lastSeg[m.arg], id)
	case m.kind == kindAnySeg:
		ix.anySeg[m.arg] = append(ix.anySeg[m.arg], id)
	default:
		ix.residual = append(ix.residual, id)
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
	hitSets  []int32  // per slot: rank of the set (sorted at the end)
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
	for _, r := range ix.refs[id] {
		if s.pathMark[r.set] != s.pathGen {
			s.pathMark[r.set] = s.pathGen
			s.bestPat[r.set], s.bestSpec[r.set] = r.pat, r.spec
			s.touched = append(s.touched, r.set)
		} else if r.spec > s.bestSpec[r.set] || (r.spec == s.bestSpec[r.set] && r.pat < s.bestPat[r.set]) {
			s.bestPat[r.set], s.bestSpec[r.set] = r.pat, r.spec
		}
	}
}

func (ix *Index) hitAll(s *scratch, ids []int32) {
	for _, id := range ids {
		ix.hit(s, id)
	}
}

// Lookup answers which sets govern each path; results are sorted by Owner
// (stable for equal owners) and identical to Naive(sets, paths). Paths are
// expected normalised (NormalizePath) and valid UTF-8.
func (ix *Index) Lookup(paths []string) []Result {
	s := ix.scratches.Get().(*scratch)
	defer ix.scratches.Put(s)
	if s.lookGen++; s.lookGen == 0 {
		clear(s.slotMark)
		s.lookGen = 1
	}
	s.hitSets, s.count, s.hits = s.hitSets[:0], s.count[:0], s.hits[:0]
	linear := ix.linear(len(paths))
	for pi, path := range paths {
		s.nextPath()
		if linear {
			ix.scan(s, path)
		} else {
			ix.candidates(s, path)
		}
		for _, si := range s.touched {
			if ix.excluded(si, path) {
				continue
			}
			if s.slotMark[si] != s.lookGen {
				s.slotMark[si] = s.lookGen
				s.slot[si] = int32(len(s.hitSets))
				s.hitSets = append(s.hitSets, ix.rank[si])
				s.count = append(s.count, 0)
			}
			s.count[s.slot[si]]++
			s.hits = append(s.hits, hitRec{set: si, path: int32(pi), pat: s.bestPat[si], spec: s.bestSpec[si]})
		}
	}
	if len(s.hits) == 0 {
		return nil
	}
	// Lay the results out in owner order over one shared match array; slot
	// is re-pointed from counting slot to result index.
	slices.Sort(s.hitSets)
	out := make([]Result, len(s.hitSets))
	all := make([]Match, len(s.hits))
	s.cursor = slices.Grow(s.cursor[:0], len(out))[:len(out)]
	off := int32(0)
	for i, r := range s.hitSets {
		si := ix.order[r]
		n := s.count[s.slot[si]]
		out[i].Owner = int(ix.owner[si])
		out[i].Matches = all[off : off+n : off+n]
		s.slot[si], s.cursor[i] = int32(i), off
		off += n
	}
	for _, h := range s.hits {
		i := s.slot[h.set]
		all[s.cursor[i]] = Match{Path: paths[h.path], Rule: ix.raws[h.set][h.pat], Specificity: int(h.spec)}
		s.cursor[i]++
		out[i].Specificity = max(out[i].Specificity, int(h.spec))
	}
	return out
}

// excluded: negatives are only evaluated for sets with a positive hit.
func (ix *Index) excluded(si int32, path string) bool {
	for _, id := range ix.negs[si] {
		if ix.globs[id].matchPath(path) {
			return true
		}
	}
	return false
}

// candidates feeds every positive glob matching path to hit, testing only
// the globs the trie and buckets select for it.
func (ix *Index) candidates(s *scratch, path string) {
	if ids, ok := ix.exact[path]; ok {
		ix.hitAll(s, ids)
	}
	ix.hitAll(s, ix.all)

	last := lastSegment(path)
	if ext, ok := extKey(last); ok {
		for _, id := range ix.deepExt[ext] {
			if strings.HasSuffix(last, ix.globs[id].arg) {
				ix.hit(s, id)
			}
		}
		if len(last) == len(path) { // "*S" only matches at the root
			for _, id := range ix.rootExt[ext] {
				if strings.HasSuffix(path, ix.globs[id].arg) {
					ix.hit(s, id)
				}
			}
		}
	}
	for _, id := range ix.noExt {
		if ix.globs[id].matchRem(path) {
			ix.hit(s, id)
		}
	}
	if ids, ok := ix.lastSeg[last]; ok {
		ix.hitAll(s, ids)
	}
	if len(ix.anySeg) > 0 {
		// A segment repeated in the path hits again; hit is idempotent.
		for seg := range strings.SplitSeq(path, "/") {
			if ids, ok := ix.anySeg[seg]; ok {
				ix.hitAll(s, ids)
			}
		}
	}
	for _, id := range ix.residual {
		if doublestar.MatchUnvalidated(ix.globs[id].glob, path) {
			ix.hit(s, id)
		}
	}

	// Walk the trie along the path's segments.
	n := &ix.root
	for start := 0; n.children != nil; {
		end := strings.IndexByte(path[start:], '/')
		if end < 0 {
			end = len(path)
		} else {
			end += start
		}
		c := n.children[path[start:end]]
		if c == nil {
			return
		}
		n = c
		ix.hitAll(s, n.under)
		if end == len(path) {
			// The path is the prefix itself: of the tests only a full glob
			// whose tail can match nothing (e.g. "dir/**/") still matches.
			for _, id := range n.tests {
				if m := &ix.globs[id]; m.kind == kindGlob && doublestar.MatchUnvalidated(m.glob, path) {
					ix.hit(s, id)
				}
			}
			return
		}
		rem := path[end+1:]
		for _, id := range n.tests {
			m := &ix.globs[id]
			if m.kind == kindGlob {
				if doublestar.MatchUnvalidated(m.glob, path) {
					ix.hit(s, id)
				}
			} else if m.matchRem(rem) {
				ix.hit(s, id)
			}
		}
		start = end + 1
	}
}
