// Package fold owns diacritic folding and ASCII slugs. It uses a small
// built-in table (Latin-1 Supplement, Latin Extended-A and the common part of
// Latin Extended-B) instead of golang.org/x/text, so the wasm build stays
// small and the result does not depend on Unicode normalisation tables.
package fold

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tableLimit is one past the last rune the table covers (end of Latin
// Extended-B); an array indexed by rune keeps the hot path branch-light.
const tableLimit = 0x250

// groups lists lower-case letters by the ASCII text they fold to. Only
// lower-case forms are needed because Fold lower-cases before looking up.
var groups = []struct{ to, from string }{
	{"a", "àáâãäåāăąǎǟǡǻȁȃȧ"},
	{"ae", "æǣǽ"},
	{"b", "ƀƃ"},
	{"c", "çćĉċčƈ"},
	{"d", "ðďđƌȡ"},
	{"dz", "ǆǳ"},
	{"e", "èéêëēĕėęěȅȇȩ"},
	{"f", "ƒ"},
	{"g", "ĝğġģǥǧǵ"},
	{"h", "ĥħȟ"},
	{"i", "ìíîïĩīĭįıǐȉȋ"},
	{"ij", "ĳ"},
	{"j", "ĵǰ"},
	{"k", "ķĸƙǩ"},
	{"l", "ĺļľŀłƚȴ"},
	{"lj", "ǉ"},
	{"n", "ñńņňŉŋǹȵ"},
	{"nj", "ǌ"},
	{"o", "òóôõöøōŏőơǒǫǭǿȍȏȫȭȯȱ"},
	{"oe", "œ"},
	{"r", "ŕŗřȑȓ"},
	{"s", "śŝşšșſ"},
	{"ss", "ß"},
	{"t", "ţťŧțƫƭȶ"},
	{"th", "þ"},
	{"u", "ùúûüũūŭůűųưǔǖǘǚǜȕȗ"},
	{"w", "ŵ"},
	{"y", "ýÿŷƴȳ"},
	{"z", "źżžƶȥ"},
}

var table [tableLimit]string

func init() {
	for _, g := range groups {
		for _, r := range g.from {
			table[r] = g.to
		}
	}
}

// isCombiningMark reports the Combining Diacritical Marks block: decomposed
// (NFD) input such as "e\u0301" then folds like the precomposed "é".
func isCombiningMark(r rune) bool { return r >= 0x300 && r <= 0x36f }

// Fold lower-cases s and folds the diacritics the built-in table knows
// ("Rozhodnutíe Čas" -> "rozhodnutie cas"). Combining diacritical marks are
// dropped; other runes are only lower-cased. Invalid UTF-8 bytes become
// U+FFFD.
func Fold(s string) string {
	if isPlainLower(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
			continue
		}
		if isCombiningMark(r) {
			continue
		}
		r = unicode.ToLower(r)
		if r < tableLimit {
			if t := table[r]; t != "" {
				b.WriteString(t)
				continue
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isPlainLower lets the common all-lower-case ASCII input skip allocation.
func isPlainLower(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// Slug turns a title into an ASCII slug: folded, every run of characters
// other than [a-z0-9] becomes one "-", leading and trailing "-" trimmed. When
// longer than max bytes it is cut at the last "-" within the limit (a hard cut
// only when the first word alone is too long), and it never ends with "-".
// max <= 0 means no limit. It returns "" when nothing is left.
func Slug(title string, max int) string {
	f := Fold(title)
	b := make([]byte, 0, len(f))
	dash := false
	for i := 0; i < len(f); i++ {
		c := f[i]
		if ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') {
			if dash && len(b) > 0 {
				b = append(b, '-')
			}
			dash = false
			b = append(b, c)
			continue
		}
		// Every byte of a non-ASCII rune lands here too, so letters the table
		// does not fold (Cyrillic, CJK…) act as separators.
		dash = true
	}
	if max > 0 && len(b) > max {
		switch {
		case b[max] == '-':
			// The limit falls exactly on a word boundary.
			b = b[:max]
		default:
			if i := lastDash(b[:max]); i > 0 {
				b = b[:i]
			} else {
				b = b[:max]
			}
		}
	}
	for len(b) > 0 && b[len(b)-1] == '-' {
		b = b[:len(b)-1]
	}
	return string(b)
}

func lastDash(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '-' {
			return i
		}
	}
	return -1
}
