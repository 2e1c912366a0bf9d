// Package render writes new entry files: the frontmatter style in the
// canonical key order and the ADR style as adr-tools writes it. It is pure:
// it formats the fields it is given and validates nothing.
package render

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Entry holds the fields of a new entry file. Empty strings and nil slices
// are left out.
type Entry struct {
	Title        string
	Status       string
	Date         string // YYYY-MM-DD
	Summary      string
	Paths        []string
	Tags         []string
	Supersedes   []string // ids (frontmatter style)
	SupersededBy []string
	Extends      []string
	Visibility   string
	ReviewBy     string
	Checked      string
	Verify       string
	Commits      []string
	ExternalRefs []string // written as the unknown key external_refs
	Body         string
	// Links are the "Supersedes [text](target)" lines of an ADR-style file.
	Links []Link
}

// Link is one relation line of an ADR-style status section.
type Link struct {
	Text   string // e.g. "3. Use SQLite"
	Target string // a relative file path
}

// Frontmatter renders a frontmatter-style file: the metadata keys in the
// canonical order (the title comes from the "# Title" heading), then the
// heading, a blank line and the body.
func Frontmatter(e Entry) []byte {
	var b strings.Builder
	b.WriteString("---\n")
	for _, kv := range fields(e, true) {
		b.WriteString(kv[0] + ": " + kv[1] + "\n")
	}
	b.WriteString("---\n")
	b.WriteString("# " + e.Title + "\n")
	writeBody(&b, e.Body)
	return []byte(b.String())
}

// ADR renders an ADR-style file numbered n (0: unnumbered) (zero-padded to width in the
// file name only): "# N. Title", the Date line, the kontext comment block
// when there is metadata, the status section and the body.
func ADR(n int, width int, e Entry) []byte {
	_ = width // the heading carries the plain number; width is the file name's
	var b strings.Builder
	if n > 0 {
		fmt.Fprintf(&b, "# %d. %s\n\nDate: %s\n\n", n, e.Title, e.Date)
	} else { // a log4brains log names records by date and numbers none
		fmt.Fprintf(&b, "# %s\n\nDate: %s\n\n", e.Title, e.Date)
	}
	meta := fields(e, false)
	if len(meta) > 0 {
		b.WriteString("<!-- kontext\n")
		for _, kv := range meta {
			b.WriteString(kv[0] + ": " + kv[1] + "\n")
		}
		b.WriteString("-->\n\n")
	}
	b.WriteString("## Status\n\n")
	b.WriteString(Capitalize(e.Status) + "\n")
	for _, l := range e.Links {
		b.WriteString("\nSupersedes [" + l.Text + "](" + l.Target + ")\n")
	}
	writeBody(&b, e.Body)
	return []byte(b.String())
}

// FileName is the file name of ADR n: "0007-use-postgres.md".
func FileName(n, width int, slug string) string {
	return fmt.Sprintf("%0*d-%s.md", width, n, slug)
}

func writeBody(b *strings.Builder, body string) {
	body = strings.Trim(body, "\n")
	if strings.TrimSpace(body) == "" {
		return
	}
	b.WriteString("\n" + body + "\n")
}

// Capitalize upper-cases the first letter of a status word.
func Capitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// fields lists the metadata lines in canonical order. The frontmatter
// style writes status, date, supersedes and visibility as keys; the ADR
// style keeps them in the document (and refuses private entries upstream).
func fields(e Entry, fm bool) [][2]string {
	var out [][2]string
	add := func(k, v string) {
		if v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	list := func(k string, xs []string, quoteAll bool) {
		if len(xs) > 0 {
			out = append(out, [2]string{k, FlowList(xs, quoteAll)})
		}
	}
	if fm {
		add("status", e.Status)
		add("date", e.Date)
	}
	add("summary", Scalar(e.Summary))
	list("paths", e.Paths, true)
	list("tags", e.Tags, false)
	if fm {
		list("supersedes", e.Supersedes, false)
		list("superseded_by", e.SupersededBy, false)
	}
	list("extends", e.Extends, false)
	if fm && e.Visibility != "" && e.Visibility != "team" {
		add("visibility", e.Visibility)
	}
	add("review_by", e.ReviewBy)
	add("checked", e.Checked)
	add("verify", Scalar(e.Verify))
	list("commits", e.Commits, false)
	list("external_refs", e.ExternalRefs, true)
	return out
}

// FlowList renders a YAML flow sequence: ["a", "b"] when quoteAll, else
// with each element quoted only where YAML requires it.
func FlowList(xs []string, quoteAll bool) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		if quoteAll || !plainOK(x, true) {
			parts[i] = quote(x)
		} else {
			parts[i] = x
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Scalar renders a one-line string value, quoted only where YAML requires.
func Scalar(s string) string {
	if s == "" {
		return ""
	}
	if plainOK(s, false) {
		return s
	}
	return quote(s)
}

func quote(s string) string { return strconv.Quote(s) }

// plainOK reports whether s reads back as the same string when written as
// a plain YAML scalar (inFlow: inside a flow sequence).
func plainOK(s string, inFlow bool) bool {
	if s == "" || s != strings.TrimSpace(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\ufeff' || r == 0x85 || r == 0x2028 || r == 0x2029 {
			return false
		}
	}
	if strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", rune(s[0])) {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return false
	}
	if inFlow {
		for _, r := range s {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_./+", r) {
				return false // keep flow lists simple: anything else is quoted
			}
		}
	}
	switch strings.ToLower(s) {
	case "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n", ".inf", "-.inf", "+.inf", ".nan":
		return false
	}
	if _, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil {
		return false
	}
	if _, err := strconv.ParseInt(s, 0, 64); err == nil {
		return false
	}
	if looksLikeTimestamp(s) {
		return false
	}
	return true
}

// looksLikeTimestamp: YAML 1.1 timestamps start with YYYY-M-D.
func looksLikeTimestamp(s string) bool {
	i := 0
	digits := func(min, max int) bool {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && n < max {
			i++
			n++
		}
		return n >= min
	}
	if !digits(4, 4) || i >= len(s) || s[i] != '-' {
		return false
	}
	i++
	if !digits(1, 2) || i >= len(s) || s[i] != '-' {
		return false
	}
	i++
	if !digits(1, 2) {
		return false
	}
	return i == len(s) || s[i] == 'T' || s[i] == 't' || s[i] == ' ' || s[i] == '\t'
}
