package git

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// fakeIndex builds a pack index over ids (sorted here): the offset of the
// i-th id in sorted order is 12 + i.
func fakeIndex(ids []plumbing.Hash) *pack {
	slices.SortFunc(ids, func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) })
	ids = slices.CompactFunc(ids, func(a, b plumbing.Hash) bool { return a == b })
	p := &pack{fanout: make([]byte, 256*4), n: len(ids)}
	for i, h := range ids {
		p.names = append(p.names, h[:]...)
		p.offsets = binary.BigEndian.AppendUint32(p.offsets, uint32(12+i))
		for b := int(h[0]); b < 256; b++ {
			binary.BigEndian.PutUint32(p.fanout[b*4:], uint32(i+1))
		}
	}
	return p
}

// TestPackFind looks up every id of large indexes, uniformly random ids
// (where the search interpolates) and clustered ones (where interpolating
// guesses badly), and ids next to them that are absent.
func TestPackFind(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	uniform := make([]plumbing.Hash, 60000)
	for i := range uniform {
		binary.BigEndian.PutUint64(uniform[i][0:], rng.Uint64())
		binary.BigEndian.PutUint64(uniform[i][8:], rng.Uint64())
		binary.BigEndian.PutUint32(uniform[i][16:], rng.Uint32())
	}
	// Clustered: few first bytes, runs of ids sharing long prefixes, and
	// extremes (all 0x00 and all 0xff after the first byte).
	var clustered []plumbing.Hash
	for i := 0; i < 30000; i++ {
		var h plumbing.Hash
		h[0] = byte(i % 3)
		if i%1000 == 0 {
			for j := 1; j < 20; j++ {
				h[j] = 0xff
			}
		} else if i%2 == 0 {
			h[19] = byte(i)
			h[18] = byte(i >> 8)
		} else {
			binary.BigEndian.PutUint64(h[1:], rng.Uint64()>>uint(rng.IntN(64)))
		}
		clustered = append(clustered, h)
	}
	for name, ids := range map[string][]plumbing.Hash{"uniform": uniform, "clustered": clustered} {
		p := fakeIndex(ids)
		for i := 0; i < p.n; i++ {
			var h plumbing.Hash
			copy(h[:], p.names[i*20:])
			off, ok := p.find(h)
			if !ok || off != int64(12+i) {
				t.Fatalf("%s: id %d (%s): got %d, %v", name, i, h, off, ok)
			}
			h[19] ^= 0x5a // almost certainly absent
			if _, ok := p.find(h); ok && !slices.ContainsFunc(ids, func(x plumbing.Hash) bool { return x == h }) {
				t.Fatalf("%s: absent %s found", name, h)
			}
		}
		for _, h := range []plumbing.Hash{{}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
			if _, ok := p.find(h); ok != slices.Contains(ids, h) {
				t.Fatalf("%s: %s found = %v", name, h, ok)
			}
		}
	}
}

// TestObjCacheGenerations drives the cache with random puts and gets and
// compares it with two generations of Go maps, the semantics it keeps:
// what was put or got is in the current generation, the current one
// becomes the old one when its bytes would pass max, and the old one is
// dropped then.
func TestObjCacheGenerations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	packs := []*pack{{id: 0}, {id: 1}}
	c := objCache{max: 64 << 10}
	var cur, old map[packKey]packObj
	size := 0
	modelPut := func(k packKey, o packObj) {
		if len(o.data) > c.max/4 {
			return
		}
		if cur == nil || size+len(o.data) > c.max {
			old, cur, size = cur, map[packKey]packObj{}, 0
		}
		cur[k] = o
		size += len(o.data)
	}
	modelGet := func(k packKey) (packObj, bool) {
		if o, ok := cur[k]; ok {
			return o, true
		}
		if o, ok := old[k]; ok {
			modelPut(k, o)
			return o, true
		}
		return packObj{}, false
	}
	for i := 0; i < 200000; i++ {
		k := packKey{packs[rng.IntN(2)], int64(12 + rng.IntN(3000))}
		got, ok := c.get(k)
		want, wok := modelGet(k)
		if ok != wok || ok && (&got.data[0] != &want.data[0] || got.typ != want.typ) {
			t.Fatalf("step %d: get %v: got %v, want %v", i, k.off, ok, wok)
		}
		if !ok {
			o := packObj{plumbing.ObjectType(1 + rng.IntN(4)), make([]byte, 1+rng.IntN(600))}
			c.put(k, o)
			modelPut(k, o)
		}
	}
	if c.cur.n != len(cur) || c.old.n != len(old) {
		t.Fatalf("generations of %d and %d entries, want %d and %d", c.cur.n, c.old.n, len(cur), len(old))
	}
}

// TestHashHelpers compares ParseHash and HashString with go-git's.
func TestHashHelpers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 1000; i++ {
		var h plumbing.Hash
		for j := range h {
			h[j] = byte(rng.Uint32())
		}
		s := HashString(h)
		if s != h.String() {
			t.Fatalf("HashString = %s, want %s", s, h)
		}
		for _, in := range []string{s, bytesToUpper(s)} {
			if g, ok := ParseHash(in); !ok || g != h {
				t.Fatalf("ParseHash(%q) = %s, %v", in, g, ok)
			}
			if g, ok := ParseHash([]byte(in)); !ok || g != h {
				t.Fatalf("ParseHash([]byte %q) = %s, %v", in, g, ok)
			}
		}
	}
	for _, bad := range []string{"", "abc", s40("g"), s40("a") + "a"} {
		if _, ok := ParseHash(bad); ok {
			t.Fatalf("ParseHash(%q) accepted", bad)
		}
	}
}

func bytesToUpper(s string) string { return string(bytes.ToUpper([]byte(s))) }

func s40(c string) string { return string(bytes.Repeat([]byte(c), 40)) }
