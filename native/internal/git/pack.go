package git

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// packSet reads objects straight from memory-mapped pack files. go-git's
// packfile reader costs a seek and buffered reads (system calls) per
// object, hashes every object it caches and allocates readers per call:
// on a 10,000-commit walk that was three quarters of the time. This reader
// does only what a walk needs: look the id up in the .idx, inflate, and
// apply delta chains with a cache of resolved objects. Loose objects are
// read by Objects (loose.go).
type packSet struct {
	packs    []*pack
	unmaps   []func()
	zr       io.ReadCloser
	br       bytes.Reader
	chain    []deltaFrame
	deltas   []byte // the inflated deltas of the chains being resolved
	slab     []byte // the free rest of the memory objects are inflated into
	slabs    int    // slabs allocated
	cache    objCache
	mapped   map[string]bool      // idx paths tried, mapped or not
	dirMtime map[string]time.Time // of each pack directory at its last listing
}

type pack struct {
	id      int    // position in the packSet, for the cache's hash
	data    []byte // the .pack
	names   []byte // idx: sorted object ids, 20 bytes each
	fanout  []byte
	offsets []byte
	large   []byte
	n       int
}

type deltaFrame struct {
	off        int64
	start, end int // the inflated delta: s.deltas[start:end]
}

type packKey struct {
	p   *pack
	off int64
}

type packObj struct {
	typ  plumbing.ObjectType
	data []byte
}

// objCache keeps resolved objects by pack position: git stores the newest
// version of an object whole and older ones as deltas against it, so a
// walk from the newest commit resolves most deltas against objects it has
// just read. Two generations bound the memory; when the current one is
// full, the older one's memory is cleared and reused as the new current.
//
// A generation is an open-addressing table of indexes into entries kept in
// fixed-size chunks, not a Go map: a map of tens of thousands of entries
// costs several times the memory (buckets, and the tables it outgrows),
// and a short call does not collect garbage, so every byte of it is a
// fresh page to fault in.
type objCache struct {
	cur, old cacheGen
	max      int
}

type cacheGen struct {
	slots  []int32 // 1 + entry index, 0 when empty; a power of two long
	chunks [][]cacheEnt
	n      int // entries
	size   int // bytes of object data
}

type cacheEnt struct {
	key packKey
	obj packObj
}

const (
	cacheChunk     = 512 // entries per chunk (24 KiB)
	cacheSlotsInit = 1024
)

func (c *objCache) get(k packKey) (packObj, bool) {
	if o, ok := c.cur.get(k); ok {
		return o, true
	}
	if o, ok := c.old.get(k); ok {
		c.put(k, o)
		return o, true
	}
	return packObj{}, false
}

func (c *objCache) put(k packKey, o packObj) {
	if len(o.data) > c.max/4 {
		return // a huge blob would evict everything for one use
	}
	if c.cur.size+len(o.data) > c.max {
		c.old, c.cur = c.cur, c.old
		c.cur.reset()
	}
	c.cur.put(k, o)
}

// slot is where k's probe sequence starts.
func (g *cacheGen) slot(k packKey) int {
	h := uint64(k.off)*0x9e3779b97f4a7c15 ^ uint64(k.p.id)*0xc2b2ae3d27d4eb4f
	return int(h>>32) & (len(g.slots) - 1)
}

func (g *cacheGen) ent(i int32) *cacheEnt { return &g.chunks[i/cacheChunk][i%cacheChunk] }

func (g *cacheGen) get(k packKey) (packObj, bool) {
	if g.n == 0 {
		return packObj{}, false
	}
	for i := g.slot(k); ; i = (i + 1) & (len(g.slots) - 1) {
		s := g.slots[i]
		if s == 0 {
			return packObj{}, false
		}
		if e := g.ent(s - 1); e.key == k {
			return e.obj, true
		}
	}
}

// put adds k (not yet in g: callers put what get did not find).
func (g *cacheGen) put(k packKey, o packObj) {
	if 2*(g.n+1) > len(g.slots) {
		g.grow()
	}
	i := int32(g.n)
	if int(i)/cacheChunk == len(g.chunks) {
		g.chunks = append(g.chunks, make([]cacheEnt, cacheChunk))
	}
	*g.ent(i) = cacheEnt{k, o}
	g.n++
	g.size += len(o.data)
	g.insert(k, i)
}

func (g *cacheGen) insert(k packKey, i int32) {
	j := g.slot(k)
	for g.slots[j] != 0 {
		j = (j + 1) & (len(g.slots) - 1)
	}
	g.slots[j] = i + 1
}

