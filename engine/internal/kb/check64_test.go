package kb

import (
	"math/rand"
	"testing"
)

// TestCheck64 pins values (they are stored in snapshots), and checks that
// changing any one byte of a text, or its length, changes its checksum.
func TestCheck64(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
	}{
		{"", 0x99423fc1012066c5},
		{"a", 0xccd648a51c2fce7c},
		{"0123456789abcdef-", 0xb82d28f158a77b2e},
	} {
		if got := check64([]byte(c.in)); got != c.want {
			t.Errorf("check64(%q) = %#x, want %#x", c.in, got, c.want)
		}
	}
	rng := rand.New(rand.NewSource(2))
	seen := map[uint64]int{}
	for n := 0; n <= 40; n++ {
		data := make([]byte, n)
		rng.Read(data)
		sum := check64(data)
		if m, dup := seen[sum]; dup {
			t.Fatalf("texts of %d and %d bytes share checksum %#x", m, n, sum)
		}
		seen[sum] = n
		if got := check64(append(data[:n:n], 0)); got == sum {
			t.Fatalf("a zero byte appended to %d bytes keeps the checksum", n)
		}
		for i := range data {
			for _, flip := range []byte{0x01, 0x80, 0xff} {
				data[i] ^= flip
				if check64(data) == sum {
					t.Fatalf("flipping %#x at %d of %d bytes keeps the checksum", flip, i, n)
				}
				data[i] ^= flip
			}
		}
	}
	// Bit 63 changed in two words: a multiply alone would carry both
	// flips to the top bit, where they cancel; the fold keeps them apart.
	a := []byte("0123456701234567")
	b := append([]byte(nil), a...)
	b[7] ^= 0x80
	b[15] ^= 0x80
	if check64(a) == check64(b) {
		t.Fatal("two top-bit flips cancel")
	}
}
