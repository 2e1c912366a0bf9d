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

func BenchmarkSHA1(b *testing.B) {
	data := make([]byte, 1<<16)
	b.SetBytes(int64(len(data)))
	for range b.N {
		d := NewSHA1()
		d.Write(data)
		d.Sum()
	}
}
