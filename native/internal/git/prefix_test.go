package git

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestHashesWithPrefix compares the abbreviated-id lookup with git's own
// object list for every object and several prefix lengths, with the
// objects loose, packed, and packed plus new loose ones.
func TestHashesWithPrefix(t *testing.T) {
	r := newRepo(t)
	buildFixture(r)
	check := func(phase string, withFallback bool) {
		t.Helper()
		all := slices.Collect(maps.Keys(r.AllObjects()))
		o := objects(r, withFallback)
		tried := 0
		for _, h := range all {
			id := h.String()
			for _, n := range []int{1, 2, 3, 4, 7, 12, 39, 40} {
				short := id[:n]
				var want []plumbing.Hash
				for _, g := range all {
					if strings.HasPrefix(g.String(), short) {
						want = append(want, g)
					}
				}
				slices.SortFunc(want, func(a, b plumbing.Hash) int { return strings.Compare(a.String(), b.String()) })
				got, err := o.HashesWithPrefix(short)
				if err != nil || !slices.Equal(got, want) {
					t.Fatalf("%s: HashesWithPrefix(%s) = %v, %v; want %v", phase, short, got, err, want)
				}
				tried++
			}
		}
		if got, err := o.HashesWithPrefix("0000000000000000000000000000000000000000"); err != nil || len(got) != 0 {
			t.Errorf("%s: zero id: %v, %v", phase, got, err)
		}
		if tried < 100 {
			t.Fatalf("%s: only %d lookups", phase, tried)
		}
	}
	check("loose", false)
	r.Git("repack", "-a", "-d", "-q")
	check("packed", false)
	check("packed, fallback", true)
	r.Write("new.txt", "a loose object next to the pack\n")
	r.Commit("loose after the pack")
	check("packed and loose", false)

	o := objects(r, false)
	for _, bad := range []string{"", "XYZ", "ABCD", "g", strings.Repeat("a", 41)} {
		if _, err := o.HashesWithPrefix(bad); err == nil {
			t.Errorf("HashesWithPrefix(%q) accepted", bad)
		}
	}
}
