package sidecar

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"
)

// TestCleanIsPathClean: alreadyClean(p) holds exactly when path.Clean leaves a
// relative p unchanged (CleanPath skips path.Clean on it), except for ".",
// ".." and paths starting "../", and never for an absolute p (CleanPath
// cleans all of those as before), on random paths over "a", "b", "/", "."
// and "..".
func TestCleanIsPathClean(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "b", "/", ".", ".."}
	for i := 0; i < 50000; i++ {
		p := ""
		for n := r.IntN(9); n > 0; n-- {
			p += alphabet[r.IntN(len(alphabet))]
		}
		want := p != "" && p[0] != '/' && path.Clean(p) == p && p != "." && p != ".." && !strings.HasPrefix(p, "../")
		if got := alreadyClean(p); got != want {
			t.Fatalf("alreadyClean(%q) = %v, want %v (path.Clean: %q)", p, got, want, path.Clean(p))
		}
	}
}
