package match

import (
	"encoding/binary"
	"errors"
	"slices"

	"github.com/bmatcuk/doublestar/v4"
)

// The compiled index in a compact binary form, so a process that finds the
// knowledge base unchanged loads the index instead of compiling every
// pattern again. Integers are uvarints, strings a uvarint length and the
// bytes; maps are written in sorted key order so equal indexes encode to
// equal bytes. Only the compiled snapshot of a native engine uses it.

var errIndex = errors.New("stored match index is truncated or corrupt")

// AppendBinary appends the encoded index to b.
func (ix *Index) AppendBinary(b []byte) []byte {
	w := ixWriter{b}
	w.uint(uint64(ix.nsets))
	w.ints(ix.owner)
	w.ints(ix.rank)
	w.ints(ix.order)
	for si := 0; si < ix.nsets; si++ {
		w.uint(uint64(len(ix.raws[si])))
		for _, s := range ix.raws[si] {
			w.str(s)
		}
		w.ints(ix.negs[si])
	}
	w.uint(uint64(len(ix.globs)))
	for i, m := range ix.globs {
		w.str(m.glob)
		w.uint(uint64(m.kind))
		if m.anchored {
			w.uint(1)
		} else {
			w.uint(0)
		}
		w.str(m.prefix)
		w.str(m.arg)
		w.uint(uint64(len(ix.refs[i])))
		for _, r := range ix.refs[i] {
			w.uint(uint64(r.set))
			w.uint(uint64(r.pat))
			w.uint(uint64(r.spec))
		}
	}
	w.bucket(ix.exact)
	w.node(&ix.root)
	w.ints(ix.all)
	w.bucket(ix.deepExt)
	w.bucket(ix.rootExt)
	w.ints(ix.noExt)
	w.bucket(ix.lastSeg)
	w.bucket(ix.anySeg)
	w.ints(ix.residual)
	return w.b
}

// DecodeIndex reads an index AppendBinary wrote; data must be exactly one
// encoded index whose owners are below owners. Every owner, set, glob and
// pattern number is checked against the sizes read, so a corrupt index is
// an error, never a panic at lookup.
func DecodeIndex(data string, owners int) (*Index, error) {
	r := ixReader{s: data}
	n := r.count()
	ix := &Index{nsets: n}
	ix.owner, ix.rank, ix.order = r.ints(owners), r.ints(n), r.ints(n)
	if len(ix.owner) != n || len(ix.rank) != n || len(ix.order) != n {
		return nil, errIndex
	}
	ix.raws = make([][]string, n)
	ix.negs = make([][]int32, n)
	for si := 0; si < n && r.err == nil; si++ {
		raws := make([]string, r.count())
		for i := range raws {
			raws[i] = r.str()
		}
		ix.raws[si] = raws
		ix.negs[si] = r.ints(-1) // checked against the glob count below
	}
	g := r.count()
	ix.globs = make([]matcher, g)
	ix.refs = make([][]ref, g)
	for i := 0; i < g && r.err == nil; i++ {
		m := &ix.globs[i]
		m.glob = r.str()
		m.kind = kind(r.uint())
		m.anchored = r.uint() == 1
		m.prefix = r.str()
		m.arg = r.str()
		if m.kind > kindAnySeg || (m.kind == kindGlob && !doublestar.ValidatePattern(m.glob)) {
			return nil, errIndex
		}
		refs := make([]ref, r.count())
		for k := range refs {
			refs[k] = ref{set: r.i32(n), pat: int32(r.uint()), spec: int32(r.uint())}
			if r.err == nil && int(refs[k].pat) >= len(ix.raws[refs[k].set]) {
				return nil, errIndex
			}
		}
		ix.refs[i] = refs
	}
	for _, negs := range ix.negs {
		for _, id := range negs {
			if int(id) < 0 || int(id) >= g {
				return nil, errIndex
			}
		}
	}
	ix.exact = r.bucket(g)
	r.node(&ix.root, g, 0)
	ix.all = r.ints(g)
	ix.deepExt = r.bucket(g)
	ix.rootExt = r.bucket(g)
	ix.noExt = r.ints(g)
	ix.lastSeg = r.bucket(g)
	ix.anySeg = r.bucket(g)
	ix.residual = r.ints(g)
	if r.err != nil || r.s != "" {
		return nil, errIndex
	}
	for r, si := range ix.order { // order and rank are inverse permutations
		if ix.rank[si] != int32(r) {
			return nil, errIndex
		}
	}
	ix.scratches.New = func() any { return newScratch(ix.nsets) }
	return ix, nil
}

type ixWriter struct{ b []byte }

func (w *ixWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *ixWriter) str(s string)  { w.uint(uint64(len(s))); w.b = append(w.b, s...) }
func (w *ixWriter) ints(xs []int32) {
	w.uint(uint64(len(xs)))
	for _, x := range xs {
		w.uint(uint64(uint32(x)))
	}
}

func (w *ixWriter) bucket(m map[string][]int32) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.uint(uint64(len(keys)))
	for _, k := range keys {
		w.str(k)
		w.ints(m[k])
	}
}

func (w *ixWriter) node(n *node) {
	w.ints(n.under)
	w.ints(n.tests)
	w.bucketNodes(n.children)
}

func (w *ixWriter) bucketNodes(m map[string]*node) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.uint(uint64(len(keys)))
	for _, k := range keys {
		w.str(k)
		w.node(m[k])
	}
}

type ixReader struct {
	s   string
	err error
}

func (r *ixReader) fail() { r.err, r.s = errIndex, "" }

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
	r.fail()
	return 0
}

// count reads a length that must fit in what is left.
func (r *ixReader) count() int {
	n := r.uint()
	if n > uint64(len(r.s)) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *ixReader) str() string {
	n := r.count()
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// i32 reads a number below limit (any when limit < 0).
func (r *ixReader) i32(limit int) int32 {
	v := r.uint()
	if v > 1<<31-1 || (limit >= 0 && v >= uint64(limit)) {
		r.fail()
		return 0
	}
	return int32(v)
}

func (r *ixReader) ints(limit int) []int32 {
	n := r.count()
	if n == 0 {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = r.i32(limit)
	}
	return out
}

func (r *ixReader) bucket(limit int) map[string][]int32 {
	n := r.count()
	m := make(map[string][]int32, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := r.str()
		m[k] = r.ints(limit)
	}
	return m
}

func (r *ixReader) node(n *node, limit, depth int) {
	if depth > 4096 {
		r.fail()
		return
	}
	n.under = r.ints(limit)
	n.tests = r.ints(limit)
	c := r.count()
	if c > 0 {
		n.children = make(map[string]*node, c)
	}
	for i := 0; i < c && r.err == nil; i++ {
		k := r.str()
		child := &node{}
		r.node(child, limit, depth+1)
		n.children[k] = child
	}
}
