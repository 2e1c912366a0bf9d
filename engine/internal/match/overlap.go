package match

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Bounds on the work Overlap does before it answers "maybe" (true).
const (
	maxOverlapExpansions = maxAlternatives
	maxOverlapPairs      = 10000
)

// Overlap reports whether two positive patterns could match a common path
// (entries.related). It is exact when either glob is a literal path and
// segment by segment when a segment is literal on either side; two wildcard
// segments overlap unless their literal prefixes or suffixes contradict
// (so "*.go" and "*.md" do not). Negated or invalid patterns never overlap:
// negations are ignored for overlap.
func Overlap(a, b Pattern) bool {
	if a.Negated || b.Negated || !doublestar.ValidatePattern(a.Glob) || !doublestar.ValidatePattern(b.Glob) {
		return false
	}
	if !strings.ContainsAny(a.Glob, nonLiteral) {
		ok, _ := doublestar.Match(b.Glob, a.Glob)
		return ok
	}
	if !strings.ContainsAny(b.Glob, nonLiteral) {
		ok, _ := doublestar.Match(a.Glob, b.Glob)
		return ok
	}
	xs, okA := expandBraces(a.Glob, maxOverlapExpansions)
	ys, okB := expandBraces(b.Glob, maxOverlapExpansions)
	if !okA || !okB || len(xs)*len(ys) > maxOverlapPairs {
		return true // too many alternatives to compare: say maybe
	}
	for _, x := range xs {
		for _, y := range ys {
			if classHasSlash(x) || classHasSlash(y) {
				return true // a class matching "/" defeats segment splitting
			}
			if segsOverlap(strings.Split(x, "/"), strings.Split(y, "/")) {
				return true
			}
		}
	}
	return false
}

// segsOverlap decides two brace-free globs segment by segment; "**" absorbs
// any number of segments of the other side, including none.
func segsOverlap(a, b []string) bool {
	w := len(b) + 1
	memo := make([]int8, (len(a)+1)*w) // 0 unknown, 1 yes, 2 no
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		k := i*w + j
		if memo[k] != 0 {
			return memo[k] == 1
		}
		var r bool
		switch {
		case i < len(a) && a[i] == doubleStarSg:
			r = rec(i+1, j) || (j < len(b) && rec(i, j+1))
		case j < len(b) && b[j] == doubleStarSg:
			r = rec(i, j+1) || (i < len(a) && rec(i+1, j))
		case i == len(a) || j == len(b):
			r = i == len(a) && j == len(b)
		default:
			r = segOverlap(a[i], b[j]) && rec(i+1, j+1)
		}
		memo[k] = 2
		if r {
			memo[k] = 1
		}
		return r
	}
	return rec(0, 0)
}

// segOverlap compares two single segments (neither is "**").
func segOverlap(x, y string) bool {
	if !strings.ContainsAny(x, nonLiteral) {
		ok, _ := doublestar.Match(y, x)
		return ok
	}
	if !strings.ContainsAny(y, nonLiteral) {
		ok, _ := doublestar.Match(x, y)
		return ok
	}
	// Both wildcard: any match starts with the literal prefix and ends with
	// the literal suffix of each, so contradicting ones rule overlap out.
	px, py := x[:strings.IndexAny(x, nonLiteral)], y[:strings.IndexAny(y, nonLiteral)]
	sx, sy := x[strings.LastIndexAny(x, nonLiteral+"]")+1:], y[strings.LastIndexAny(y, nonLiteral+"]")+1:]
	return (strings.HasPrefix(px, py) || strings.HasPrefix(py, px)) &&
		(strings.HasSuffix(sx, sy) || strings.HasSuffix(sy, sx))
}

// expandBraces returns the brace-free globs s stands for, or false when
// there are more than limit.
func expandBraces(s string, limit int) ([]string, bool) {
	open := -1
	for i := 0; i < len(s) && open < 0; i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			i = classEnd(s, i)
		case '{':
			open = i
		}
	}
	if open < 0 {
		return []string{s}, true
	}
	var alts []string
	depth, start, closing := 0, open+1, -1
	for i := open + 1; i < len(s) && closing < 0; i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			i = classEnd(s, i)
		case '{':
			depth++
		case '}':
			if depth == 0 {
				alts = append(alts, s[start:i])
				closing = i
			}
			depth--
		case ',':
			if depth == 0 {
				alts = append(alts, s[start:i])
				start = i + 1
			}
		}
	}
	if closing < 0 {
		return []string{s}, true // unbalanced; validation rejects it earlier
	}
	var out []string
	for _, alt := range alts {
		sub, ok := expandBraces(s[:open]+alt+s[closing+1:], limit-len(out))
		if !ok {
			return nil, false
		}
		out = append(out, sub...)
		if len(out) > limit {
			return nil, false
		}
	}
	return out, true
}

// classEnd returns the index of the ']' closing the class opened at i
// (doublestar's rule: the next unescaped ']').
func classEnd(s string, i int) int {
	for i++; i < len(s) && s[i] != ']'; i++ {
		if s[i] == '\\' {
			i++
		}
	}
	return i
}

// classHasSlash reports a character class that lists '/'.
func classHasSlash(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			end := min(classEnd(s, i), len(s))
			if strings.IndexByte(s[i:end], '/') >= 0 {
				return true
			}
			i = end
		}
	}
	return false
}
