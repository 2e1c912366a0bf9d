// Package nesting bounds the container nesting of Markdown lines before
// goldmark parses them: both the entry parser and the body renderer go
// through it.
package nesting

// Cap returns src with every line's container-marker prefix (">",
// list markers, indentation) beyond max blanked out: the markers become
// spaces, so offsets and line numbers are unchanged and the line still
// renders, only less deeply nested. Goldmark's block parser is quadratic in
// the nesting one line opens; every caller of goldmark goes through this.
// src itself is returned when nothing is capped.
func Cap(src []byte, max int) []byte {
	var out []byte
	run, lineStart := 0, true
	for i, c := range src {
		if c == '\n' {
			run, lineStart = 0, true
			continue
		}
		if !lineStart {
			continue
		}
		switch c {
		case '>', ' ', '\t', '.', ')', '-', '*', '+', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			if run++; run > max {
				if out == nil {
					out = append([]byte(nil), src...)
				}
				out[i] = ' '
			}
		default:
			lineStart = false
		}
	}
	if out == nil {
		return src
	}
	return out
}
