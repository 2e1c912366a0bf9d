package git

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestSkipEqual compares skipEqual with an entry-by-entry reference on
// random raw trees whose ids are full of NUL bytes and whose differences
// fall in modes, names and ids.
func TestSkipEqual(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	entry := func(mode, name string, id byte) []byte {
		h := bytes.Repeat([]byte{0}, 20)
		h[rng.IntN(20)] = id // mostly NUL: a name search must not stop in an id
		return append([]byte(mode+" "+name+"\x00"), h...)
	}
	naive := func(x, y []byte) int {
		off := 0
		for off < len(x) && off < len(y) {
			_, rest, err := NextEntry(x[off:])
			if err != nil {
				break
			}
			end := len(x) - len(rest)
			if end > len(y) || !bytes.Equal(x[off:end], y[off:end]) {
				break
			}
			off = end
		}
		return off
	}
	for i := 0; i < 2000; i++ {
		var x, y []byte
		for j := rng.IntN(6); j >= 0; j-- {
			name := fmt.Sprintf("f%d", rng.IntN(4))
			e := entry("100644", name, byte(rng.IntN(3)))
			x = append(x, e...)
			switch rng.IntN(5) {
			case 0: // another id
				f := bytes.Clone(e)
				f[len(f)-1-rng.IntN(20)] ^= 1
				y = append(y, f...)
			case 1: // another mode
				y = append(y, entry("100755", name, 0)...)
			case 2: // a longer name
				y = append(y, entry("100644", name+"x", 0)...)
			default:
				y = append(y, e...)
			}
		}
		gx, gy := skipEqual(x, y)
		want := naive(x, y)
		if len(x)-len(gx) != want || len(y)-len(gy) != want {
			t.Fatalf("case %d: skipped %d/%d bytes, want %d\nx=%q\ny=%q", i, len(x)-len(gx), len(y)-len(gy), want, x, y)
		}
	}
}
