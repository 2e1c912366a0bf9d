// Package table owns kontext's human tables: columns padded to their
// widest cell, fitted to a width when there is one, and the governing
// listing built from them.
package table

import (
	"io"
	"strings"
)

// Table is a human table that fits Width (the terminal, or $COLUMNS):
// when a row would overflow, entry ids are shortened first (to "ADR-7" or
// the shortest unique prefix, both of which kontext show takes), then the
// flexible column (a title) is cut, then whatever still overflows is cut
// at the edge. Width 0 (--wide, or output that is not a terminal and no
// $COLUMNS) shows every cell whole. Widths count runes.
type Table struct {
	W       io.Writer
	Width   int                         // 0: no limit
	Paint   func(code, s string) string // colours s (nil: no colour)
	Headers []string
	Rows    [][]string
	Colors  []string // SGR code per column ("" = none)
	IDCol   int      // column holding entry ids (-1: none)
	FlexCol int      // column cut before any other (-1: none)
	Short   func() map[string]string
	Indent  string // printed before every line, counted in the width
	// ColorOf, when set, picks a cell's colour from its text (a status).
	ColorOf func(col int, cell string) string
}

// New is a table with a header row.
func New(w io.Writer, width int, paint func(code, s string) string, headers ...string) *Table {
	return &Table{W: w, Width: width, Paint: paint, Headers: headers, Colors: make([]string, len(headers)), IDCol: -1, FlexCol: -1}
}

// Headless is a table without a header row of n columns.
func Headless(w io.Writer, width int, paint func(code, s string) string, n int) *Table {
	return &Table{W: w, Width: width, Paint: paint, Colors: make([]string, n), IDCol: -1, FlexCol: -1}
}

// Row adds a row.
func (t *Table) Row(cells ...string) { t.Rows = append(t.Rows, cells) }

const gap = 2

func (t *Table) widths() []int {
	w := make([]int, len(t.Headers))
	if len(t.Rows) > 0 {
		w = make([]int, max(len(t.Headers), len(t.Rows[0])))
	}
	for i, h := range t.Headers {
		w[i] = RuneLen(h)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			w[i] = max(w[i], RuneLen(c))
		}
	}
	return w
}

func sum(ws []int) int {
	n := gap * (len(ws) - 1)
	for _, w := range ws {
		n += w
	}
	return n
}

// Render writes the table.
func (t *Table) Render() {
	limit := t.Width
	if limit > 0 {
		limit = max(limit-RuneLen(t.Indent), 20)
	}
	ws := t.widths()
	if limit > 0 && sum(ws) > limit && t.IDCol >= 0 && t.Short != nil {
		short := t.Short()
		for _, r := range t.Rows {
			if s, ok := short[r[t.IDCol]]; ok {
				r[t.IDCol] = s
			}
		}
		ws = t.widths()
	}
	if limit > 0 && sum(ws) > limit && t.FlexCol >= 0 {
		ws[t.FlexCol] = max(10, ws[t.FlexCol]-(sum(ws)-limit))
	}
	// Still too wide: the widest other column gives way, down to 12.
	for limit > 0 && sum(ws) > limit {
		widest := -1
		for i, w := range ws {
			if i != t.FlexCol && w > 12 && (widest < 0 || w > ws[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break // the edge cut below keeps the line within the width
		}
		ws[widest] = max(12, ws[widest]-(sum(ws)-limit))
	}
	write := func(cells []string, header bool) {
		var b strings.Builder
		b.WriteString(t.Indent)
		vis := 0 // visible runes so far (colour sequences are not)
		for i, c := range cells {
			c = Cut(c, ws[i])
			pad := 0
			if i < len(cells)-1 {
				pad = ws[i] - RuneLen(c) + gap
			}
			if limit > 0 && vis+RuneLen(c) > limit {
				c = Cut(c, limit-vis)
				pad = 0
			}
			code := t.Colors[i]
			if t.ColorOf != nil && !header {
				if cc := t.ColorOf(i, cells[i]); cc != "" {
					code = cc
				}
			}
			if header {
				code = "97"
			}
			// Colour is added after measuring, around the visible text only.
			vis += RuneLen(c)
			if code != "" && t.Paint != nil {
				c = t.Paint(code, c)
			}
			b.WriteString(c)
			if i < len(cells)-1 && cells[i+1] == "" && allEmpty(cells[i+1:]) {
				break // no trailing padding
			}
			for range pad {
				b.WriteByte(' ')
			}
			vis += pad
			if limit > 0 && vis >= limit {
				break
			}
		}
		b.WriteByte('\n')
		io.WriteString(t.W, b.String())
	}
	if t.Headers != nil {
		write(t.Headers, true)
	}
	for _, r := range t.Rows {
		write(r, false)
	}
}

// RuneLen is the width of s in runes.
func RuneLen(s string) int { return len([]rune(s)) }

// Cut shortens s to n runes, marking the cut with "…".
func Cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return string(r[:n-1]) + "…"
}

func allEmpty(cells []string) bool {
	for _, c := range cells {
		if c != "" {
			return false
		}
	}
	return true
}
