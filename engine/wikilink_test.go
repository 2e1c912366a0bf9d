package engine

import (
	"math/rand"
	"regexp"
	"slices"
	"testing"
)

// wikiLinks is written by hand; it
// must find what the pattern it replaced found.
func TestWikiLinksIsThePattern(t *testing.T) {
	re := regexp.MustCompile(`\[\[([^\[\]\s|]+)(?:\|[^\]]*)?\]\]`)
	alphabet := []string{"[", "]", "[[", "]]", "|", " ", "\t", "\v", "a", "b", "é", "-", "\n", "x"}
	cases := []string{"see [[adr-7]] and [[c|label]]", "[[[x]]", "[[x|y", "[[x]", "[[ x]]", "[[x|[[y]]]]", "[[]]", "[[|a]]", "[[a|]]", "[[a|b|c]]", "[[a\vb]]"}
	rng := rand.New(rand.NewSource(4))
	for i := 0; i < 50000; i++ {
		s := ""
		for n := rng.Intn(16); n > 0; n-- {
			s += alphabet[rng.Intn(len(alphabet))]
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		var want []string
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			want = append(want, m[1])
		}
		if got := wikiLinks(nil, s); !slices.Equal(got, want) {
			t.Fatalf("wikiLinks(%q) = %q; the pattern finds %q", s, got, want)
		}
	}
}

func TestFullSHA(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{40}$`)
	for _, s := range []string{"", "0123456789abcdef0123456789abcdef01234567", "0123456789ABCDEF0123456789abcdef01234567", "0123456789abcdef0123456789abcdef0123456", "0123456789abcdef0123456789abcdef012345678", "g123456789abcdef0123456789abcdef01234567"} {
		if fullSHA(s) != re.MatchString(s) {
			t.Errorf("fullSHA(%q) = %v", s, fullSHA(s))
		}
	}
}
