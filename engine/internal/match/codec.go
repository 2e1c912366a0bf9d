package match

import (
	"encoding/binary"
	"errors"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// The stored index is the Index itself: a process that finds the knowledge
// base unchanged wraps the bytes of its snapshot instead of compiling every
// pattern again or building maps. All numbers are little-endian uint32:
//
//	"KXI\x01"  (format 1 of this layout; an index of another layout does not decode)
//	header     sets, patterns, negations, globs, refs, the 7 probe table lengths, heap bytes
//	sets       per set: owner, end of its patterns, end of its negations (cumulative)
//	patterns   per pattern: Raw as heap offset, length
//	negations  per negation: glob id
//	globs      per distinct glob: heap offset, length, literal prefix length,
//	           kind | anchored<<8, end of its refs (cumulative)
//	refs       per positive pattern, grouped by glob: set, pattern index, specificity
//	tables     per probe table, sorted by key: the key (keyOf) as heap offset,
//	           length, and the glob id
//	heap       the strings
//
// Decoding checks every count, offset and id against what it indexes, so a
// corrupt index is an error, never a panic at lookup; it allocates nothing
// per pattern. The tables' order is not re-checked: a wrong order can only
// give a wrong answer, and the snapshot's CRC guards the bytes.

var errIndex = errors.New("stored match index is truncated or corrupt")

const (
	ixMagic   = "KXI\x01"
	hdrWords  = 5 + ntabs + 1
	setBytes  = 12
	patBytes  = 8
	globBytes = 20
	refBytes  = 12
	tabBytes  = 12
)

// AppendBinary appends the encoded index to b.
func (ix *Index) AppendBinary(b []byte) []byte { return append(b, ix.data...) }

// BinarySize is how many bytes AppendBinary appends.
func (ix *Index) BinarySize() int { return len(ix.data) }

// Encoded is the encoded index as a string (what AppendBinary appends),
// without a copy.
func (ix *Index) Encoded() string { return ix.data }

// builder holds the compiled sets NewIndex encodes.
type builder struct {
	globs []matcher
	refs  [][]ref   // per glob: the positive patterns using it
	negs  [][]int32 // per set: its negative globs
	raw   int       // the patterns' bytes: about the heap's size
}

func (b *builder) encode(sets []Set) []byte {
	var tabs [ntabs][]int32
	for id := range b.globs {
		if len(b.refs[id]) > 0 {
			if t := tableOf(&b.globs[id]); t >= 0 {
				tabs[t] = append(tabs[t], int32(id))
			}
		}
	}
	for t := range tabs {
		// Ids break ties, as a stable sort of the increasing ids would.
		ids := tabs[t]
		sort.Slice(ids, func(i, j int) bool {
			if c := strings.Compare(keyOf(t, &b.globs[ids[i]]), keyOf(t, &b.globs[ids[j]])); c != 0 {
				return c < 0
			}
			return ids[i] < ids[j]
		})
	}
	npats, nnegs, nrefs := 0, 0, 0
	for si := range sets {
		npats += len(sets[si].Patterns)
		nnegs += len(b.negs[si])
	}
	for _, rs := range b.refs {
		nrefs += len(rs)
	}
	// Each distinct string is stored once; a glob is usually its pattern's
	// Raw (or the Raw after its "!"), so the patterns' bytes bound the
	// heap nearly always.
	heap := make([]byte, 0, b.raw)
	at := make(map[string]uint32, npats)
	put := func(s string) (uint32, uint32) {
		off, ok := at[s]
		if !ok {
			off = uint32(len(heap))
			heap = append(heap, s...)
			at[s] = off
		}
		return off, uint32(len(s))
	}
	out := make([]byte, 0, len(ixMagic)+4*hdrWords+setBytes*len(sets)+patBytes*npats+4*nnegs+globBytes*len(b.globs)+refBytes*nrefs+tabBytes*len(b.globs)+b.raw)
	out = append(out, ixMagic...)
	out = words(out, uint32(len(sets)), uint32(npats), uint32(nnegs), uint32(len(b.globs)), uint32(nrefs))
	for _, t := range tabs {
		out = words(out, uint32(len(t)))
	}
	heapAt := len(out)
	out = words(out, 0) // the heap's length, filled in at the end
	pe, ne := 0, 0
	for si := range sets {
		pe += len(sets[si].Patterns)
		ne += len(b.negs[si])
		out = words(out, uint32(int32(sets[si].Owner)), uint32(pe), uint32(ne))
	}
	for si := range sets {
		for _, p := range sets[si].Patterns {
			off, n := put(p.Raw)
			out = words(out, off, n)
		}
	}
	for si := range sets {
		for _, id := range b.negs[si] {
			out = words(out, uint32(id))
		}
	}
	re := 0
	globOff := make([]uint32, len(b.globs))
	for id, m := range b.globs {
		var neg uint32
		ok := false
		if nnegs > 0 { // else no Raw starts with "!"
			neg, ok = at["!"+m.glob]
		}
		off, n := neg+1, uint32(len(m.glob)) // the negation's Raw after its "!"
		if !ok {
			off, n = put(m.glob)
		}
		globOff[id] = off
		anchored := uint32(0)
		if m.anchored {
			anchored = 1
		}
		re += len(b.refs[id])
		out = words(out, off, n, uint32(len(m.prefix)), uint32(m.kind)|anchored<<8, uint32(re))
	}
	for _, rs := range b.refs {
		for _, r := range rs {
			out = words(out, uint32(r.set), uint32(r.pat), uint32(r.spec))
		}
	}
	for t, ids := range tabs {
		for _, id := range ids {
			// Every key is a substring of its glob (keyOf).
			m := &b.globs[id]
			k := keyOf(t, m)
			at := strings.Index(m.glob, k)
			if t == tabDeepExt || t == tabRootExt || t == tabLastSeg {
				at = len(m.glob) - len(k) // a suffix
			}
			out = words(out, globOff[id]+uint32(at), uint32(len(k)), uint32(id))
		}
	}
	binary.LittleEndian.PutUint32(out[heapAt:], uint32(len(heap)))
	return append(out, heap...)
}

// words appends vs little-endian. (Not inlined: one copy of the loop
// keeps the WASM engine small.)
//
//go:noinline
func words(b []byte, vs ...uint32) []byte {
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// DecodeIndex wraps an index AppendBinary wrote; data must be exactly one
// encoded index whose owners are below owners (any owner when owners < 0).
func DecodeIndex(data string, owners int) (*Index, error) {
	if len(data) < len(ixMagic)+4*hdrWords || data[:len(ixMagic)] != ixMagic {
		return nil, errIndex
	}
	ix := &Index{data: data}
	var h [hdrWords]uint64
	for i := range h {
		h[i] = uint64(le32(data, len(ixMagic)+4*i))
	}
	nsets, npats, nnegs, nglobs, nrefs, heapLen := h[0], h[1], h[2], h[3], h[4], h[hdrWords-1]
	o := uint64(len(ixMagic) + 4*hdrWords)
	at := func(n, size uint64) int { start := o; o += n * size; return int(start) }
	ix.sets, ix.pats, ix.negs = at(nsets, setBytes), at(npats, patBytes), at(nnegs, 4)
	ix.globs, ix.rf = at(nglobs, globBytes), at(nrefs, refBytes)
	for t := range ix.tabs {
		ix.tabs[t] = table{off: at(h[5+t], tabBytes), n: int(h[5+t])}
	}
	ix.heap = at(heapLen, 1)
	if o != uint64(len(data)) {
		return nil, errIndex
	}
	ix.nsets, ix.nglobs = int(nsets), int(nglobs)
	// Each table is checked by a function of its own: in WASM a loop
	// inlined here would charge V8's tiering budget at DecodeIndex's size
	// for every row (docs/architecture.md, "V8's tiers").
	if !ix.rowsValid(owners, npats, nnegs, nrefs, heapLen) || !ix.globsValid(nrefs, heapLen) {
		return nil, errIndex
	}
	ix.scratches.New = func() any { return newScratch(ix.nsets) }
	return ix, nil
}

// rowsValid checks the sets (owners; pattern and negation ends increasing
// up to npats and nnegs), that each pattern's text and each table key lie
// in the heap, that each ref names a set and one of its patterns, each
// negation a glob with no refs, and each table row a glob.
//
//go:noinline
func (ix *Index) rowsValid(owners int, npats, nnegs, nrefs, heapLen uint64) bool {
	data, nglobs := ix.data, uint64(ix.nglobs)
	var pe, ne uint32
	for si := range ix.nsets {
		owner := int32(le32(data, ix.sets+si*setBytes))
		p, n := le32(data, ix.sets+si*setBytes+4), le32(data, ix.sets+si*setBytes+8)
		if (owners >= 0 && (owner < 0 || int(owner) >= owners)) || p < pe || n < ne {
			return false
		}
		pe, ne = p, n
	}
	if uint64(pe) != npats || uint64(ne) != nnegs {
		return false
	}
	for i := range int(npats) {
		if !inHeap(le32(data, ix.pats+i*patBytes), le32(data, ix.pats+i*patBytes+4), heapLen) {
			return false
		}
	}
	for i := range int(nrefs) {
		r := ix.rf + i*refBytes
		set, pat, spec := le32(data, r), le32(data, r+4), le32(data, r+8)
		if set >= uint32(ix.nsets) || spec > 1<<31-1 {
			return false
		}
		end := le32(data, ix.sets+int(set)*setBytes+4)
		start := uint32(0)
		if set > 0 {
			start = le32(data, ix.sets+int(set-1)*setBytes+4)
		}
		if pat >= end-start {
			return false
		}
	}
	for i := range int(nnegs) {
		id := int(le32(data, ix.negs+i*4))
		if uint64(id) >= nglobs {
			return false
		}
		// A negative glob is never a positive one: it has no refs.
		if end := le32(data, ix.globs+id*globBytes+16); id == 0 && end != 0 || id > 0 && end != le32(data, ix.globs+(id-1)*globBytes+16) {
			return false
		}
	}
	for t := range ix.tabs {
		for i := range ix.tabs[t].n {
			o := ix.tabs[t].off + i*tabBytes
			if !inHeap(le32(data, o), le32(data, o+4), heapLen) || uint64(le32(data, o+8)) >= nglobs {
				return false
			}
		}
	}
	return true
}

// inHeap reports whether n bytes at off lie in a heap of heapLen bytes.
func inHeap(off, n uint32, heapLen uint64) bool { return uint64(off)+uint64(n) <= heapLen }

// globsValid checks each glob: its text in the heap, its kind, its anchor
// and prefix, a tail its kind can match, and ref ends increasing to nrefs.
//
//go:noinline
func (ix *Index) globsValid(nrefs, heapLen uint64) bool {
	data := ix.data
	var re uint32
	for id := range ix.nglobs {
		g := ix.globs + id*globBytes
		off, n, pl, ka, end := le32(data, g), le32(data, g+4), le32(data, g+8), le32(data, g+12), le32(data, g+16)
		k, anchored := kind(ka&0xff), ka>>8
		if !inHeap(off, n, heapLen) || k > kindAnySeg || anchored > 1 || end < re {
			return false
		}
		re = end
		tail := n
		switch {
		case anchored == 1 && pl < n:
			tail = n - pl - 1
		case anchored == 1 || pl != 0:
			return false
		}
		if tail < minTail[k] || (k == kindGlob && !doublestar.ValidatePattern(ix.str(off, n))) {
			return false
		}
	}
	return uint64(re) == nrefs
}

// minTail is, per kind, the shortest tail (the glob after its prefix and
// "/") its arg is cut from (Index.matcher): "**/*", "**/" "/**", "**/", "*".
var minTail = [...]uint32{kindDeepSuffix: 4, kindAnySeg: 6, kindLastSeg: 3, kindSuffix: 1}
