package match

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// The stored index is the Index itself: a process that finds the knowledge
// base unchanged wraps the bytes of its snapshot instead of compiling every
// pattern again or building maps. Numbers are little-endian; each column
// of a record table is as wide (1 to 4 bytes) as its largest value needs,
// so every record of a table has one size and a lookup addresses it
// directly:
//
//	"KXI\x02"  (format 2 of this layout; an index of another layout does not decode)
//	header     per record table its record count (uint32), the heap's
//	           length (uint32), then per table and column its width (a byte)
//	sets       per set: owner, end of its patterns, end of its negations (cumulative)
//	patterns   per pattern: Raw as heap offset, length
//	negations  per negation: glob id
//	globs      per distinct glob: heap offset, length, literal prefix length,
//	           kind | anchored<<8, end of its refs (cumulative)
//	refs       per positive pattern, grouped by glob: set, pattern index, specificity
//	tables     per probe table, sorted by key: the key (keyOf) as heap offset,
//	           length, and the glob id
//	heap       the strings
//	padding    3 zero bytes: any column is read as one 4-byte load
//
// Decoding checks every count, width, offset and id against what it
// indexes, so a corrupt index is an error, never a panic at lookup; it
// allocates nothing per pattern. The tables' order is not re-checked: a
// wrong order can only give a wrong answer, and the snapshot's CRC guards
// the bytes.

var errIndex = errors.New("stored match index is truncated or corrupt")

const (
	ixMagic = "KXI\x02"
	// hdrBytes: the counts, the heap's length and the widths.
	hdrBytes = 4*(nrecs+1) + 3 + 2 + 1 + 5 + 3 + 3*ntabs
)

// AppendBinary appends the encoded index to b.
func (ix *Index) AppendBinary(b []byte) []byte { return append(b, ix.data...) }

// builder holds the compiled sets NewIndex encodes.
type builder struct {
	globs []matcher
	refs  [][]ref   // per glob: the positive patterns using it
	negs  [][]int32 // per set: its negative globs
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
		slices.SortStableFunc(tabs[t], func(x, y int32) int {
			return strings.Compare(keyOf(t, &b.globs[x]), keyOf(t, &b.globs[y]))
		})
	}
	// Each distinct string is stored once; a glob is usually its pattern's
	// Raw (or the Raw after its "!").
	var heap []byte
	at := map[string]uint32{}
	put := func(s string) (uint32, uint32) {
		off, ok := at[s]
		if !ok {
			off = uint32(len(heap))
			heap = append(heap, s...)
			at[s] = off
		}
		return off, uint32(len(s))
	}
	// The records as numbers first: a column's width is known only once
	// all its values are.
	var recs [nrecs][]uint32
	pe, ne := 0, 0
	for si := range sets {
		pe += len(sets[si].Patterns)
		ne += len(b.negs[si])
		recs[recSets] = append(recs[recSets], uint32(int32(sets[si].Owner)), uint32(pe), uint32(ne))
	}
	for si := range sets {
		for _, p := range sets[si].Patterns {
			off, n := put(p.Raw)
			recs[recPats] = append(recs[recPats], off, n)
		}
	}
	for si := range sets {
		for _, id := range b.negs[si] {
			recs[recNegs] = append(recs[recNegs], uint32(id))
		}
	}
	re := 0
	globOff := make([]uint32, len(b.globs))
	for id, m := range b.globs {
		neg, ok := at["!"+m.glob]
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
		recs[recGlobs] = append(recs[recGlobs], off, n, uint32(len(m.prefix)), uint32(m.kind)|anchored<<8, uint32(re))
	}
	for _, rs := range b.refs {
		for _, r := range rs {
			recs[recRefs] = append(recs[recRefs], uint32(r.set), uint32(r.pat), uint32(r.spec))
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
			recs[recTabs+t] = append(recs[recTabs+t], globOff[id]+uint32(at), uint32(len(k)), uint32(id))
		}
	}
	out := append(make([]byte, 0, hdrBytes+4*len(heap)), ixMagic...)
	for t := range recs {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(recs[t])/cols[t]))
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(heap)))
	var widths [nrecs][maxCols]int
	for t, vs := range recs {
		widths[t] = [maxCols]int{1, 1, 1, 1, 1}
		for i, v := range vs {
			c := i % cols[t]
			widths[t][c] = max(widths[t][c], (bits.Len32(v)+7)/8)
		}
		for c := range cols[t] {
			out = append(out, byte(widths[t][c]))
		}
	}
	for t, vs := range recs {
		for i, v := range vs {
			for k := range widths[t][i%cols[t]] {
				out = append(out, byte(v>>(8*k)))
			}
		}
	}
	return append(append(out, heap...), 0, 0, 0)
}

