package kb

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
)

// agedCorpus is lazyCorpus with every file's time an hour back, so no
// stored row is racy and a warm read can validate the rows in place.
func agedCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := lazyCorpus(t, n)
	at := time.Now().Add(-time.Hour)
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			err = os.Chtimes(p, at, at)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestWarmReadInPlace: a process that finds every file unchanged answers
// from the stored rows without building a record; after any change (an
// edit, a touch, a same-size same-time replacement, a rename, a delete,
// a new file, in one of several sources) it answers like a fresh parse,
// and the process after it is in place again.
func TestWarmReadInPlace(t *testing.T) {
	dir := agedCorpus(t, 30)
	fs := osfs.New(dir, osfs.WithBoundOS())
	store := &memStore{}
	readStored(t, fs, store, nil, "")
	rng := rand.New(rand.NewSource(5))
	past := time.Now().Add(-30 * time.Minute)
	dirs := []string{"decisions", "conventions", "learnings"}
	for step := 0; step < 40; step++ {
		r, s := readStored(t, fs, store, store.data, "")
		fresh, err := NewReader(fs).Read("")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := answer(t, s), answer(t, fresh); got != want {
			t.Fatalf("step %d: the stored snapshot answers\n%s\nwant (fresh parse)\n%s", step, got, want)
		}
		if step > 0 && step%2 == 0 && (r.tab == nil || s.lazy == nil) {
			t.Fatalf("step %d: nothing changed, yet the read built its records (or did not answer from the compiled part)", step)
		}
		if step%2 == 1 {
			continue // the next step's process finds this one's snapshot unchanged
		}
		// One change, to a file of one of the sources; its time (an
		// earlier one, so never racy) set as a clock would.
		d := filepath.Join(dir, ".ai", dirs[rng.Intn(len(dirs))])
		names, _ := filepath.Glob(filepath.Join(d, "*.md"))
		f := names[rng.Intn(len(names))]
		past = past.Add(time.Second)
		switch op := rng.Intn(6); op {
		case 0: // an edit of another size
			data, _ := os.ReadFile(f)
			must(t, os.WriteFile(f, append(data, "\nMore.\n"...), 0o644))
			must(t, os.Chtimes(f, past, past))
		case 1: // a touch
			must(t, os.Chtimes(f, past, past))
		case 2: // same size and time, another inode
			fi, _ := os.Stat(f)
			data, _ := os.ReadFile(f)
			data[len(data)-2] ^= 1
			must(t, os.WriteFile(f+".tmp", data, 0o644))
			must(t, os.Chtimes(f+".tmp", fi.ModTime(), fi.ModTime()))
			must(t, os.Rename(f+".tmp", f))
		case 3: // a rename
			must(t, os.Rename(f, filepath.Join(d, fmt.Sprintf("r-%d.md", step))))
		case 4: // a delete
			must(t, os.Remove(f))
		case 5: // a new file
			n := filepath.Join(d, fmt.Sprintf("n-%d.md", step))
			must(t, os.WriteFile(n, []byte(fmt.Sprintf("---\nid: n-%d\npaths: [\"src/m1/**\"]\n---\n# New\n", step)), 0o644))
			must(t, os.Chtimes(n, past, past))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestStoredParseCorrupt: a parse whose bytes no longer match its CRC
// (the rows and compiled part intact) is never used: a warm read parses
// that one file again and answers like a fresh parse, the store is
// rewritten with the same parse (the others kept as they were), and a
// read that rebuilds the compiled part (another HEAD) parses it again too.
func TestStoredParseCorrupt(t *testing.T) {
	dir := agedCorpus(t, 12)
	fs, want, store, good := storedFresh(t, dir)
	st, err := decodeSnapshot(good, "test")
	if err != nil {
		t.Fatal(err)
	}
	_, crc := layout(t, good)
	freshOther, err := NewReader(fs).Read("other")
	if err != nil {
		t.Fatal(err)
	}
	wantOther := answer(t, freshOther)
	parses := func(data []byte) []string {
		t.Helper()
		tab, err := decodeSnapshot(data, "test")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for i := 0; i < tab.n; i++ {
			var c cached
			if tab.row(i, &c) == "" {
				t.Fatalf("row %d does not decode", i)
			}
			out = append(out, c.raw)
		}
		return out
	}
	before := parses(good)
	for _, k := range []int{0, st.n / 2, st.n - 1} {
		var c cached
		st.row(k, &c)
		at := crc + 4 + int(st.parsAt[k]) + len(c.raw)/2
		bad := append([]byte(nil), good...)
		bad[at] ^= 0x20
		if _, err := decodeSnapshot(bad, "test"); err != nil {
			t.Fatalf("parse %d: the rows do not decode: %v", k, err)
		}
		// A warm read: the compiled part answers, the corrupt parse is
		// met when its entry is decoded.
		_, s := readStored(t, fs, store, bad, "")
		if got := answer(t, s); got != want {
			t.Fatalf("parse %d corrupt: the warm read answers\n%s\nwant\n%s", k, got, want)
		}
		if string(store.data) == string(bad) {
			t.Fatalf("parse %d corrupt: the store was not rewritten", k)
		}
		if after := parses(store.data); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("parse %d corrupt: the rewritten parses differ from the good ones", k)
		}
		again := NewReader(fs)
		again.SetStore(store)
		if s, err := again.Read(""); err != nil || answer(t, s) != want {
			t.Fatalf("parse %d corrupt: the read after the repair answers differently (%v)", k, err)
		}
		// A read that rebuilds the compiled part decodes every parse.
		if _, s = readStored(t, fs, store, bad, "other"); answer(t, s) != wantOther {
			t.Fatalf("parse %d corrupt: the rebuilding read answers differently from a fresh parse", k)
		}
		if after := parses(store.data); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("parse %d corrupt: the rebuilt parses differ from the good ones", k)
		}
	}
}

// TestHasDuplicate: a file two listings hold is found, whether or not
// their ranges of paths overlap elsewhere.
func TestHasDuplicate(t *testing.T) {
	l := jobsOf
	for _, c := range []struct {
		lists [][]job
		want  bool
	}{
		{[][]job{l("a/1", "a/2"), l("b/1")}, false},
		{[][]job{l("b/1"), nil, l("a/1", "a/2")}, false},
		{[][]job{l("a/1", "c/1"), l("b/1", "b/2")}, false},
		{[][]job{l("a/1", "c/1"), l("b/1", "c/1")}, true},
		{[][]job{l("x"), l("a", "x", "z")}, true},
		{[][]job{l("a", "m"), l("b"), l("m")}, true},
	} {
		if got := hasDuplicate(c.lists); got != c.want {
			t.Errorf("hasDuplicate(%v) = %t, want %t", c.lists, got, c.want)
		}
	}
}