// grow doubles the slots and inserts every entry again.
func (g *cacheGen) grow() {
	g.slots = make([]int32, max(cacheSlotsInit, 2*len(g.slots)))
	for i := 0; i < g.n; i++ {
		g.insert(g.ent(int32(i)).key, int32(i))
	}
}

// reset empties g, keeping its memory; entries are cleared so that the
// objects they held can be collected.
func (g *cacheGen) reset() {
	clear(g.slots)
	for _, c := range g.chunks {
		clear(c)
	}
	g.n, g.size = 0, 0
}

// openPacks maps every pack of the object directories dirs (the
// repository's, then its alternates').
func openPacks(dirs []string) *packSet {
	s := &packSet{cache: objCache{max: 32 << 20}, mapped: map[string]bool{}, dirMtime: map[string]time.Time{}}
	s.refresh(dirs)
	return s
}

// refresh maps the packs that appeared since the last call (a fetch or gc
// in a long-lived process); it reports whether it mapped any. Packs it
// cannot read are skipped; packs already mapped stay mapped (their
// objects never change, even when gc deletes the file).
func (s *packSet) refresh(dirs []string) bool {
	added := false
	for _, objects := range dirs {
		dir := filepath.Join(objects, "pack")
		// A miss in a shallow or partial clone is common: list the directory
		// only when it changed since the last listing.
		fi, err := os.Stat(dir)
		if err != nil || fi.ModTime().Equal(s.dirMtime[dir]) {
			continue
		}
		s.dirMtime[dir] = fi.ModTime()
		idxs, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
		for _, ip := range idxs {
			if s.mapped[ip] {
				continue
			}
			s.mapped[ip] = true
			p, unmap, err := openPack(ip)
			if err != nil {
				continue
			}
			p.id = len(s.packs)
			s.packs = append(s.packs, p)
			s.unmaps = append(s.unmaps, unmap...)
			added = true
		}
	}
	return added
}

func openPack(idxPath string) (*pack, []func(), error) {
	idx, unmapIdx, err := mapFile(idxPath)
	if err != nil {
		return nil, nil, err
	}
	bad := func() (*pack, []func(), error) {
		unmapIdx()
		return nil, nil, errors.New("unsupported pack index")
	}
	var p *pack
	switch {
	case len(idx) >= 8+1024 && string(idx[:4]) == "\xfftOc" && binary.BigEndian.Uint32(idx[4:]) == 2:
		p = &pack{fanout: idx[8 : 8+1024]}
		p.n = int(binary.BigEndian.Uint32(p.fanout[255*4:]))
		at := 8 + 1024
		if len(idx) < at+p.n*(20+4+4)+40 {
			return bad()
		}
		p.names = idx[at : at+p.n*20]
		at += p.n*20 + p.n*4 // names, then CRCs
		p.offsets = idx[at : at+p.n*4]
		at += p.n * 4
		p.large = idx[at : len(idx)-40]
	case len(idx) >= 1024 && string(idx[:4]) != "\xfftOc":
		if p = idxV1(idx); p == nil {
			return bad()
		}
	default:
		return bad()
	}
	data, unmapPack, err := mapFile(strings.TrimSuffix(idxPath, ".idx") + ".pack")
	if err != nil {
		return bad()
	}
	if len(data) < 12 || string(data[:4]) != "PACK" {
		unmapPack()
		return bad()
	}
	p.data = data
	return p, []func(){unmapIdx, unmapPack}, nil
}

// idxV1 reads a version-1 pack index (git before 1.5.2 wrote them: no
// header, each id after its 4-byte offset) into the version-2 layout the
// lookups use. It copies the ids and offsets; such packs are rare.
func idxV1(idx []byte) *pack {
	p := &pack{fanout: idx[:1024]}
	p.n = int(binary.BigEndian.Uint32(p.fanout[255*4:]))
	at := 1024
	if len(idx) < at+p.n*24+40 {
		return nil
	}
	names, offsets := make([]byte, 0, p.n*20), make([]byte, 0, p.n*4)
	for i := 0; i < p.n; i++ {
		rec := idx[at+i*24 : at+i*24+24]
		offsets = append(offsets, rec[:4]...)
		names = append(names, rec[4:]...)
	}
	p.names, p.offsets = names, offsets
	return p
}

func (s *packSet) close() {
	for _, f := range s.unmaps {
		f()
	}
	s.packs, s.unmaps, s.mapped, s.dirMtime = nil, nil, map[string]bool{}, map[string]time.Time{}
}

