package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/api"
)

// TestMarkdownHostileSizes: a thousand changed entries with very long
// titles, a thousand drifted ones and 5,000 files in directories with
// very long names still give a comment under the limit, with every table
// row complete.
func TestMarkdownHostileSizes(t *testing.T) {
	r := &Report{Base: strings.Repeat("a", 40), Head: strings.Repeat("b", 40), Scoped: true, Entries: map[string]*api.Entry{},
		Drift: &api.DriftResult{}}
	long := strings.Repeat("very long title | with pipes ", 40)
	for i := 0; i < 1000; i++ {
		id := fmt.Sprintf("e%04d", i)
		kind := []string{"decision", "convention"}[i%2]
		r.Entries[id] = &api.Entry{ID: id, Kind: kind, Title: long, File: ".ai/" + strings.Repeat("x", 300) + id + ".md"}
		st := "accepted"
		r.Changes = append(r.Changes, api.Change{ID: id, Kind: kind, Title: long, File: r.Entries[id].File, Change: "added", Status: &st})
		r.Drift.Entries = append(r.Drift.Entries, &api.DriftEntry{Entry: r.Entries[id], Changed: []string{strings.Repeat("p", 500)}})
	}
	for i := 0; i < 5000; i++ {
		p := fmt.Sprintf("%s%d/f%d.go", strings.Repeat("d", 250), i%700, i)
		r.Changed = append(r.Changed, p)
		f := &File{Path: p}
		for j := 0; j < 6; j++ {
			f.Governing = append(f.Governing, Governs{ID: fmt.Sprintf("e%04d", (i+j*37)%1000), Rule: strings.Repeat("*", 300), Specificity: j})
		}
		r.Files = append(r.Files, f)
	}
	md := Markdown(r, LinksFor("https://github.com", "acme/app", "", r.Head))
	if len(md) >= MaxComment {
		t.Fatalf("comment is %d bytes", len(md))
	}
	if !strings.Contains(md, "| --- |") || !strings.Contains(md, "more") {
		t.Errorf("the comment lost its tables or its counts:\n%.2000s", md)
	}
	cols := 0
	for i, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") - 1
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Fatalf("line %d has %d cells, its table %d: %.200s", i+1, n, cols, line)
		}
	}
}
