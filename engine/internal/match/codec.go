package match

import (
	"encoding/binary"
	"errors"

	"github.com/bmatcuk/doublestar/v4"
)

// The compiled index in a compact binary form, so a process that finds the
// knowledge base unchanged loads the index instead of compiling every
// pattern again: the sets (owner, raw patterns, negative globs), the
// distinct globs already split into matcher shapes, and which patterns use
// each glob. The lookup structures (trie and buckets) are re-filed from
// the globs on decode, in the order NewIndex files them — cheap (no glob
// is parsed) and correct by construction. Integers are uvarints, strings
// a uvarint length and the bytes.

var errIndex = errors.New("stored match index is truncated or corrupt")

// AppendBinary appends the encoded index to b.
func (ix *Index) AppendBinary(b []byte) []byte {
	w := ixWriter{b}
	w.uint(uint64(ix.nsets))
	for si := 0; si < ix.nsets; si++ {
		w.uint(uint64(ix.owner[si]))
		w.uint(uint64(len(ix.raws[si])))
		for _, s := range ix.raws[si] {
			w.str(s)
		}
		w.uint(uint64(len(ix.negs[si])))
		for _, id := range ix.negs[si] {
			w.uint(uint64(id))
		}
	}
	w.uint(uint64(len(ix.globs)))
	for i, m := range ix.globs {
		w.str(m.glob)
		w.uint(uint64(m.kind))
		anchored := uint64(0)
		if m.anchored {
			anchored = 1
		}
		w.uint(anchored)
		w.str(m.prefix)
		w.str(m.arg)
		w.uint(uint64(len(ix.refs[i])))
		for _, r := range ix.refs[i] {
			w.uint(uint64(r.set))
			w.uint(uint64(r.pat))
			w.uint(uint64(r.spec))
		}
	}
	return w.b
}

// DecodeIndex reads an index AppendBinary wrote; data must be exactly one
// encoded index whose owners are below owners. Every owner, set, glob and
// pattern number is checked, so a corrupt index is an error, never a panic
// at lookup.
func DecodeIndex(data string, owners int) (*Index, error) {
	r := ixReader{s: data}
	n := r.count()
	ix := &Index{
		nsets: n, owner: make([]int32, n), raws: make([][]string, n), negs: make([][]int32, n),
		exact: map[string][]int32{}, deepExt: map[string][]int32{}, rootExt: map[string][]int32{},
		lastSeg: map[string][]int32{}, anySeg: map[string][]int32{},
	}
	for si := 0; si < n && r.err == nil; si++ {
		ix.owner[si] = r.below(owners)
		raws := make([]string, r.count())
		for i := range raws {
			raws[i] = r.str()
		}
		ix.raws[si] = raws
		negs := make([]int32, r.count())
		for i := range negs {
			negs[i] = r.below(-1) // checked against the glob count below
		}
		ix.negs[si] = negs
	}
	g := r.count()
	ix.globs = make([]matcher, g)
	ix.refs = make([][]ref, g)
	for i := 0; i < g && r.err == nil; i++ {
		m := &ix.globs[i]
		m.glob = r.str()
		m.kind = kind(r.below(int(kindAnySeg) + 1))
		m.anchored = r.below(2) == 1
		m.prefix = r.str()
		m.arg = r.str()
		if m.kind == kindGlob && !doublestar.ValidatePattern(m.glob) {
			return nil, errIndex
		}
		refs := make([]ref, r.count())
		for k := 0; k < len(refs) && r.err == nil; k++ {
			set := r.below(n)
			if r.err != nil {
				break
			}
			refs[k] = ref{set: set, pat: r.below(len(ix.raws[set])), spec: r.below(-1)}
		}
		ix.refs[i] = refs
	}
	if r.err != nil || r.s != "" {
		return nil, errIndex
	}
	for _, negs := range ix.negs {
		for _, id := range negs {
			if int(id) >= g || len(ix.refs[id]) > 0 {
				return nil, errIndex // a negative glob is never a positive one
			}
		}
	}
	for id := range ix.globs {
		if len(ix.refs[id]) > 0 {
			ix.place(int32(id), &ix.globs[id])
		}
	}
	sets := make([]Set, n)
	for si := range sets {
		sets[si].Owner = int(ix.owner[si])
	}
	ix.order = ownerOrder(sets)
	ix.rank = make([]int32, n)
	for r, si := range ix.order {
		ix.rank[si] = int32(r)
	}
	ix.scratches.New = func() any { return newScratch(ix.nsets) }
	return ix, nil
}

type ixWriter struct{ b []byte }

func (w *ixWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *ixWriter) str(s string)  { w.uint(uint64(len(s))); w.b = append(w.b, s...) }

type ixReader struct {
	s   string
	err error
}

func (r *ixReader) uint() uint64 {
	var v uint64
	for i := 0; i < len(r.s) && i < binary.MaxVarintLen64; i++ {
		c := r.s[i]
		if c < 0x80 {
			r.s = r.s[i+1:]
			return v | uint64(c)<<(7*i)
		}
		v |= uint64(c&0x7f) << (7 * i)
	}
	r.err, r.s = errIndex, ""
	return 0
}

// below reads a number below limit (any int32 when limit < 0).
func (r *ixReader) below(limit int) int32 {
	v := r.uint()
	if v > 1<<31-1 || (limit >= 0 && v >= uint64(limit)) {
		r.err, r.s = errIndex, ""
		return 0
	}
	return int32(v)
}

// count reads a length that must fit in what is left.
func (r *ixReader) count() int {
	v := r.uint()
	if v > uint64(len(r.s)) {
		r.err, r.s = errIndex, ""
		return 0
	}
	return int(v)
}

func (r *ixReader) str() string {
	n := r.count()
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}
