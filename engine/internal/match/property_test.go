package match

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/kontext/kontext/engine/internal/repopath"
)

// corpusGen draws patterns and paths from a small random alphabet so that
// matches, near misses and exclusions are all common.
type corpusGen struct {
	r    *rand.Rand
	segs []string
	exts []string
}

func newCorpusGen(seed uint64) *corpusGen {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	pool := []string{"a", "b", "ab", "ba", "src", "lib", "x", "y.z", "a.b", "gen", "vendor", "é", "a b", ".hidden", "x,y", "a]", "..a"}
	extPool := []string{"go", "md", "b", "rs", "z", "", "test.go"}
	g := &corpusGen{r: r}
	for _, i := range r.Perm(len(pool))[:2+r.IntN(5)] {
		g.segs = append(g.segs, pool[i])
	}
	for _, i := range r.Perm(len(extPool))[:1+r.IntN(3)] {
		g.exts = append(g.exts, extPool[i])
	}
	return g
}

func (g *corpusGen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

func (g *corpusGen) seg() string {
	if g.r.IntN(3) == 0 {
		return g.pick(g.segs) + "." + g.pick(g.exts)
	}
	return g.pick(g.segs)
}

func (g *corpusGen) dir(min int) string {
	parts := make([]string, min+g.r.IntN(3))
	for i := range parts {
		parts[i] = g.pick(g.segs)
	}
	return strings.Join(parts, "/")
}

func (g *corpusGen) path() string {
	parts := make([]string, g.r.IntN(5))
	for i := range parts {
		parts[i] = g.seg()
	}
	p := strings.Join(parts, "/")
	switch g.r.IntN(20) {
	case 0:
		p += "/" // not normalised: the index must still agree with doublestar
	case 1:
		p = "/" + p
	case 2:
		p = strings.Replace(p, "/", "//", 1)
	}
	return p
}

// wildSeg is one glob segment with some wildcard.
func (g *corpusGen) wildSeg() string {
	s := g.pick(g.segs)
	switch g.r.IntN(10) {
	case 0:
		return "*"
	case 1:
		return "**"
	case 2:
		_, n := utf8.DecodeRuneInString(s)
		return "?" + s[n:]
	case 3:
		return "[ab]" + s
	case 4:
		return "{" + s + "," + g.pick(g.segs) + "}"
	case 5:
		return s + "*"
	case 6:
		return "*." + g.pick(g.exts)
	case 7:
		return "[!a]*"
	case 8:
		return "{" + s + "/" + g.pick(g.segs) + ",x}" // a brace spanning segments
	default:
		return s + "{,." + g.pick(g.exts) + "}"
	}
}

func (g *corpusGen) pattern() string {
	var p string
	switch g.r.IntN(16) {
	case 0:
		p = g.dir(1) + "/**"
	case 1:
		p = g.dir(1) + "/*." + g.pick(g.exts)
	case 2:
		p = g.dir(0) + g.seg()
	case 3:
		p = "**/*." + g.pick(g.exts)
	case 4:
		p = "**/" + g.pick(g.segs) + "/**"
	case 5:
		p = "**/" + g.seg()
	case 6:
		p = "*." + g.pick(g.exts)
	case 7:
		p = g.dir(1) + "/**/*." + g.pick(g.exts)
	case 8, 9, 10:
		parts := make([]string, 1+g.r.IntN(4))
		for i := range parts {
			if g.r.IntN(2) == 0 {
				parts[i] = g.wildSeg()
			} else {
				parts[i] = g.pick(g.segs)
			}
		}
		p = strings.Join(parts, "/")
	case 11:
		p = g.dir(1) + "/"
	case 12:
		p = "./" + g.dir(1) + "/*"
	case 13:
		p = "**"
	case 14:
		p = g.dir(1) + "/**/" + g.pick(g.segs)
	default:
		p = "*" + g.pick(g.segs)
	}
	if g.r.IntN(5) == 0 {
		p = "!" + p
	}
	return p
}

// corpus returns random sets (owners may repeat) and paths.
func (g *corpusGen) corpus() ([]Set, []string) {
	sets := make([]Set, 1+g.r.IntN(12))
	for i := range sets {
		sets[i].Owner = g.r.IntN(8)
		for range 1 + g.r.IntN(5) {
			if p, err := Compile(g.pattern()); err == nil {
				sets[i].Patterns = append(sets[i].Patterns, p)
			}
		}
	}
	paths := make([]string, 1+g.r.IntN(30))
	for i := range paths {
		paths[i] = g.path()
	}
	return sets, paths
}

func TestPropertyIndexEqualsNaive(t *testing.T) {
	seeds := 3000
	if testing.Short() {
		seeds = 300
	}
	for seed := range uint64(seeds) {
		g := newCorpusGen(seed)
		sets, paths := g.corpus()
		want := Naive(sets, paths)
		got := NewIndex(sets).Lookup(paths)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: index and naive disagree\nsets:  %v\npaths: %q\nindex: %+v\nnaive: %+v", seed, describe(sets), paths, got, want)
		}
	}
}

// TestPropertyMatcherEqualsDoublestar checks each compiled glob shape in
// isolation, which pins a disagreement to one pattern.
func TestPropertyMatcherEqualsDoublestar(t *testing.T) {
	for seed := range uint64(500) {
		g := newCorpusGen(seed)
		for range 40 {
			p, err := Compile(g.pattern())
			if err != nil {
				continue
			}
			m := compileMatcher(p.Glob)
			for range 20 {
				path := g.path()
				want, _ := doublestar.Match(p.Glob, path)
				if got := m.matchPath(path); got != want {
					t.Fatalf("seed %d: glob %q (kind %d) on %q: matcher %v, doublestar %v", seed, p.Glob, m.kind, path, got, want)
				}
			}
		}
	}
}

