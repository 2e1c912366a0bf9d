package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

// table is a human table that fits the output's width (the terminal, or
// $COLUMNS): when a row would overflow, entry ids are shortened first (to
// "ADR-7" or the shortest unique prefix, both of which kontext show
// takes), then the flexible column (a title) is cut, then whatever still
// overflows is cut at the edge. --wide, or output that is not a terminal
// and no $COLUMNS, shows every cell whole. Widths count runes.
type table struct {
	o       *out
	headers []string
	rows    [][]string
	colors  []string // SGR code per column ("" = none)
	idCol   int      // column holding entry ids (-1: none)
	flexCol int      // column cut before any other (-1: none)
	short   func() map[string]string
	indent  string // printed before every line, counted in the width
	// colorOf, when set, picks a cell's colour from its text (a status).
	colorOf func(col int, cell string) string
}

func newTable(o *out, headers ...string) *table {
	return &table{o: o, headers: headers, colors: make([]string, len(headers)), idCol: -1, flexCol: -1}
}

// headless is a table without a header row of n columns.
func headless(o *out, n int) *table {
	return &table{o: o, colors: make([]string, n), idCol: -1, flexCol: -1}
}

func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

const gap = 2

func (t *table) widths() []int {
	w := make([]int, len(t.headers))
	if len(t.rows) > 0 {
		w = make([]int, max(len(t.headers), len(t.rows[0])))
	}
	for i, h := range t.headers {
		w[i] = runeLen(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			w[i] = max(w[i], runeLen(c))
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

func (t *table) render() {
	limit := t.o.width
	if limit > 0 {
		limit = max(limit-runeLen(t.indent), 20)
	}
	ws := t.widths()
	if limit > 0 && sum(ws) > limit && t.idCol >= 0 && t.short != nil {
		short := t.short()
		for _, r := range t.rows {
			if s, ok := short[r[t.idCol]]; ok {
				r[t.idCol] = s
			}
		}
		ws = t.widths()
	}
	if limit > 0 && sum(ws) > limit && t.flexCol >= 0 {
		ws[t.flexCol] = max(10, ws[t.flexCol]-(sum(ws)-limit))
	}
	// Still too wide: the widest other column gives way, down to 12.
	for limit > 0 && sum(ws) > limit {
		widest := -1
		for i, w := range ws {
			if i != t.flexCol && w > 12 && (widest < 0 || w > ws[widest]) {
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
		vis := 0 // visible runes so far (colour sequences are not)
		for i, c := range cells {
			c = cut(c, ws[i])
			pad := ""
			if i < len(cells)-1 {
				pad = strings.Repeat(" ", ws[i]-runeLen(c)+gap)
			}
			if limit > 0 && vis+runeLen(c) > limit {
				c = cut(c, limit-vis)
				pad = ""
			}
			code := t.colors[i]
			if t.colorOf != nil && !header {
				if cc := t.colorOf(i, cells[i]); cc != "" {
					code = cc
				}
			}
			if header {
				code = "97"
			}
			// Colour is added after measuring, around the visible text only.
			vis += runeLen(c)
			if code != "" {
				c = t.o.paint(code, c)
			}
			b.WriteString(c)
			if i < len(cells)-1 && cells[i+1] == "" && allEmpty(cells[i+1:]) {
				break // no trailing padding
			}
			b.WriteString(pad)
			vis += runeLen(pad)
			if limit > 0 && vis >= limit {
				break
			}
		}
		fmt.Fprintln(t.o, t.indent+b.String())
	}
	if t.headers != nil {
		write(t.headers, true)
	}
	for _, r := range t.rows {
		write(r, false)
	}
}

func runeLen(s string) int { return len([]rune(s)) }

// cut shortens s to n runes, marking the cut with "…".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return string(r[:n-1]) + "…"
}

// columns is the width human text fits: $COLUMNS when set (any output),
// else the terminal's width; 0 (no limit) when piped or with --wide.
func columns(g *factory, terminal int) int {
	if g.wide {
		return 0
	}
	if v, err := strconv.Atoi(g.host.columns); err == nil && v > 0 {
		return max(v, 20)
	}
	return terminal
}

// shortIDs maps every entry id of the repository to the shortest form
// kontext show resolves to it: "ADR-<n>" when that number is unique, else
// the shortest unique prefix of at least 8 runes that no ADR number, file
// path or other id could take.
func shortIDs(entries []*api.Entry) map[string]string {
	adr := map[int]int{}
	for _, e := range entries {
		if e.ADRNumber != nil {
			adr[*e.ADRNumber]++
		}
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		if e.ADRNumber != nil && adr[*e.ADRNumber] == 1 {
			if s := fmt.Sprintf("ADR-%d", *e.ADRNumber); len(s) < len(e.ID) {
				out[e.ID] = s
				continue
			}
		}
		for n := 8; n < len(e.ID); n++ {
			p := e.ID[:n]
			if strings.TrimLeft(strings.TrimPrefix(strings.ToUpper(p), "ADR-"), "0123456789") == "" || strings.HasSuffix(p, "-") {
				continue
			}
			unique := true
			for _, o := range entries {
				if o.ID != e.ID && (strings.HasPrefix(o.ID, p) || o.File == p) {
					unique = false
					break
				}
			}
			if unique {
				// End at a word boundary when it is near: 2026-01-12-money, not 2026-01-12-m.
				if i := strings.IndexAny(e.ID[n+1:], "-_/."); i >= 0 && i < 8 {
					p = e.ID[:n+1+i]
				} else if i < 0 && len(e.ID)-n <= 9 {
					p = e.ID
				}
				out[e.ID] = p
				break
			}
		}
	}
	return out
}

// idShortener returns the short forms of every entry's id, read once.
func idShortener(ctx context.Context, g *factory) func() map[string]string {
	return func() map[string]string {
		var all []*api.Entry
		offset := 0
		for {
			l, err := read(ctx, g, (*engine.Engine).List, &api.ListInput{Limit: intp(500), Offset: offset, History: new(bool)}) // ids only: no commit index
			if err != nil {
				return nil
			}
			all = append(all, l.Entries...)
			if l.NextOffset == nil {
				return shortIDs(all)
			}
			offset = *l.NextOffset
		}
	}
}

func allEmpty(cells []string) bool {
	for _, c := range cells {
		if c != "" {
			return false
		}
	}
	return true
}
