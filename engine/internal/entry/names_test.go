package entry

import (
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// ParseADRNumber is written by hand;
// it must accept exactly what the pattern it replaced accepted.
func TestParseADRNumberIsThePattern(t *testing.T) {
	re := regexp.MustCompile(`(?i)^(?:adr[\s_#-]*)?#?(\d{1,9})$`)
	want := func(s string) (int, bool) {
		m := re.FindStringSubmatch(strings.TrimSpace(s))
		if m == nil {
			return 0, false
		}
		n, err := strconv.Atoi(m[1])
		return n, err == nil
	}
	cases := []string{"7", "0007", "ADR-7", "adr-0007", "ADR7", "ADR 7", "#7", "ADR #7", " adr_#-12 ", "adr", "#", "##7", "adr##-7",
		"1234567890", "123456789", "7a", "x7", "AdR\t3", "adr\v3", "ádr7", "adr-", "-7", "ADR-#-#9", "\u00a07\u00a0"}
	alphabet := []string{"a", "A", "d", "D", "r", "R", "#", "-", "_", " ", "\t", "\v", "0", "1", "9", "x", "é", "\u00a0"}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		s := ""
		if rng.Intn(2) == 0 {
			s = []string{"adr", "ADR", "Adr", "ad", "#"}[rng.Intn(5)]
		}
		for n := rng.Intn(8); n > 0; n-- {
			s += alphabet[rng.Intn(len(alphabet))]
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		gn, gok := ParseADRNumber(s)
		wn, wok := want(s)
		if gn != wn || gok != wok {
			t.Fatalf("ParseADRNumber(%q) = %d, %v; the pattern gives %d, %v", s, gn, gok, wn, wok)
		}
	}
}

// The date matchers are written by hand too; they must match what the
// patterns they replaced matched, at the same length.
func TestDateMatchersAreThePatterns(t *testing.T) {
	iso := regexp.MustCompile(`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})`)
	dmy := regexp.MustCompile(`^(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{4}|\d{2})`)
	alphabet := []string{"0", "1", "2", "9", "-", "/", ".", " ", "x", "T", "٣"}
	rng := rand.New(rand.NewSource(2))
	cases := []string{"2024-03-01", "2024/3/1", "2024.03.01T10:00", "09/04/2018", "9.4.18", "09-04-2018", "1.2.345", "1.2.3", "1.2.34567", "20240-1-1", ""}
	for i := 0; i < 50000; i++ {
		s := ""
		for n := rng.Intn(14); n > 0; n-- {
			s += alphabet[rng.Intn(len(alphabet))]
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		for _, c := range []struct {
			re *regexp.Regexp
			fn func(string) ([3]string, int)
		}{{iso, isoDate}, {dmy, dmyDate}} {
			got, n := c.fn(s)
			m := c.re.FindStringSubmatch(s)
			if m == nil {
				if n != 0 {
					t.Fatalf("%q: matched %d bytes (%q); %s does not match", s, n, got, c.re)
				}
				continue
			}
			if n != len(m[0]) || got != [3]string{m[1], m[2], m[3]} {
				t.Fatalf("%q: got %q over %d bytes; %s gives %q", s, got, n, c.re, m)
			}
		}
	}
}

func TestDurationIsThePattern(t *testing.T) {
	re := regexp.MustCompile(`^(\d{1,6})\s*(d|days?|w|weeks?|m|months?|y|years?)$`)
	words := []string{"", "d", "day", "days", "w", "week", "weeks", "m", "month", "months", "y", "year", "years", "dayss", "mo", "x", " ", "\t", "\v"}
	rng := rand.New(rand.NewSource(3))
	cases := []string{"180d", "2w", "6m", "1y", "2 weeks", "1234567d", "d", "12 ", "0d", "1\u00a0d"}
	for i := 0; i < 20000; i++ {
		s := strconv.Itoa(1_000_000 + rng.Intn(9_000_000))[:1+rng.Intn(7)]
		if rng.Intn(5) == 0 {
			s = ""
		}
		for n := rng.Intn(3); n > 0; n-- {
			s += words[rng.Intn(len(words))]
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		num, unit, ok := duration(s)
		m := re.FindStringSubmatch(s)
		if (m != nil) != ok || (ok && (num != m[1] || unit != m[2][0])) {
			t.Fatalf("duration(%q) = %q %q %v; the pattern gives %q", s, num, unit, ok, m)
		}
	}
}
