package engine

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/api"
)

// The compact view's entries are built without the full view's
// publication, premises and verification: what they carry must be all
// that compactEntries reads, so both give the same compact answer.
func TestCompactViewsAreTheFullViewsCompacted(t *testing.T) {
	fs := memfs.New()
	files := map[string]string{
		".ai/decisions/0001-use-go.md":     "# 1. Use Go\n\nDate: 2026-01-02\n\n## Status\n\nSuperseded by [2. Use Go 1.24](0002-use-go-124.md)\n\n## Context\n\nx\n",
		".ai/decisions/0002-use-go-124.md": "# 2. Use Go 1.24\n\nDate: 2026-01-03\n\n## Status\n\nAccepted\n\nSupersedes [1. Use Go](0001-use-go.md)\n",
		".ai/conventions/due.md":           "---\nstatus: active\nreview_by: 2026-01-01\nsummary: Due for review.\npaths: [\"src/**\"]\n---\n# Due\n\nSee [[0001-use-go]].\n",
		".ai/conventions/private.md":       "---\nvisibility: private\npaths: [\"src/a/**\"]\n---\n# Private\n\n" + strings.Repeat("Long body. ", 200) + "\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf(".ai/learnings/l-%d.md", i)] = fmt.Sprintf("---\nstatus: %s\npaths: [\"src/m%d/**\", \"**/*.go\"]\n---\n# Learning %d\n\nBody %d.\n", []string{"active", "Deprecated", "in progress"}[i%3], i%4, i, i)
	}
	for name, text := range files {
		if err := util.WriteFile(fs, name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	e := New(Options{FS: fs, Surface: Snapshot, Revision: "0123456789abcdef0123456789abcdef01234567", Now: func() time.Time { return now }})
	ctx := context.Background()
	st, err := e.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ens := st.Snap.Entries()
	if len(ens) != len(files) {
		t.Fatalf("%d entries read, want %d", len(ens), len(files))
	}
	full, err := e.views(ctx, st, ens, false)
	if err != nil {
		t.Fatal(err)
	}
	light, err := e.pageViews(ctx, st, ens, false, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ens {
		spec := i % 4
		for _, v := range []*api.Entry{full[i], light[i]} {
			v.Specificity = &spec
			v.Matches = []api.Match{{Path: "src/a/x.go", Rule: "**/*.go", Specificity: spec}, {Path: "src/a/x.go", Rule: "src/**", Specificity: spec}, {Path: "src/m1/y.go", Rule: "src/**", Specificity: 1}}
		}
	}
	for _, many := range []bool{false, true} {
		if got, want := compactEntries(light, many), compactEntries(full, many); !reflect.DeepEqual(got, want) {
			t.Errorf("many paths %v: compact of the light views differs from compact of the full views", many)
		}
	}
}

// compactEntries lists each matched path once, in the order first matched,
// for an entry with few matches and one with many (repeated paths).
func TestCompactEntriesPathsOnce(t *testing.T) {
	for _, n := range []int{3, 40} {
		spec := 2
		v := &api.Entry{ID: "x", Specificity: &spec}
		var want []string
		for i := 0; i < n; i++ {
			p := fmt.Sprintf("p%d", i%(n/2+1))
			v.Matches = append(v.Matches, api.Match{Path: p, Rule: "r", Specificity: spec})
			if !strings.Contains(" "+strings.Join(want, " ")+" ", " "+p+" ") {
				want = append(want, p)
			}
		}
		if got := compactEntries([]*api.Entry{v}, true)[0].Paths; !reflect.DeepEqual(got, want) {
			t.Errorf("%d matches: paths %q, want %q", n, got, want)
		}
	}
}
