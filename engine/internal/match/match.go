// Package match owns the shared path matcher behind entries.governing and
// the path half of entries.related: compiling entry patterns (doublestar
// globs anchored at the repository root, "!" exclusions, trailing "/"),
// their specificity, path normalisation, the compiled lookup index, the naive
// reference oracle the index is tested against, and pattern overlap.
//
// The package is pure (no file system, no processes) so it builds for wasm.
package match

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// Limits that keep a single hostile pattern from making matching expensive:
// doublestar expands braces by recursion, so alternatives multiply.
const (
	maxPatternLen   = 1024
	maxDoublestars  = 32
	maxAlternatives = 1000
)

// wildcards are the characters that make a segment non-literal for
// specificity (per spec). The index also treats '\' as non-literal because an
// escape changes how the bytes compare.
const (
	wildcards    = "*?[{"
	nonLiteral   = "*?[{\\"
	doubleStarSg = "**"
)

// Pattern is one compiled entry pattern.
type Pattern struct {
	Raw         string // as written by the entry (including a leading "!")
	Negated     bool   // the pattern excludes ("!" prefix)
	Glob        string // normalised doublestar glob: "!" removed, leading "./" or "/" stripped, trailing "/" -> "/**"
	Specificity int    // see Specificity; meaningful for positive patterns
}

// Compile parses one entry pattern. It fails for an empty pattern, invalid
// glob syntax, a ".." segment, and pathological patterns (longer than 1024
// bytes, more than 32 "**" segments, brace expansion over 1000 alternatives);
// the error says which.
func Compile(raw string) (Pattern, error) {
	p := Pattern{Raw: raw}
	if raw == "" {
		return p, errors.New("pattern is empty")
	}
	// Length first, so every later check is bounded.
	if len(raw) > maxPatternLen {
		return p, fmt.Errorf("pattern is %d bytes long; the limit is %d", len(raw), maxPatternLen)
	}
	if !utf8.ValidString(raw) {
		return p, errors.New("pattern is not valid UTF-8")
	}
	body := raw
	if body[0] == '!' {
		p.Negated = true
		body = body[1:]
	}
	body = stripLeading(body)
	if body == "" {
		return p, errors.New("pattern names no path")
	}
	stars := 0
	for seg := range strings.SplitSeq(body, "/") {
		switch seg {
		case "..":
			return p, errors.New(`pattern escapes the repository (".." segment)`)
		case doubleStarSg:
			stars++
		}
	}
	if stars > maxDoublestars {
		return p, fmt.Errorf("pattern has %d \"**\" segments; the limit is %d", stars, maxDoublestars)
	}
	if strings.HasSuffix(body, "/") {
		// "dir/" means everything below dir; "dir/**/" already says so.
		body = strings.TrimRight(body, "/")
		if body != doubleStarSg && !strings.HasSuffix(body, "/**") {
			body += "/**"
		}
	}
	if !doublestar.ValidatePattern(body) {
		return p, fmt.Errorf("invalid glob syntax in %q: %s", body, syntaxProblem(body))
	}
	if n := alternatives(body, maxAlternatives); n > maxAlternatives {
		return p, fmt.Errorf("brace expansion yields more than %d alternatives", maxAlternatives)
	}
	p.Glob = body
	p.Specificity = Specificity(body)
	return p, nil
}

// stripLeading removes any run of leading "./" and "/" so patterns and paths
// are relative to the repository root.
func stripLeading(s string) string {
	for {
		switch {
		case strings.HasPrefix(s, "./"):
			s = s[2:]
		case strings.HasPrefix(s, "/"):
			s = s[1:]
		default:
			return s
		}
	}
}

// syntaxProblem names what doublestar.ValidatePattern rejected; it mirrors
// the validator's rules so the diagnostic is actionable.
func syntaxProblem(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i++; i >= len(s) {
				return `trailing "\"`
			}
		case '[':
			i++
			if i < len(s) && (s[i] == '^' || s[i] == '!') {
				i++
			}
			if i < len(s) && s[i] == ']' {
				return "empty character class"
			}
			for ; i < len(s) && s[i] != ']'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if i >= len(s) {
				return `unclosed "["`
			}
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return `"}" without "{"`
			}
			depth--
		}
	}
	if depth > 0 {
		return `unclosed "{"`
	}
	return "malformed pattern"
}

// alternatives counts how many brace-free patterns the brace expansion of s
// yields, saturating just above limit so hostile inputs stay cheap.
func alternatives(s string, limit int) int {
	n, _ := altSeq(s, 0, limit, false)
	return n
}

// altSeq counts one sequence starting at i: the product over its brace
// groups of the sum over each group's alternatives. Inside a group it stops
// at the ',' or '}' that ends the alternative. Classes and escapes are
// skipped the way doublestar skips them.
func altSeq(s string, i, limit int, inGroup bool) (int, int) {
	count := 1
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
		case '[':
			for i++; i < len(s) && s[i] != ']'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			i++
		case '{':
			sum := 0
			i++
			for {
				var c int
				c, i = altSeq(s, i, limit, true)
				sum = min(sum+c, limit+1)
				if i >= len(s) {
					break
				}
				i++ // past ',' or '}'
				if s[i-1] == '}' {
					break
				}
			}
			count = min(count*sum, limit+1)
		case ',', '}':
			if inGroup {
				return count, i
			}
			i++
		default:
			i++
		}
	}
	return count, i
}

// Specificity is the number of segments of glob without a wildcard (*?[{),
// plus 1 when the whole glob has none (an exact file):
// "**"→0, "src/**"→1, "src/billing/*.rs"→2, "src/billing/invoice.rs"→4.
func Specificity(glob string) int {
	n := 0
	for seg := range strings.SplitSeq(glob, "/") {
		if !strings.ContainsAny(seg, wildcards) {
			n++
		}
	}
	if !strings.ContainsAny(glob, wildcards) {
		n++
	}
	return n
}

// RootOnly reports a single-segment pattern with a wildcard but no "**",
// such as "*.sql": anchored at the root it only matches top-level files,
// which is rarely what the author meant ("**/*.sql").
func RootOnly(p Pattern) bool {
	g := p.Glob
	return g != "" && !strings.Contains(g, "/") && strings.ContainsAny(g, wildcards) && !strings.Contains(g, doubleStarSg)
}

// Broad reports whether patterns govern every path of the repository: a
// positive pattern that is "**" or "**/*" once normalised (a reader's
// always-on mapping — Cursor alwaysApply, a repository-wide Copilot file, a
// root AGENTS.md — is written as "**"), and no negative pattern. It is a
// rule on the patterns alone, independent of the tree; drift leaves broad
// entries out unless asked, since every change touches what they govern.
func Broad(patterns []string) bool {
	broad := false
	for _, raw := range patterns {
		// Only a negation or a pattern spelled as "**" can decide, and
		// only when it compiles (the matcher drops the others): most
		// patterns are never compiled here.
		if !strings.HasPrefix(raw, "!") && !strings.HasPrefix(strings.TrimLeft(raw, "./"), doubleStarSg) {
			continue
		}
		p, err := Compile(raw)
		if err != nil {
			continue
		}
		if p.Negated {
			return false
		}
		if p.Glob == doubleStarSg || p.Glob == "**/*" {
			broad = true
		}
	}
	return broad
}
