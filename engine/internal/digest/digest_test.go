package digest

import (
	"crypto/sha1"
	"crypto/sha256"
	"math/rand"
	"testing"
)

// TestAgainstCrypto: every length from 0 to 300 bytes (each padding case)
// and larger inputs written in uneven pieces give the standard library's
// digests.
func TestAgainstCrypto(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	check := func(data []byte, pieces int) {
		t.Helper()
		s1, s2 := NewSHA1(), NewSHA256()
		rest := data
		for i := 0; i < pieces && len(rest) > 0; i++ {
			k := rng.Intn(len(rest) + 1)
			s1.Write(rest[:k])
			s2.Write(rest[:k])
			rest = rest[k:]
		}
		s1.Write(rest)
		s2.Write(rest)
		if got, want := s1.Sum(), sha1.Sum(data); got != want {
			t.Fatalf("SHA-1 of %d bytes: %x, want %x", len(data), got, want)
		}
		if got, want := s2.Sum(), sha256.Sum256(data); got != want {
			t.Fatalf("SHA-256 of %d bytes: %x, want %x", len(data), got, want)
		}
		if got, want := Sum256(data), sha256.Sum256(data); got != want {
			t.Fatalf("Sum256 of %d bytes differs", len(data))
		}
	}
	for n := 0; n <= 300; n++ {
		data := make([]byte, n)
		rng.Read(data)
		check(data, 1)
		check(data, 5)
	}
	for _, n := range []int{1 << 10, 4097, 1 << 16, 1<<20 + 3} {
		data := make([]byte, n)
		rng.Read(data)
		check(data, 1)
		check(data, 17)
	}
}

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
		if got := Check64([]byte(c.in)); got != c.want {
			t.Errorf("Check64(%q) = %#x, want %#x", c.in, got, c.want)
		}
	}
	rng := rand.New(rand.NewSource(2))
	seen := map[uint64]int{}
	for n := 0; n <= 40; n++ {
		data := make([]byte, n)
		rng.Read(data)
		sum := Check64(data)
		if m, dup := seen[sum]; dup {
			t.Fatalf("texts of %d and %d bytes share checksum %#x", m, n, sum)
		}
		seen[sum] = n
		if got := Check64(append(data[:n:n], 0)); got == sum {
			t.Fatalf("a zero byte appended to %d bytes keeps the checksum", n)
		}
		for i := range data {
			for _, flip := range []byte{0x01, 0x80, 0xff} {
				data[i] ^= flip
				if Check64(data) == sum {
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
	if Check64(a) == Check64(b) {
		t.Fatal("two top-bit flips cancel")
	}
}

func BenchmarkCheck64(b *testing.B) {
	data := make([]byte, 1<<16)
	b.SetBytes(int64(len(data)))
	for range b.N {
		Check64(data)
	}
}

func BenchmarkSHA1(b *testing.B) {
	data := make([]byte, 1<<16)
	b.SetBytes(int64(len(data)))
	for range b.N {
		d := NewSHA1()
		d.Write(data)
		d.Sum()
	}
}