func describe(sets []Set) string {
	var b strings.Builder
	for _, s := range sets {
		fmt.Fprintf(&b, "{%d:", s.Owner)
		for _, p := range s.Patterns {
			fmt.Fprintf(&b, " %q", p.Raw)
		}
		b.WriteString("} ")
	}
	return b.String()
}

// FuzzIndexEqualsNaive: patterns are lines, a blank line starts the next
// set; paths are lines, checked both raw and normalised.
func FuzzIndexEqualsNaive(f *testing.F) {
	f.Add("src/**\n!src/gen/**\n\n**/*.go\nsrc/a.go", "src/a.go\nsrc/gen/b.go\nlib/c.go")
	f.Add("*.sql\n\n**/vendor/**\n!**/vendor/keep/**", "schema.sql\ndb/schema.sql\nx/vendor/y\nvendor/keep/z")
	f.Add("{a,b}/**\n[ab]/*.md\n\na/**/\n", "a\na/\nb/x.md\nc/x.md")
	f.Fuzz(func(t *testing.T, patterns, paths string) {
		if !utf8.ValidString(patterns) || !utf8.ValidString(paths) {
			t.Skip()
		}
		var sets []Set
		for i, block := range strings.Split(patterns, "\n\n") {
			s := Set{Owner: i % 5}
			for raw := range strings.SplitSeq(block, "\n") {
				if p, err := Compile(raw); err == nil {
					s.Patterns = append(s.Patterns, p)
				}
			}
			sets = append(sets, s)
		}
		raw := strings.Split(paths, "\n")
		var norm []string
		for _, p := range raw {
			if n, err := repopath.Normalize(p); err == nil {
				norm = append(norm, n)
			}
		}
		ix := NewIndex(sets)
		for _, ps := range [][]string{norm, raw} {
			want := Naive(sets, ps)
			if got := ix.Lookup(ps); !reflect.DeepEqual(got, want) {
				t.Fatalf("index and naive disagree\nsets:  %v\npaths: %q\nindex: %+v\nnaive: %+v", describe(sets), ps, got, want)
			}
		}
	})
}

// TestPropertyDecodedEqualsNaive: an index wrapped from its stored bytes
// answers like the oracle, path by path and in one batch, and like the
// index it was encoded from.
func TestPropertyDecodedEqualsNaive(t *testing.T) {
	seeds := 2000
	if testing.Short() {
		seeds = 200
	}
	for seed := range uint64(seeds) {
		g := newCorpusGen(seed)
		sets, paths := g.corpus()
		built := NewIndex(sets)
		ix, err := DecodeIndex(string(built.AppendBinary(nil)), 8)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, p := range paths {
			want := Naive(sets, []string{p})
			if got := ix.Lookup([]string{p}); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d: decoded lookup of %q\nsets: %v\ngot:  %+v\nwant: %+v", seed, p, describe(sets), got, want)
			}
		}
		want := Naive(sets, paths)
		if got := ix.Lookup(paths); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: decoded batch\ngot:  %+v\nwant: %+v", seed, got, want)
		}
		if got := built.Lookup(paths); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: built index\ngot:  %+v\nwant: %+v", seed, got, want)
		}
	}
}

// TestPropertySetIs: an index says each of its sets is, in order, one of
// other sets (SetIs, with as many sets) exactly when NewIndex of those
// sets gives the same bytes. The other sets are the same ones, or the
// same with one change: an owner, a pattern replaced, added or removed, a
// set dropped or added.
func TestPropertySetIs(t *testing.T) {
	seeds := 2000
	if testing.Short() {
		seeds = 200
	}
	same := 0
	for seed := range uint64(seeds) {
		g := newCorpusGen(seed)
		sets, _ := g.corpus()
		ix := NewIndex(sets)
		other := make([]Set, len(sets))
		for i, s := range sets {
			other[i] = Set{Owner: s.Owner, Patterns: append([]Pattern(nil), s.Patterns...)}
		}
		compiled := func() Pattern {
			for {
				if p, err := Compile(g.pattern()); err == nil {
					return p
				}
			}
		}
		si := g.r.IntN(len(other))
		switch g.r.IntN(7) {
		case 0: // unchanged
		case 1:
			other[si].Owner = g.r.IntN(8)
		case 2:
			if n := len(other[si].Patterns); n > 0 {
				other[si].Patterns[g.r.IntN(n)] = compiled()
			}
		case 3:
			other[si].Patterns = append(other[si].Patterns, compiled())
		case 4:
			if n := len(other[si].Patterns); n > 0 {
				other[si].Patterns = other[si].Patterns[:n-1]
			}
		case 5:
			other = append(other[:si], other[si+1:]...)
		case 6:
			other = append(other, Set{Owner: g.r.IntN(8), Patterns: []Pattern{compiled()}})
		}
		got := ix.Sets() == len(other)
		for i := 0; got && i < len(other); i++ {
			var raws []string
			for _, p := range other[i].Patterns {
				raws = append(raws, p.Raw)
			}
			got = ix.SetIs(i, other[i].Owner, raws)
		}
		want := NewIndex(other).Encoded() == ix.Encoded()
		if got != want {
			t.Fatalf("seed %d: SetIs says %v, but the indexes' bytes equal: %v\nsets:  %v\nother: %v", seed, got, want, describe(sets), describe(other))
		}
		if want {
			same++
		}
	}
	if same == 0 || same == seeds {
		t.Fatalf("%d of %d cases kept the index: the test draws no variety", same, seeds)
	}
}
