package engine

import (
	"reflect"
	"testing"

	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/kb"
)

// TestLineageNeedOnlyAsked: the governed hits are computed only for the
// entries asked about, and equal what one pass over every entry gives.
func TestLineageNeedOnlyAsked(t *testing.T) {
	ens := []*entry.Entry{
		{ID: "a", Status: "active", Paths: []string{"src/a/**", "!src/a/gen/**"}},
		{ID: "b", Status: "active", Paths: []string{"src/b/*.go"}},
		{ID: "c", Status: "active", Paths: []string{"**/*.md"}},
		{ID: "old", Status: "deprecated", Paths: []string{"src/**"}},
	}
	st := &State{Snap: kb.NewSnapshot(ens)}
	c1 := &Commit{SHA: "1", Paths: []string{"src/a/x.go", "src/b/y.go"}}
	c2 := &Commit{SHA: "2", Paths: []string{"src/a/gen/z.go", "docs/r.md"}}
	c3 := &Commit{SHA: "3", Paths: []string{"src/b/sub/q.go", "README.md"}}
	fresh := func() *lineage {
		return &lineage{governed: map[string][]governedHit{}, scanned: map[string]bool{},
			code: []codeCommit{{c3, c3.Paths}, {c2, c2.Paths}, {c1, c1.Paths}}}
	}
	shas := func(hs []governedHit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.commit.SHA+":"+h.paths[0])
		}
		return out
	}

	one := fresh()
	one.need(st, ens[:1])
	if !reflect.DeepEqual(one.scanned, map[string]bool{"a": true}) {
		t.Fatalf("scanned %v after asking for a", one.scanned)
	}
	if _, ok := one.governed["b"]; ok {
		t.Fatal("b's hits were computed though only a was asked for")
	}
	if got := shas(one.hits(ens[0])); !reflect.DeepEqual(got, []string{"1:src/a/x.go"}) {
		t.Errorf("a's hits = %v", got)
	}
	one.need(st, ens[1:2]) // later calls add the others
	all := fresh()
	all.need(st, ens)
	for _, en := range ens[:2] {
		if got, want := shas(one.hits(en)), shas(all.hits(en)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: hits asked one by one %v, all at once %v", en.ID, got, want)
		}
	}
	if got := shas(all.hits(ens[1])); !reflect.DeepEqual(got, []string{"1:src/b/y.go"}) {
		t.Errorf("b's hits = %v", got)
	}
	if got := shas(all.hits(ens[2])); !reflect.DeepEqual(got, []string{"3:README.md", "2:docs/r.md"}) {
		t.Errorf("c's hits = %v", got)
	}
	if got := all.hits(ens[3]); len(got) != 0 {
		t.Errorf("an inactive entry has hits %v", shas(got))
	}
	defer func() {
		if recover() == nil {
			t.Error("reading the hits of an entry never asked for did not panic")
		}
	}()
	fresh().hits(ens[0])
}
