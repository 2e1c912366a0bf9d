package sidecar

import (
	"math/rand/v2"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/internal/match"
)

func compile(t *testing.T, owner int, globs ...string) match.Set {
	s := match.Set{Owner: owner}
	for _, g := range globs {
		p, err := match.Compile(g)
		if err != nil {
			t.Fatal(err)
		}
		s.Patterns = append(s.Patterns, p)
	}
	return s
}

// TestAnswer: an encoded answer decodes entry by entry, and looks paths
// up as entries.governing orders them: the most specific first, then
// kind rank and id.
func TestAnswer(t *testing.T) {
	accepted := "accepted"
	a := &Answer{Snapshot: "snap", Entries: []Entry{
		{Kind: "decision", ID: "b-decision", Title: "B", Status: &accepted, Authority: true, Rank: 0},
		{Kind: "decision", ID: "a-decision", Title: "A", Rank: 0},
		{Kind: "convention", ID: "c-convention", Title: "C — ünïcode", Authority: true, Rank: 1},
	}}
	a.Index = string(match.NewIndex([]match.Set{
		compile(t, 0, "src/**"),
		compile(t, 1, "src/**", "docs/*.md"),
		compile(t, 2, "src/api/*.go"),
	}).AppendBinary(nil))
	d, err := Decode(string(a.Append(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if d.Snapshot != "snap" || d.Len() != 3 {
		t.Fatalf("decoded %q with %d entries", d.Snapshot, d.Len())
	}
	for i, want := range a.Entries {
		if got, ok := d.Entry(i); !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("entry %d: %+v %v, want %+v", i, got, ok, want)
		}
	}
	if _, ok := d.Entry(3); ok {
		t.Fatal("entry 3 of 3 decoded")
	}
	hits, entries, err := d.Lookup([]string{"src/api/x.go", "docs/a.md"})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, h := range hits {
		order = append(order, entries[h.Owner].ID)
	}
	// c: specificity 3 (src/api/*.go); a and b tie at src/** (same rank): by id
	if want := []string{"c-convention", "a-decision", "b-decision"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	if got := len(hits[1].Matches); got != 2 {
		t.Fatalf("a-decision matched %d paths, want 2 (src/** and docs/*.md)", got)
	}
	if _, err := Decode("kontext-sidecar-1\n"); err == nil {
		t.Fatal("another format decoded")
	}
}

// TestHits: matches below the minimum go, entries left with none go, and
// skipped owners go.
func TestHits(t *testing.T) {
	rs := []match.Result{
		{Owner: 0, Matches: []match.Match{{Path: "a", Rule: "a", Specificity: 4}, {Path: "b", Rule: "*", Specificity: 1}}},
		{Owner: 1, Matches: []match.Match{{Path: "b", Rule: "*", Specificity: 1}}},
		{Owner: 2, Matches: []match.Match{{Path: "a", Rule: "a", Specificity: 4}}},
	}
	key := func(o int) (int, string) { return 0, string(rune('x' + o)) }
	hits := Hits(rs, 2, func(o int) bool { return o == 2 }, key)
	want := []Hit{{Owner: 0, Matches: []Match{{Path: "a", Rule: "a", Specificity: 4}}, Best: 4}}
	if !reflect.DeepEqual(hits, want) {
		t.Fatalf("%+v, want %+v", hits, want)
	}
}

// TestAppendLayout pins Append's bytes: the header, a table of each
// entry's offset in the body, then the entries (kind, id, title, flags —
// 1 status, 2 authority —, status, rank). Append sizes its buffer once and
// fills the table in behind the entries, which must not change a byte of
// what earlier builds wrote and read.
func TestAppendLayout(t *testing.T) {
	status := "accepted"
	a := &Answer{Snapshot: "snap", Index: "KXI\x01ix", Entries: []Entry{
		{Kind: "decision", ID: "adr-1", Title: "Use cron", Status: &status, Authority: true, Rank: 2},
		{Kind: "learning", ID: "l-ß", Title: "Ünï", Rank: 300},
	}}
	want := magic + "\x04snap" + "\x06KXI\x01ix" + "\x02" +
		"\x00\x00\x00\x00" + "\x23\x00\x00\x00" + // the second entry starts 35 bytes in
		"\x08decision\x05adr-1\x08Use cron\x03\x08accepted\x02" +
		"\x08learning\x04l-ß\x05Ünï\x00\xac\x02"
	if got := a.Append([]byte("prefix")); string(got) != "prefix"+want {
		t.Fatalf("Append wrote\n%q\nwant\n%q", got, "prefix"+want)
	}
	if got := (&Answer{Snapshot: "s"}).Append(nil); string(got) != magic+"\x01s\x00\x00" {
		t.Fatalf("empty answer: %q", got)
	}
}

// TestCleanIsPathClean: alreadyClean(p) holds exactly when path.Clean leaves a
// relative p unchanged (CleanPath skips path.Clean on it), except for ".",
// ".." and paths starting "../", and never for an absolute p (CleanPath
// cleans all of those as before), on random paths over "a", "b", "/", "."
// and "..".
func TestCleanIsPathClean(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "b", "/", ".", ".."}
	for i := 0; i < 50000; i++ {
		p := ""
		for n := r.IntN(9); n > 0; n-- {
			p += alphabet[r.IntN(len(alphabet))]
		}
		want := p != "" && p[0] != '/' && path.Clean(p) == p && p != "." && p != ".." && !strings.HasPrefix(p, "../")
		if got := alreadyClean(p); got != want {
			t.Fatalf("alreadyClean(%q) = %v, want %v (path.Clean: %q)", p, got, want, path.Clean(p))
		}
	}
}
