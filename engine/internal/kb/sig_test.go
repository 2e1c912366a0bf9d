package kb

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kontext/kontext/engine/internal/entry"
)

// The hand-written signatures print what fmt's %v prints, so the keys of
// snapshots stored before them still match.
func TestSignaturesAreFmt(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "b c", "{x}", "[y]", "map[z]", "ü", "x:y", " "}
	w := func() string { return words[r.IntN(len(words))] }
	for n := 0; n < 500; n++ {
		var skips []Skipped
		if n%7 != 0 {
			skips = []Skipped{}
		}
		for i := r.IntN(4); i > 0; i-- {
			skips = append(skips, Skipped{File: w(), Reason: w()})
		}
		if got, want := skippedSig(skips), fmt.Sprint(skips); got != want {
			t.Fatalf("skippedSig(%#v) = %q, fmt %q", skips, got, want)
		}
		var diags [][]entry.Diagnostic
		for i := r.IntN(4); i > 0; i-- {
			var list []entry.Diagnostic
			for j := r.IntN(3); j > 0; j-- {
				list = append(list, entry.Diagnostic{File: w(), Line: r.IntN(30) - 3, Severity: w(), Code: w(), Message: w()})
			}
			diags = append(diags, list)
		}
		if got, want := diagListsSig(diags), fmt.Sprint(diags); got != want {
			t.Fatalf("diagListsSig(%#v) = %q, fmt %q", diags, got, want)
		}
		var aliases map[string][]string
		if n%5 != 0 {
			aliases = map[string][]string{}
			for i := r.IntN(5); i > 0; i-- {
				var v []string
				for j := r.IntN(3); j > 0; j-- {
					v = append(v, w())
				}
				aliases[w()+w()] = v
			}
		}
		if got, want := aliasesSig(aliases), fmt.Sprint(aliases); got != want {
			t.Fatalf("aliasesSig(%#v) = %q, fmt %q", aliases, got, want)
		}
	}
}
