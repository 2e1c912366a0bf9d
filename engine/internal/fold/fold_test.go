package fold

import (
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"plain ascii", "plain ascii"},
		{"Rozhodnutíe Čas", "rozhodnutie cas"},
		// Czech
		{"Příliš žluťoučký kůň úpěl ďábelské ódy", "prilis zlutoucky kun upel dabelske ody"},
		// Slovak
		{"Ľúbostná báseň, ôsmy dôvod, Ŕ", "lubostna basen, osmy dovod, r"},
		// German
		{"Größe Übermäßig STRAẞE", "grosse ubermassig strasse"},
		// French
		{"Œuvre à côté, naïve façade, Ægis", "oeuvre a cote, naive facade, aegis"},
		// Polish
		{"Zażółć gęślą jaźń Łódź", "zazolc gesla jazn lodz"},
		// Nordic, Icelandic, Croatian, Romanian
		{"Søren Þór Ðakovo đak Ștefan Țară", "soren thor dakovo dak stefan tara"},
		// Decomposed input: combining marks are dropped.
		{"Cafe\u0301 n\u0303", "cafe n"},
		// Letters outside the table are only lower-cased.
		{"ПРИВЕТ Ωμέγα", "привет ωμέγα"},
		{"İstanbul", "istanbul"},
	}
	for _, c := range cases {
		if got := Fold(c.in); got != c.want {
			t.Errorf("Fold(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFoldTableIsLowerASCII(t *testing.T) {
	for r, s := range table {
		if s == "" {
			continue
		}
		for i := 0; i < len(s); i++ {
			if s[i] < 'a' || s[i] > 'z' {
				t.Errorf("table[%U] = %q: not lower-case ASCII", r, s)
			}
		}
	}
}

func TestFoldUpperCaseBlocks(t *testing.T) {
	// Every upper-case letter of Latin-1 and Latin Extended-A whose lower-case
	// form the table knows must fold to ASCII as well.
	for r := rune(0xc0); r < 0x180; r++ {
		l := strings.ToLower(string(r))
		if l == string(r) {
			continue
		}
		if got := Fold(string(r)); got != Fold(l) {
			t.Errorf("Fold(%q) = %q, Fold(%q) = %q", string(r), got, l, Fold(l))
		}
	}
}

func TestSlug(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"Use Postgres for billing", 60, "use-postgres-for-billing"},
		{"  Rozhodnutie: použiť PostgreSQL!  ", 60, "rozhodnutie-pouzit-postgresql"},
		{"Größe & Straße", 60, "grosse-strasse"},
		{"C++ / Go -- interop", 60, "c-go-interop"},
		{"", 60, ""},
		{"!!! ??? ---", 60, ""},
		{"Привет мир", 60, ""},
		{"Привет world", 60, "world"},
		// Cut at the last "-" within the limit.
		{"alpha beta gamma", 12, "alpha-beta"},
		// The limit falls exactly on a word boundary.
		{"alpha beta gamma", 10, "alpha-beta"},
		// Limit right after a dash: the dash is dropped.
		{"alpha beta gamma", 11, "alpha-beta"},
		// One long word: hard cut.
		{"supercalifragilistic", 5, "super"},
		{"ab supercalifragilistic", 5, "ab"},
		// No limit.
		{"a b c", 0, "a-b-c"},
	}
	for _, c := range cases {
		got := Slug(c.in, c.max)
		if got != c.want {
			t.Errorf("Slug(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
		if c.max > 0 && len(got) > c.max {
			t.Errorf("Slug(%q, %d) = %q: longer than max", c.in, c.max, got)
		}
	}
}

func TestSlugSpecLength(t *testing.T) {
	title := strings.Repeat("Rozhodnutíe o architektúre ", 10)
	got := Slug(title, 60)
	if len(got) > 60 || strings.HasSuffix(got, "-") || strings.HasPrefix(got, "-") {
		t.Fatalf("Slug = %q", got)
	}
	if !strings.HasPrefix(got, "rozhodnutie-o-architekture-rozhodnutie") {
		t.Fatalf("Slug = %q", got)
	}
}

func FuzzSlug(f *testing.F) {
	for _, s := range []string{"", "Use Postgres", "Příliš žluťoučký kůň", "--a--", "\xff\xfe"} {
		f.Add(s, 60)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		got := Slug(s, max)
		if max > 0 && len(got) > max {
			t.Fatalf("too long: %q", got)
		}
		if strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") || strings.Contains(got, "--") {
			t.Fatalf("bad dashes: %q", got)
		}
		for i := 0; i < len(got); i++ {
			c := got[i]
			if !(c == '-' || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9')) {
				t.Fatalf("non-slug byte in %q", got)
			}
		}
	})
}
