package kb

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"

	"github.com/kontext/kontext/engine/internal/entry"
)

// lazyCorpus writes n entries of every kind, some superseding, linking
// or carrying a review date, and returns the filesystem.
func lazyCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	kinds := map[string]string{"decision": "decisions", "convention": "conventions", "learning": "learnings"}
	names := []string{"decision", "convention", "learning"}
	for i := 0; i < n; i++ {
		kind := names[i%3]
		d := filepath.Join(dir, ".ai", kinds[kind])
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		var fm []string
		fm = append(fm, fmt.Sprintf("paths: [\"src/m%d/**\"]", i%7))
		switch i % 5 {
		case 0:
			fm = append(fm, "status: accepted")
		case 1:
			fm = append(fm, "status: deprecated")
		case 2:
			fm = append(fm, fmt.Sprintf("review_by: 2026-0%d-01", i%9+1))
		case 3:
			if i > 3 {
				fm = append(fm, fmt.Sprintf("supersedes: [e-%03d]", i-3))
			}
		}
		text := fmt.Sprintf("---\nid: e-%03d\n%s\n---\n# Entry %d\n\nSee [[e-%03d]].\n", i, strings.Join(fm, "\n"), i, (i+1)%n)
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("e-%03d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLazyEntriesEqualEager: a process answering from the stored compiled
// snapshot decodes only what it is asked (governing's owners, an id, the
// tally), and each answer equals the fresh parse's, whatever subset and
// order is asked for; asking for every entry afterwards gives the same
// entries (the very ones already decoded).
func TestLazyEntriesEqualEager(t *testing.T) {
	dir := lazyCorpus(t, 60)
	fs := osfs.New(dir, osfs.WithBoundOS())
	fresh, err := NewReader(fs).Read("")
	if err != nil {
		t.Fatal(err)
	}
	store := &memStore{}
	w := NewReader(fs)
	w.SetStore(store)
	if _, err := w.Read(""); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	for round := 0; round < 40; round++ {
		r := NewReader(fs)
		r.SetStore(store)
		s, err := r.Read("")
		if err != nil {
			t.Fatal(err)
		}
		if s.lazy == nil {
			t.Fatal("the read did not answer from the compiled snapshot")
		}
		if s.Len() != len(fresh.Entries()) || s.ID != fresh.ID {
			t.Fatalf("round %d: %d entries (snapshot %s), want %d (%s)", round, s.Len(), s.ID, len(fresh.Entries()), fresh.ID)
		}
		seen := map[int]*entry.Entry{}
		for k := 0; k < 10; k++ {
			switch rng.Intn(4) {
			case 0: // governing: the owners the match index names
				p := fmt.Sprintf("src/m%d/x.go", rng.Intn(8))
				got, want := s.Governing().Lookup([]string{p}), fresh.Governing().Lookup([]string{p})
				if jsonOf(t, got) != jsonOf(t, want) {
					t.Fatalf("round %d: governing %s = %s, want %s", round, p, jsonOf(t, got), jsonOf(t, want))
				}
				for _, m := range got {
					seen[m.Owner] = s.Entry(m.Owner)
					if a, b := jsonOf(t, s.Entry(m.Owner)), jsonOf(t, fresh.Entries()[m.Owner]); a != b {
						t.Fatalf("round %d: entry %d = %s, want %s", round, m.Owner, a, b)
					}
				}
			case 1: // get by id, also one that is not there
				id := fmt.Sprintf("e-%03d", rng.Intn(70))
				got, ok := s.ByID(id)
				want, wok := fresh.ByID(id)
				if ok != wok || (ok && jsonOf(t, got) != jsonOf(t, want)) {
					t.Fatalf("round %d: ByID(%s) = %v %t, want %v %t", round, id, got, ok, want, wok)
				}
				l, lerr := s.Lookup(id)
				fl, ferr := fresh.Lookup(id)
				if jsonOf(t, l) != jsonOf(t, fl) || (lerr == nil) != (ferr == nil) {
					t.Fatalf("round %d: Lookup(%s) = %v %v, want %v %v", round, id, l, lerr, fl, ferr)
				}
			case 2: // status
				if a, b := jsonOf(t, s.Tally()), jsonOf(t, fresh.Tally()); a != b {
					t.Fatalf("round %d: tally %s, want %s", round, a, b)
				}
			case 3: // one entry by number
				i := rng.Intn(s.Len())
				seen[i] = s.Entry(i)
				if a, b := jsonOf(t, s.Entry(i)), jsonOf(t, fresh.Entries()[i]); a != b {
					t.Fatalf("round %d: entry %d = %s, want %s", round, i, a, b)
				}
			}
		}
		if round%2 == 0 {
			all := s.Entries()
			if a, b := jsonOf(t, all), jsonOf(t, fresh.Entries()); a != b {
				t.Fatalf("round %d: entries %s, want %s", round, a, b)
			}
			for i, e := range seen {
				if all[i] != e {
					t.Fatalf("round %d: entry %d decoded twice (another pointer)", round, i)
				}
			}
		}
	}
}

// TestLazyEntriesConcurrent: goroutines asking a stored snapshot for
// entries while the reader reads again (an MCP server) race on nothing
// (go test -race) and get the fresh parse's entries.
func TestLazyEntriesConcurrent(t *testing.T) {
	dir := lazyCorpus(t, 30)
	fs := osfs.New(dir, osfs.WithBoundOS())
	fresh, err := NewReader(fs).Read("")
	if err != nil {
		t.Fatal(err)
	}
	want := jsonOf(t, fresh.Entries())
	store := &memStore{}
	w := NewReader(fs)
	w.SetStore(store)
	if _, err := w.Read(""); err != nil {
		t.Fatal(err)
	}
	r := NewReader(fs)
	r.SetStore(store)
	s, err := r.Read("")
	if err != nil || s.lazy == nil {
		t.Fatalf("not answered from the compiled snapshot: %v", err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < s.Len(); i++ {
				s.Entry((i * (g + 1)) % s.Len())
				s.ByID(fmt.Sprintf("e-%03d", i))
			}
			if got := jsonOf(t, s.Entries()); got != want {
				t.Errorf("goroutine %d: entries differ from a fresh parse", g)
			}
		}(g)
	}
	// Meanwhile the reader reads again after a file changed: the records
	// the stored snapshot's entries refer to are decoded under its lock.
	os.WriteFile(filepath.Join(dir, ".ai", "decisions", "e-000.md"), []byte("---\nid: e-000\n---\n# Changed\n"), 0o644)
	if _, err := r.Read(""); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}

// TestLazyTableCorrupt: a compiled part whose table is wrong (its CRC
// made to match) is rejected and rebuilt, never a panic or a wrong entry.
func TestLazyTableCorrupt(t *testing.T) {
	dir := lazyCorpus(t, 12)
	fs, want, store, good := storedFresh(t, dir)
	st, err := decodeSnapshot(good, "test")
	if err != nil || st.compiled == "" {
		t.Fatalf("no compiled part: %v", err)
	}
	// Where the table sits in the file: after the inputs, id and count.
	at, crc := layout(t, good)
	d := &entry.Decoder{Buf: st.compiled}
	_, _ = d.String(), d.String() // inputs, snapshot id
	n := int(d.Uvarint())
	_ = d.String() // the table
	table := at + len(st.compiled) - len(d.Buf) - (8*n + 4)
	for name, edit := range map[string]func(b []byte){
		"offset past the end":     func(b []byte) { binary.LittleEndian.PutUint32(b[table+4*3:], 1<<30) },
		"offsets out of order":    func(b []byte) { b[table+4*2], b[table+4*5] = 0xff, 0 },
		"id order past the count": func(b []byte) { binary.LittleEndian.PutUint32(b[table+4*(n+1)+8:], uint32(n)) },
		"first offset not zero":   func(b []byte) { b[table] = 1 },
	} {
		data := append([]byte(nil), good...)
		edit(data)
		resum(t, data, crc)
		store.data = data
		r := NewReader(fs)
		r.SetStore(store)
		s, err := r.Read("")
		if err != nil {
			t.Fatal(err)
		}
		if s.lazy != nil {
			t.Errorf("%s: answered from the corrupt compiled part", name)
		}
		if got := answer(t, s); got != want {
			t.Errorf("%s: answer differs from a fresh parse", name)
		}
		r = NewReader(fs)
		r.SetStore(store)
		if s, err := r.Read(""); err != nil || s.lazy == nil || answer(t, s) != want {
			t.Errorf("%s: the snapshot was not rebuilt (%v)", name, err)
		}
	}
}
