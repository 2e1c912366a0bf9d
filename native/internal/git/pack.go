package git

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
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
	cache    objCache
	mapped   map[string]bool      // idx paths tried, mapped or not
	dirMtime map[string]time.Time // of each pack directory at its last listing
}

type pack struct {
	data    []byte // the .pack
	names   []byte // idx: sorted object ids, 20 bytes each
	fanout  []byte
	offsets []byte
	large   []byte
	n       int
}

type deltaFrame struct {
	off   int64
	delta []byte
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
// just read. Two generations bound the memory.
type objCache struct {
	cur, old  map[packKey]packObj
	size, max int
}

func (c *objCache) get(k packKey) (packObj, bool) {
	if o, ok := c.cur[k]; ok {
		return o, true
	}
	if o, ok := c.old[k]; ok {
		c.put(k, o)
		return o, true
	}
	return packObj{}, false
}

func (c *objCache) put(k packKey, o packObj) {
	if len(o.data) > c.max/4 {
		return // a huge blob would evict everything for one use
	}
	if c.cur == nil || c.size+len(o.data) > c.max {
		c.old, c.cur, c.size = c.cur, map[packKey]packObj{}, 0
	}
	c.cur[k] = o
	c.size += len(o.data)
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
func (p *pack) find(h plumbing.Hash) (int64, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(p.fanout[(int(h[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(p.fanout[int(h[0])*4:]))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
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
	defer func() { s.chain = chain[:0] }()
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
			data, err := s.inflate(p.data[pos:], size)
			if err != nil {
				return packObj{}, err
			}
			base = packObj{typ, data}
			s.cache.put(packKey{p, off}, base)
		case plumbing.OFSDeltaObject:
			rel, n := ofsDeltaOffset(p.data[pos:])
			if n == 0 || rel <= 0 || rel > off {
				return packObj{}, errBadPack
			}
			delta, err := s.inflate(p.data[pos+n:], size)
			if err != nil {
				return packObj{}, err
			}
			chain = append(chain, deltaFrame{off, delta})
			off -= rel
			continue
		case plumbing.REFDeltaObject:
			if pos+20 > int64(len(p.data)) {
				return packObj{}, errBadPack
			}
			var bh plumbing.Hash
			copy(bh[:], p.data[pos:pos+20])
			delta, err := s.inflate(p.data[pos+20:], size)
			if err != nil {
				return packObj{}, err
			}
			chain = append(chain, deltaFrame{off, delta})
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
		data, err := applyDelta(base.data, chain[i].delta)
		if err != nil {
			return packObj{}, err
		}
		base = packObj{base.typ, data}
		s.cache.put(packKey{p, chain[i].off}, base)
	}
	return base, nil
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

// inflate decompresses size bytes of zlib data, reusing one decompressor.
func (s *packSet) inflate(src []byte, size int) ([]byte, error) {
	s.br.Reset(src)
	var err error
	if s.zr == nil {
		s.zr, err = zlib.NewReader(&s.br)
	} else {
		err = s.zr.(zlib.Resetter).Reset(&s.br, nil)
	}
	if err != nil {
		return nil, err
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(s.zr, out); err != nil {
		return nil, err
	}
	return out, nil
}

// applyDelta applies a git delta (copy and insert instructions) to base.
func applyDelta(base, delta []byte) ([]byte, error) {
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
	out := make([]byte, 0, dstSize)
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
