package match

import (
	"reflect"
	"testing"
)

// TestIndexCodecRoundTrip: a decoded index answers exactly like the one
// it was encoded from (and the naive oracle), and encodes to the same
// bytes again.
func TestIndexCodecRoundTrip(t *testing.T) {
	for seed := range uint64(500) {
		g := newCorpusGen(seed)
		sets, paths := g.corpus()
		ix := NewIndex(sets)
		data := ix.AppendBinary(nil)
		got, err := DecodeIndex(string(data), 8)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if want := Naive(sets, paths); !reflect.DeepEqual(got.Lookup(paths), want) {
			t.Fatalf("seed %d: decoded index answers\n%+v\nwant\n%+v", seed, got.Lookup(paths), want)
		}
		if again := got.AppendBinary(nil); string(again) != string(data) {
			t.Fatalf("seed %d: re-encoding differs", seed)
		}
	}
}

// TestIndexCodecCorrupt: every truncation and many single-byte changes of
// an encoded index either fail to decode or decode into an index whose
// lookups do not panic; an owner beyond the entries is refused.
func TestIndexCodecCorrupt(t *testing.T) {
	sets, paths := newCorpusGen(7).corpus()
	data := NewIndex(sets).AppendBinary(nil)
	if _, err := DecodeIndex(string(data), 0); err == nil && len(sets) > 0 {
		t.Error("an index whose owners exceed the entries decodes")
	}
	for n := 0; n < len(data); n++ {
		if _, err := DecodeIndex(string(data[:n]), 8); err == nil {
			t.Errorf("truncated to %d of %d bytes: decodes", n, len(data))
		}
	}
	for i := range data {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			bad := append([]byte(nil), data...)
			bad[i] ^= x
			if ix, err := DecodeIndex(string(bad), 8); err == nil {
				ix.Lookup(paths) // must not panic
			}
		}
	}
}

func FuzzIndexCodec(f *testing.F) {
	sets, _ := newCorpusGen(3).corpus()
	f.Add(NewIndex(sets).AppendBinary(nil), "src/a/b.go")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		if ix, err := DecodeIndex(string(data), 8); err == nil {
			ix.Lookup([]string{path})
		}
	})
}

// TestDecodeIndexAllocatesNoPerPattern: wrapping a stored index costs the
// same few allocations for 100 or 10,000 entries (nothing per set, glob or
// pattern), so a warm whole-process call pays nothing for its size here.
func TestDecodeIndexAllocatesNoPerPattern(t *testing.T) {
	var allocs []float64
	for _, n := range []int{100, 10000} {
		sets, _ := GoverningWorkload(n, 1)
		data := string(NewIndex(sets).AppendBinary(nil))
		allocs = append(allocs, testing.AllocsPerRun(5, func() {
			if _, err := DecodeIndex(data, n); err != nil {
				t.Fatal(err)
			}
		}))
	}
	if allocs[0] != allocs[1] || allocs[1] > 4 {
		t.Errorf("DecodeIndex allocations at 100 and 10,000 entries: %v", allocs)
	}
}