// find returns the offset of h in p.
//
// Object ids are uniformly distributed, so the search interpolates: the
// first probes go where h's next eight bytes say it lies between the
// bounds' ids, which finds it in two or three probes where a binary search
// takes a dozen, each touching another part of an index that can be
// hundreds of megabytes. After a few probes it bisects, so ids that are
// not uniform cost at most a binary search more.
func (p *pack) find(h plumbing.Hash) (int64, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(p.fanout[(int(h[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(p.fanout[int(h[0])*4:]))
	key := binary.BigEndian.Uint64(h[1:9])
	for probe := 0; lo < hi; probe++ {
		m := int(uint(lo+hi) >> 1)
		if probe < 4 && hi-lo > 16 {
			m = p.interpolate(lo, hi, key)
		}
		switch c := bytes.Compare(p.names[m*20:m*20+20], h[:]); {
		case c == 0:
			off := binary.BigEndian.Uint32(p.offsets[m*4:])
			if off&0x80000000 == 0 {
				return int64(off), true
			}
			i := int(off&0x7fffffff) * 8
			if i+8 > len(p.large) {
				return 0, false
			}
			return int64(binary.BigEndian.Uint64(p.large[i:])), true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0, false
}

// interpolate guesses where key (bytes 1–8 of an id whose first byte the
// fanout fixed) lies in p.names[lo:hi], hi-lo > 1.
func (p *pack) interpolate(lo, hi int, key uint64) int {
	a := binary.BigEndian.Uint64(p.names[lo*20+1:])
	b := binary.BigEndian.Uint64(p.names[(hi-1)*20+1:])
	switch {
	case key <= a:
		return lo
	case key >= b:
		return hi - 1
	}
	return lo + int(float64(key-a)/float64(b-a)*float64(hi-1-lo))
}

var errBadPack = errors.New("malformed pack object")

// read returns object h; found is false when no mapped pack has it.
func (s *packSet) read(h plumbing.Hash) (o packObj, found bool, err error) {
	for _, p := range s.packs {
		if off, ok := p.find(h); ok {
			o, err := s.at(p, off)
			return o, true, err
		}
	}
	return packObj{}, false, nil
}

// at resolves the object at off: it follows the delta chain down to a
// cached or whole object, then applies the deltas back up, caching each
// result (each is the base of the next).
func (s *packSet) at(p *pack, off int64) (packObj, error) {
	chain := s.chain[:0]
	// Deltas are inflated into s.deltas after what an outer call (a thin
	// base being resolved) holds there, and dropped when applied: only the
	// results are kept, so the deltas cost no memory per object.
	mark := len(s.deltas)
	defer func() {
		s.chain = chain[:0]
		s.deltas = s.deltas[:mark]
		if mark == 0 && cap(s.deltas) > maxDeltaScratch {
			s.deltas = nil // one huge delta is not kept for the whole walk
		}
	}()
	var base packObj
	for {
		if o, ok := s.cache.get(packKey{p, off}); ok {
			base = o
			break
		}
		typ, size, pos, err := objectHeader(p.data, off)
		if err != nil {
			return packObj{}, err
		}
		switch typ {
		case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
			data := s.alloc(size)
			if err := s.inflate(data, p.data[pos:]); err != nil {
				return packObj{}, err
			}
			base = packObj{typ, data}
			s.cache.put(packKey{p, off}, base)
		case plumbing.OFSDeltaObject:
			rel, n := ofsDeltaOffset(p.data[pos:])
			if n == 0 || rel <= 0 || rel > off {
				return packObj{}, errBadPack
			}
			f, err := s.inflateDelta(off, p.data[pos+n:], size)
			if err != nil {
				return packObj{}, err
			}
			chain = append(chain, f)
			off -= rel
			continue
		case plumbing.REFDeltaObject:
			if pos+20 > int64(len(p.data)) {
				return packObj{}, errBadPack
			}
			var bh plumbing.Hash
			copy(bh[:], p.data[pos:pos+20])
			f, err := s.inflateDelta(off, p.data[pos+20:], size)
			if err != nil {
				return packObj{}, err
			}
			chain = append(chain, f)
			if boff, ok := p.find(bh); ok {
				off = boff
				continue
			}
			// A thin base in another pack: resolve it separately.
			saved := chain
			s.chain = nil
			o, found, err := s.read(bh)
			chain = saved
			if err != nil {
				return packObj{}, err
			}
			if !found {
				return packObj{}, plumbing.ErrObjectNotFound
			}
			base = o
		default:
			return packObj{}, errBadPack
		}
		break
	}
	for i := len(chain) - 1; i >= 0; i-- {
		data, err := applyDelta(base.data, s.deltas[chain[i].start:chain[i].end], s.alloc)
		if err != nil {
			return packObj{}, err
		}
		base = packObj{base.typ, data}
		s.cache.put(packKey{p, chain[i].off}, base)
	}
	return base, nil
}

// Objects are inflated into slabs, each object's slice capped at its
// length. A history walk inflates tens of megabytes of small trees; as one
// allocation each they are as many fresh heap pages, faulted in one by one
// (a short call collects no garbage, so none are reused), and faults are
// most of such a walk's time on a VM. The first slab is small, for the
// many calls that read a few objects; later ones are slabSize bytes
// advised to be backed by huge pages (newSlab): a few faults instead of
// thousands. Objects larger than slabObjMax get their own allocation. An
// object keeps its whole slab alive; the caches drop objects by
// generations, so slabs die with them.
const (
	firstSlab  = 256 << 10
	slabSize   = 4 << 20
	slabObjMax = 64 << 10
)

// alloc returns n bytes for an object.
func (s *packSet) alloc(n int) []byte {
	switch {
	case n == 0:
		return []byte{}
	case n > slabObjMax:
		return make([]byte, n)
	}
	if len(s.slab) < n {
		if s.slabs == 0 {
			s.slab = make([]byte, firstSlab)
		} else {
			s.slab = newSlab()
		}
		s.slabs++
	}
	b := s.slab[:n:n]
	s.slab = s.slab[n:]
	return b
}

// maxDeltaScratch is the most delta scratch kept between reads.
const maxDeltaScratch = 1 << 20

// inflateDelta inflates the size-byte delta of the object at off into
// s.deltas.
func (s *packSet) inflateDelta(off int64, src []byte, size int) (deltaFrame, error) {
	start := len(s.deltas)
	s.deltas = slices.Grow(s.deltas, size)[:start+size]
	if err := s.inflate(s.deltas[start:], src); err != nil {
		return deltaFrame{}, err
	}
	return deltaFrame{off, start, start + size}, nil
}

// objectHeader parses the type and size at off and returns where the data
// (or the delta's base reference) starts.
func objectHeader(d []byte, off int64) (plumbing.ObjectType, int, int64, error) {
	if off < 12 || off >= int64(len(d)) {
		return 0, 0, 0, errBadPack
	}
	c := d[off]
	typ := plumbing.ObjectType((c >> 4) & 7)
	size := int(c & 15)
	shift := 4
	pos := off + 1
	for c&0x80 != 0 {
		if pos >= int64(len(d)) || shift > 56 {
			return 0, 0, 0, errBadPack
		}
		c = d[pos]
		pos++
		size |= int(c&0x7f) << shift
		shift += 7
	}
	return typ, size, pos, nil
}

// ofsDeltaOffset decodes git's offset encoding of an OFS_DELTA base.
func ofsDeltaOffset(d []byte) (int64, int64) {
	var rel int64
	for i := 0; i < len(d) && i < 10; i++ {
		c := d[i]
		if i == 0 {
			rel = int64(c & 0x7f)
		} else {
			rel = ((rel + 1) << 7) | int64(c&0x7f)
		}
		if c&0x80 == 0 {
			return rel, int64(i + 1)
		}
	}
	return 0, 0
}

// inflate decompresses len(dst) bytes of zlib data into dst, reusing one
// decompressor.
func (s *packSet) inflate(dst, src []byte) error {
	s.br.Reset(src)
	var err error
	if s.zr == nil {
		s.zr, err = zlib.NewReader(&s.br)
	} else {
		err = s.zr.(zlib.Resetter).Reset(&s.br, nil)
	}
	if err != nil {
		return err
	}
	_, err = io.ReadFull(s.zr, dst)
	return err
}

// applyDelta applies a git delta (copy and insert instructions) to base,
// into memory from alloc.
func applyDelta(base, delta []byte, alloc func(int) []byte) ([]byte, error) {
	srcSize, n := binary.Uvarint(delta)
	if n <= 0 || srcSize != uint64(len(base)) {
		return nil, errBadPack
	}
	delta = delta[n:]
	dstSize, n := binary.Uvarint(delta)
	if n <= 0 || dstSize > 1<<32 {
		return nil, errBadPack
	}
	delta = delta[n:]
	out := alloc(int(dstSize))[:0]
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0:
			var off, sz uint64
			for i := uint(0); i < 4; i++ {
				if op&(1<<i) != 0 {
					if len(delta) == 0 {
						return nil, errBadPack
					}
					off |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := uint(0); i < 3; i++ {
				if op&(0x10<<i) != 0 {
					if len(delta) == 0 {
						return nil, errBadPack
					}
					sz |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if sz == 0 {
				sz = 0x10000
			}
			if off+sz > uint64(len(base)) {
				return nil, errBadPack
			}
			out = append(out, base[off:off+sz]...)
		case op != 0:
			if int(op) > len(delta) {
				return nil, errBadPack
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		default:
			return nil, errBadPack
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, errBadPack
	}
	return out, nil
}
