package edit

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ReplaceStatusWord replaces the status word from (matched as a whole
// word, case-insensitively) on line (1-based) of text with to, written in
// the case the file used ("Proposed" → "Accepted", "PROPOSED" →
// "ACCEPTED", "proposed" → "accepted"). Every other byte of the file,
// that line's emphasis, bullets, emoji and trailing words included, stays
// as it was. The line is the one the parser read the status from.
func ReplaceStatusWord(text string, line int, from, to string) (string, error) {
	if strings.Contains(strings.ReplaceAll(text, "\r\n", ""), "\r") {
		// Lone CR line ends: the parser's line numbers are not this
		// file's "\n" lines.
		return "", fmt.Errorf("the file uses bare carriage returns as line ends")
	}
	lines := strings.SplitAfter(text, "\n")
	if line < 1 || line > len(lines) {
		return "", fmt.Errorf("the status line %d is not in the file", line)
	}
	l := lines[line-1]
	i := wordIndex(l, from)
	if i < 0 {
		return "", fmt.Errorf("line %d does not say %q", line, from)
	}
	lines[line-1] = l[:i] + inCaseOf(l[i:i+len(from)], to) + l[i+len(from):]
	return strings.Join(lines, ""), nil
}

// wordIndex is the byte index of the first whole-word occurrence of word
// (ASCII, lower case) in s, compared ASCII case-insensitively, or -1.
func wordIndex(s, word string) int {
	for i := 0; i+len(word) <= len(s); i++ {
		if !asciiFold(s[i:i+len(word)], word) {
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(word):])
		if (i == 0 || !isWordRune(before)) && (i+len(word) == len(s) || !isWordRune(after)) {
			return i
		}
	}
	return -1
}

func asciiFold(a, lower string) bool {
	for i := 0; i < len(a); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' }

// inCaseOf writes word in the case of like: all upper, all lower, or
// capitalised.
func inCaseOf(like, word string) string {
	switch {
	case like == strings.ToUpper(like):
		return strings.ToUpper(word)
	case like == strings.ToLower(like):
		return strings.ToLower(word)
	}
	return strings.ToUpper(word[:1]) + strings.ToLower(word[1:])
}

// statusPrefixRE is the part of a "Status:" line that stays when its value
// is replaced: bullets, emoji, heading marks and emphasis before the word,
// the colon and the emphasis after it ("* Status: ", "## 📌 Status: ",
// "**Status:** ", "status: ").
var statusPrefixRE = regexp.MustCompile(`(?i)^[^\p{L}\r\n]*status[*_]*\s*:[*_]*[ \t]*`)

// SetStatusLine sets the status phrase on line (1-based) of text, the line
// the parser read the status from, to value: after a "Status:" prefix when
// the line has one (a MADR bullet, a "## Status: …" heading, a kontext
// comment line), else the whole line (a line of an ADR's status section).
// The line ending and every other line stay as they were.
func SetStatusLine(text string, line int, value string) (string, error) {
	if strings.Contains(strings.ReplaceAll(text, "\r\n", ""), "\r") {
		return "", fmt.Errorf("the file uses bare carriage returns as line ends")
	}
	lines := strings.SplitAfter(text, "\n")
	if line < 1 || line > len(lines) || strings.TrimSpace(lines[line-1]) == "" {
		return "", fmt.Errorf("the status line %d is not in the file", line)
	}
	l := lines[line-1]
	ending := lineEndingOf(l)
	body := strings.TrimSuffix(l, ending)
	prefix := statusPrefixRE.FindString(body)
	if prefix == "" {
		// A status section line: keep its indentation only.
		prefix = body[:len(body)-len(strings.TrimLeft(body, " \t"))]
	}
	lines[line-1] = prefix + value + ending
	return strings.Join(lines, ""), nil
}
