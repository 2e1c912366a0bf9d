package detect

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/kontext/kontext/engine/internal/entry"
)

// Evidence that a Markdown file is a decision record, as a reader would
// see it (spec 10, "Detection evidence"): a status line, a status key in
// the front matter, a Date: line, or two section headings of the Nygard
// or the MADR template. A numbered file name is none of these.
var (
	statusLine = sync.OnceValue(func() *regexp.Regexp {
		// ## Status · ## Status: Accepted · Status: · - Status: · * Status: ·
		// **Status**: · **Status:**
		return regexp.MustCompile(`(?i)^(?:#{1,6}\s*status\s*(?::.*)?$|(?:[-*+]\s+)?(?:\*\*|__)?status(?:\*\*|__)?\s*:)`)
	})
	dateLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:[-*+]\s+)?(?:\*\*|__)?date(?:\*\*|__)?\s*:`)
	})
	// decisionIndex: an index that calls its records decisions.
	decisionIndex = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:decision[- ]records?|decision[- ]log|adrs?|architect\w*\s+decisions?)\b`)
	})
)

// nygardHeadings and madrHeadings are the section titles of the two
// templates; a record carries at least two of one of them.
var (
	nygardHeadings = []string{"context", "decision", "consequences"}
	madrHeadings   = []string{"context and problem statement", "decision drivers", "considered options", "decision outcome", "consequences"}
)

// evidenceLimit bounds what is read of one file: the status, date and
// section headings of a record sit well inside it.
const evidenceLimit = 32 << 10

// isRecord reports whether text carries evidence of a decision record.
func isRecord(text string) bool {
	body := text
	if first, rest, ok := strings.Cut(text, "\n"); ok && strings.TrimSpace(first) == "---" {
		fm, after, closed := cutFrontMatter(rest)
		if !closed {
			return false
		}
		for _, l := range strings.Split(fm, "\n") {
			// A top-level key only: title/sidebar_position and the like
			// are a docs site's, not a record's.
			if k, _, ok := strings.Cut(strings.TrimRight(l, " \t\r"), ":"); ok && strings.EqualFold(k, "status") {
				return true
			}
		}
		body = after
	}
	nygard, madr := map[string]bool{}, map[string]bool{}
	fence := ""
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if statusLine().MatchString(t) || dateLine().MatchString(t) {
			return true
		}
		if h, ok := heading(t); ok {
			for _, n := range nygardHeadings {
				if h == n {
					nygard[n] = true
				}
			}
			for _, n := range madrHeadings {
				if h == n {
					madr[n] = true
				}
			}
			if len(nygard) >= 2 || len(madr) >= 2 {
				return true
			}
		}
	}
	return false
}

// heading is the lower-cased title of a Markdown heading line, without a
// trailing colon.
func heading(t string) (string, bool) {
	h := strings.TrimLeft(t, "#")
	if len(h) == len(t) || len(t)-len(h) > 6 || (h != "" && h[0] != ' ' && h[0] != '\t') {
		return "", false
	}
	h = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#"))
	return strings.ToLower(strings.TrimSuffix(h, ":")), true
}

// cutFrontMatter splits the text after an opening "---" line at its
// closing "---" (or "...") line.
func cutFrontMatter(rest string) (fm, body string, closed bool) {
	off := 0
	for off < len(rest) {
		end := strings.IndexByte(rest[off:], '\n')
		l, next := rest[off:], len(rest)
		if end >= 0 {
			l, next = rest[off:off+end], off+end+1
		}
		if d := strings.TrimRight(l, " \t\r"); d == "---" || d == "..." {
			return rest[:off], rest[next:], true
		}
		off = next
	}
	return "", "", false
}

// isLog reports whether a directory's Markdown files are a decision log:
// an index that calls them decisions, or evidence in at least half of its
// record files (README, index and templates are not records). min is how
// many records must carry evidence at least.
func (w *walker) isLog(di *dirInfo, min int) bool {
	var recs []string
	for _, f := range di.md {
		if entry.IsRecordFile(f, entry.Source{Style: entry.StyleADR}) {
			recs = append(recs, f)
			continue
		}
		if b := strings.ToLower(path.Base(f)); b == "readme.md" || b == "index.md" {
			if data, ok := w.open(f, evidenceLimit); ok && decisionIndex().Match(data) && w.anyRecord(di) {
				return true
			}
		}
	}
	need := (len(recs) + 1) / 2
	if need < min {
		need = min
	}
	yes, no := 0, 0
	for _, f := range recs {
		if yes >= need || no > len(recs)-need {
			break
		}
		if data, ok := w.open(f, evidenceLimit); ok && isRecord(string(data)) {
			yes++
		} else {
			no++
		}
	}
	return yes >= need && need > 0
}

// anyRecord: the directory holds at least one record file.
func (w *walker) anyRecord(di *dirInfo) bool {
	for _, f := range di.md {
		if entry.IsRecordFile(f, entry.Source{Style: entry.StyleADR}) {
			return true
		}
	}
	return false
}
