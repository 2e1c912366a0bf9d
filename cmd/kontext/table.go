package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/internal/table"
)

// newTable is a table with a header row, fitted to o's width and painted
// with its colours.
func newTable(o *out, headers ...string) *table.Table {
	return table.New(o, o.width, o.paint, headers...)
}

// headless is a table without a header row of n columns.
func headless(o *out, n int) *table.Table {
	return table.Headless(o, o.width, o.paint, n)
}

// columns is the width human text fits: $COLUMNS when set (any output),
// else the terminal's width; 0 (no limit) when piped or with --wide.
func columns(g *factory, terminal int) int {
	if g.wide {
		return 0
	}
	if v, err := strconv.Atoi(g.columns); err == nil && v > 0 {
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