// DecodeIndex wraps an index AppendBinary wrote; data must be exactly one
// encoded index whose owners are below owners (any owner when owners < 0).
func DecodeIndex(data string, owners int) (*Index, error) {
	if len(data) < len(ixMagic)+hdrBytes || data[:len(ixMagic)] != ixMagic {
		return nil, errIndex
	}
	ix := &Index{data: data}
	o := uint64(len(ixMagic) + 4*(nrecs+1))
	ws := data[o:]
	o += uint64(hdrBytes - 4*(nrecs+1))
	for t := range ix.recs {
		r := &ix.recs[t]
		n := uint64(le32(data, len(ixMagic)+4*t))
		for c := range cols[t] {
			w := ws[0]
			if w < 1 || w > 4 {
				return nil, errIndex
			}
			r.at[c], r.w[c], r.mask[c] = uint8(r.size), w, ^uint32(0)>>(32-8*w)
			r.size += int(w)
			ws = ws[1:]
		}
		if n > uint64(len(data)) {
			return nil, errIndex
		}
		r.off, r.n = int(o), int(n)
		o += n * uint64(r.size)
	}
	heapLen := uint64(le32(data, len(ixMagic)+4*nrecs))
	ix.heap = int(o)
	if o+heapLen+3 != uint64(len(data)) || data[len(data)-3:] != "\x00\x00\x00" {
		return nil, errIndex
	}
	nsets, npats, nnegs, nglobs, nrefs := ix.recs[recSets].n, ix.recs[recPats].n, ix.recs[recNegs].n, ix.recs[recGlobs].n, ix.recs[recRefs].n
	ix.nsets, ix.nglobs = nsets, nglobs
	inHeap := func(off, n uint32) bool { return uint64(off)+uint64(n) <= heapLen }
	sets, pats, negs, globs, refs := &ix.recs[recSets], &ix.recs[recPats], &ix.recs[recNegs], &ix.recs[recGlobs], &ix.recs[recRefs]

	var pe, ne uint32
	for si := range nsets {
		owner := int32(sets.col(data, si, 0))
		p, n := sets.col(data, si, 1), sets.col(data, si, 2)
		if (owners >= 0 && (owner < 0 || int(owner) >= owners)) || p < pe || n < ne {
			return nil, errIndex
		}
		pe, ne = p, n
	}
	if int(pe) != npats || int(ne) != nnegs {
		return nil, errIndex
	}
	for i := range npats {
		if !inHeap(pats.col(data, i, 0), pats.col(data, i, 1)) {
			return nil, errIndex
		}
	}
	var re uint32
	for id := range nglobs {
		off, n, pl, ka, end := globs.col(data, id, 0), globs.col(data, id, 1), globs.col(data, id, 2), globs.col(data, id, 3), globs.col(data, id, 4)
		k, anchored := kind(ka&0xff), ka>>8
		if !inHeap(off, n) || k > kindAnySeg || anchored > 1 || end < re {
			return nil, errIndex
		}
		re = end
		tail := n
		switch {
		case anchored == 1 && pl < n:
			tail = n - pl - 1
		case anchored == 1 || pl != 0:
			return nil, errIndex
		}
		if tail < minTail[k] || (k == kindGlob && !doublestar.ValidatePattern(ix.str(off, n))) {
			return nil, errIndex
		}
	}
	if int(re) != nrefs {
		return nil, errIndex
	}
	for i := range nrefs {
		set, pat, spec := refs.col(data, i, 0), refs.col(data, i, 1), refs.col(data, i, 2)
		if int(set) >= nsets || spec > 1<<31-1 {
			return nil, errIndex
		}
		start, end := ix.span(recSets, 1, int32(set))
		if int(pat) >= end-start {
			return nil, errIndex
		}
	}
	for i := range nnegs {
		id := int(negs.col(data, i, 0))
		if id >= nglobs {
			return nil, errIndex
		}
		// A negative glob is never a positive one: it has no refs.
		if start, end := ix.span(recGlobs, 4, int32(id)); start != end {
			return nil, errIndex
		}
	}
	for t := range ntabs {
		tab := &ix.recs[recTabs+t]
		for i := range tab.n {
			if !inHeap(tab.col(data, i, 0), tab.col(data, i, 1)) || int(tab.col(data, i, 2)) >= nglobs {
				return nil, errIndex
			}
		}
	}
	ix.scratches.New = func() any { return newScratch(ix.nsets) }
	return ix, nil
}

// minTail is, per kind, the shortest tail (the glob after its prefix and
// "/") its arg is cut from (Index.matcher): "**/*", "**/" "/**", "**/", "*".
var minTail = [...]uint32{kindDeepSuffix: 4, kindAnySeg: 6, kindLastSeg: 3, kindSuffix: 1}
