package entry

import (
	"strings"
	"unicode"
)

// NormalizeKind returns the canonical kind for k (case-insensitive; the
// alias "adr" is "decision") and true, or "" and false for anything that is
// not one of Kinds. Plurals are not accepted: config and frontmatter name
// kinds, not directories.
func NormalizeKind(k string) (string, bool) {
	s := strings.ToLower(strings.TrimSpace(k))
	if s == "adr" {
		return "decision", true
	}
	for _, kind := range Kinds {
		if s == kind {
			return kind, true
		}
	}
	return "", false
}

// statusSynonyms maps the words read as another status.
var statusSynonyms = map[string]string{
	"retired":  "deprecated",
	"reverted": "deprecated",
	"obsolete": "deprecated",
	// adr-tools (upstream) writes "Superceded by".
	"superceded": "superseded",
}

// knownStatuses are the words that end a status phrase right away, so
// "Accepted on 2024-03-01 by the board" is simply accepted.
const knownStatuses = "proposed accepted rejected superseded deprecated active retired reverted obsolete superceded"

// stopWords end an unknown multi-word status ("Approved by the CTO" → approved).
const stopWords = "by see since until as per from via with and at for"

// CanonicalStatus turns a status as written into its canonical lower-case
// word: leading emoji, bullets and emphasis are dropped, and so is everything
// after the status words (links, parentheses, dates: "❌ Rejected (see
// [19](…))" → rejected). Retired, reverted and obsolete read as deprecated.
// Unknown words are kept lower-cased (at most three words, "in progress").
// "" stays "".
func CanonicalStatus(raw string) string {
	words := statusWords(raw)
	if len(words) == 0 {
		return ""
	}
	if words[0] == "status" && len(words) == 1 {
		// "Status: Accepted" passed whole: read what follows the colon.
		if i := strings.Index(raw, ":"); i >= 0 {
			return CanonicalStatus(raw[i+1:])
		}
	}
	first := words[0]
	if oneOf(knownStatuses, first) {
		if syn, ok := statusSynonyms[first]; ok {
			return syn
		}
		return first
	}
	out := []string{first}
	for _, w := range words[1:] {
		if oneOf(stopWords, w) || len(out) == 3 {
			break
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// statusWords returns the lower-cased leading words of s: it skips anything
// before the first letter and stops at the first character that is neither a
// letter nor a single space between words.
func statusWords(s string) []string {
	rs := []rune(s)
	i := 0
	for i < len(rs) && !unicode.IsLetter(rs[i]) {
		i++
	}
	var words []string
	var cur []rune
	for ; i < len(rs); i++ {
		r := rs[i]
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r):
			cur = append(cur, r)
			continue
		case (r == '-' || r == '\'' || r == '’') && len(cur) > 0 && i+1 < len(rs) && unicode.IsLetter(rs[i+1]):
			// Inside a word: "re-opened", "won't".
			cur = append(cur, r)
			continue
		case r == ' ' && len(cur) > 0 && i+1 < len(rs) && unicode.IsLetter(rs[i+1]):
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
			continue
		}
		break
	}
	if len(cur) > 0 {
		words = append(words, strings.ToLower(string(cur)))
	}
	return words
}

// Inactive reports whether an entry with this status no longer applies:
// superseded, deprecated (or a synonym) or rejected.
func Inactive(status string) bool {
	switch status { // a parsed entry's status is canonical already: no words to split
	case "superseded", "deprecated", "rejected":
		return true
	case "accepted", "active", "proposed", "":
		return false
	}
	switch CanonicalStatus(status) {
	case "superseded", "deprecated", "rejected":
		return true
	}
	return false
}

// DefaultStatus is the status of an entry that states none: decisions start
// as proposed, everything else is active.
func DefaultStatus(kind string) string {
	if k, _ := NormalizeKind(kind); k == "decision" {
		return "proposed"
	}
	return "active"
}

// oneOf reports whether w is one of the space-separated words.
func oneOf(words, w string) bool {
	for words != "" {
		var x string
		x, words, _ = strings.Cut(words, " ")
		if x == w {
			return true
		}
	}
	return false
}
