package kb

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/entry"
)

// memStore is a Store in memory; FileID is the inode where the platform
// reports one.
type memStore struct {
	data  []byte
	saves int
}

func (m *memStore) LoadSnapshot() ([]byte, error) { return m.data, nil }
func (m *memStore) SaveSnapshot(d []byte) error {
	m.data = append([]byte(nil), d...)
	m.saves++
	return nil
}
func (m *memStore) Key() string { return "test" }
func (m *memStore) FileID(fi os.FileInfo) uint64 {
	v := reflect.ValueOf(fi.Sys())
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		if f := v.Elem().FieldByName("Ino"); f.IsValid() && f.CanUint() {
			return f.Uint()
		}
	}
	return 0
}

// answer is everything a read answers, as JSON.
func answer(t *testing.T, s *Snapshot) string {
	t.Helper()
	var paths []string
	for m := 0; m < 10; m++ {
		paths = append(paths, fmt.Sprintf("src/m%d/a.go", m))
	}
	// Entry by entry first (a stored snapshot decodes each on its own),
	// last first, and the tally, before every entry is decoded at once.
	one := make([]any, s.Len())
	for i := s.Len() - 1; i >= 0; i-- {
		one[i] = s.Entry(i)
	}
	tally := s.Tally()
	b, err := json.Marshal(map[string]any{"id": s.ID, "one by one": one, "tally": tally, "entries": s.Entries(), "diags": s.Diagnostics, "skipped": s.Skipped, "blobs": blobsOf(s),
		"governing": s.Governing().Lookup(paths), "ledger": s.LedgerLines, "overlay": s.Overlay})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// blobsOf is every blob id s knows, by file (a stored snapshot's from
// its table).
func blobsOf(s *Snapshot) map[string]string {
	tb, ok := s.blobsFrom.(tableBlobs)
	if !ok {
		return s.blobs
	}
	m := map[string]string{}
	for i := 0; i < tb.n; i++ {
		var c cached
		if f := tb.row(i, &c); c.blob != "" {
			m[f] = c.blob
			if s.Blob(f) != c.blob {
				panic("Blob differs from the table")
			}
		}
	}
	return m
}

// layout is where a stored snapshot's compiled part and CRC sit.
func layout(t *testing.T, data []byte) (compiled, crc int) {
	t.Helper()
	st, err := decodeSnapshot(data, "test")
	if err != nil {
		t.Fatal(err)
	}
	crc = len(data) - len(st.parses) - 4 // the parses follow the CRC
	enc := &entry.Encoder{}
	enc.Strings(st.data) // between the compiled part and the CRC
	return crc - len(enc.Buf) - len(st.compiled), crc
}

// resum makes data's CRC match its (edited) bytes again.
func resum(t *testing.T, data []byte, crc int) {
	binary.LittleEndian.PutUint32(data[crc:], crc32.ChecksumIEEE(data[:crc]))
}

func entryText(i, v int) string {
	return fmt.Sprintf("---\nstatus: active\ndate: 2026-01-0%d\npaths: [\"src/m%d/**\"]\nfoo: {a: 1, b: [x, 2.5, true]}\n---\n# Entry %d v%d\n\nBody %d.\n", v%9+1, v%10, i, v%10, v%10)
}

// TestStoredSnapshotNeverStale edits, renames, deletes, touches and
// replaces files between reads — among them same-size edits that keep the
// file's modification time, the case git calls racy — and checks that a
// reader started from the stored snapshot (a new process) and one kept
// alive (an MCP server) always answer exactly like a fresh parse.
func TestStoredSnapshotNeverStale(t *testing.T) {
	dir := t.TempDir()
	conv := filepath.Join(dir, ".ai", "conventions")
	if err := os.MkdirAll(conv, 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(13))
	// Half of the files carry a modification time in the future: always
	// racy, so a same-size edit that keeps it must be caught by hashing.
	// The other half carry one in the past (never racy): a same-size
	// replacement with the same time is then seen only by its inode.
	future := time.Now().Add(time.Hour).Truncate(time.Second)
	past := future.Add(-5 * time.Hour)
	name := func(i int) string { return filepath.Join(conv, fmt.Sprintf("e-%03d.md", i)) }
	version := map[int]int{}
	futureTime := map[int]bool{} // the file's time is the future one
	writes := 0
	write := func(i, v int) {
		if err := os.WriteFile(name(i), []byte(entryText(i, v)), 0o644); err != nil {
			t.Fatal(err)
		}
		version[i] = v
		futureTime[i] = i%2 == 0
		writes++
		at := past.Add(time.Duration(writes) * time.Second) // each write its own time, as a clock gives
		if futureTime[i] {
			at = future
		}
		if err := os.Chtimes(name(i), at, at); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 20; i++ {
		write(i, 0)
	}
	store := &memStore{}
	fs := osfs.New(dir, osfs.WithBoundOS())
	live := NewReader(fs)
	live.SetStore(store)
	existing := func() []int {
		var out []int
		for i := 0; i < 40; i++ {
			if _, ok := version[i]; ok {
				out = append(out, i)
			}
		}
		return out
	}
	fastReads, keptIndex, builtIndex := 0, 0, 0
	for step := 0; step < 200; step++ {
		files := existing()
		i := files[rng.Intn(len(files))]
		var op string
		switch rng.Intn(9) {
		case 7: // the ledger grows (a well-formed or a malformed line)
			op = "ledger line"
			f, err := os.OpenFile(filepath.Join(dir, ".ai", "confirmations.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "not a ledger line %d\n", step)
			f.Close()
		case 8: // the path overlay changes
			op = "overlay"
			text := fmt.Sprintf("[paths]\n%q = [\"src/m%d/**\"]\n", fmt.Sprintf("e-%03d", i), step%10)
			if err := os.WriteFile(filepath.Join(dir, ".ai", "paths.toml"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		case 0: // an edit of another size
			op = "edit"
			write(i, version[i]+10)
		case 1: // same size, modification time kept (git's racy case)
			op = "same-size edit, mtime kept"
			if !futureTime[i] {
				// Keeping a time older than the stored snapshot forges it:
				// no stat-based cache (git's neither) can see that edit.
				// Only racy times are kept.
				continue
			}
			fi, err := os.Stat(name(i))
			if err != nil {
				t.Fatal(err)
			}
			write(i, version[i]+1)
			if version[i]%10 == 0 { // the size would change at the wrap: keep the text length
				write(i, version[i]+1)
			}
			if err := os.Chtimes(name(i), fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		case 2: // rename
			op = "rename"
			j := 20 + rng.Intn(20)
			if _, taken := version[j]; taken {
				continue
			}
			if err := os.Rename(name(i), name(j)); err != nil {
				t.Fatal(err)
			}
			version[j], futureTime[j] = version[i], futureTime[i]
			delete(version, i)
		case 3: // delete
			if len(files) < 5 {
				continue
			}
			op = "delete"
			if err := os.Remove(name(i)); err != nil {
				t.Fatal(err)
			}
			delete(version, i)
		case 4: // a new file
			op = "create"
			j := rng.Intn(40)
			if _, taken := version[j]; taken {
				continue
			}
			write(j, rng.Intn(100))
		case 5: // touch: new time, same content
			op = "touch"
			now := time.Now()
			if err := os.Chtimes(name(i), now, now); err != nil {
				t.Fatal(err)
			}
			futureTime[i] = false
		case 6: // replaced by another file of the same size and time (a new inode)
			op = "replace by rename, same size and time"
			fi, err := os.Stat(name(i))
			if err != nil {
				t.Fatal(err)
			}
			v := version[i] + 1
			if v%10 == 0 {
				v++
			}
			tmp := name(i) + ".tmp"
			if err := os.WriteFile(tmp, []byte(entryText(i, v)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, name(i)); err != nil {
				t.Fatal(err)
			}
			version[i] = v
		}
		fresh, err := NewReader(fs).Read("")
		if err != nil {
			t.Fatal(err)
		}
		proc := NewReader(fs) // a new process: starts from the stored snapshot
		proc.SetStore(store)
		stored := store.data
		fromStore, err := proc.Read("")
		if err != nil {
			t.Fatal(err)
		}
		if proc.compiled == "" && within(fromStore.Governing().Encoded(), stored) {
			keptIndex++ // rebuilt, and the stored index kept (no paths changed)
		} else if proc.compiled == "" {
			builtIndex++
		}
		kept, err := live.Read("")
		if err != nil {
			t.Fatal(err)
		}
		// A second new process finds nothing changed: it answers from the
		// stored compiled snapshot.
		again := NewReader(fs)
		again.SetStore(store)
		compiled, err := again.Read("")
		if err != nil {
			t.Fatal(err)
		}
		want := answer(t, fresh)
		if got := answer(t, fromStore); got != want {
			t.Fatalf("step %d (%s of file %d): the reader loaded from the stored snapshot answers\n%s\nwant (fresh parse)\n%s", step, op, i, got, want)
		}
		if got := answer(t, compiled); got != want {
			t.Fatalf("step %d (%s of file %d): the reader answering from the compiled snapshot answers\n%s\nwant (fresh parse)\n%s", step, op, i, got, want)
		}
		if again.compiled != "" {
			fastReads++
		}
		if got := answer(t, kept); got != want {
			t.Fatalf("step %d (%s of file %d): the long-lived reader answers\n%s\nwant (fresh parse)\n%s", step, op, i, got, want)
		}
	}
	if store.saves == 0 {
		t.Fatal("the snapshot was never stored")
	}
	if fastReads == 0 {
		t.Fatal("no read was answered from the compiled snapshot")
	}
	if keptIndex == 0 || builtIndex == 0 {
		t.Fatalf("of the rebuilds from the stored snapshot, %d kept its match index and %d built one: want both", keptIndex, builtIndex)
	}
}

// within reports whether s lies in b's memory.
func within(s string, b []byte) bool {
	if len(s) == 0 || len(b) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= lo && p+uintptr(len(s)) <= lo+uintptr(len(b))
}

// TestStoredSnapshotCorrupt: a truncated, bit-flipped or foreign snapshot
// is ignored and rebuilt, never trusted.
func TestStoredSnapshotCorrupt(t *testing.T) {
	dir := t.TempDir()
	conv := filepath.Join(dir, ".ai", "conventions")
	if err := os.MkdirAll(conv, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if err := os.WriteFile(filepath.Join(conv, fmt.Sprintf("e-%d.md", i)), []byte(entryText(i, i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs, want, store, good := storedFresh(t, dir)
	if st, err := decodeSnapshot(good, "test"); err != nil || st.n != 5 || st.compiled == "" {
		t.Fatalf("stored snapshot does not decode: %v (%d files, compiled %t)", err, st.n, st.compiled != "")
	}
	// A flipped bit anywhere before the parses fails the CRC checked at
	// load; the parses are checked one by one (TestStoredParseCorrupt).
	compiled, crc := layout(t, good)
	st, _ := decodeSnapshot(good, "test")
	rows := compiled - len(binary.AppendUvarint(nil, uint64(len(st.compiled)))) - len(st.rows)
	flip := func(i int, b byte) []byte {
		d := append([]byte(nil), good...)
		d[i] ^= b
		return d
	}
	oldVersion := append([]byte(nil), good...)
	oldVersion[len(snapshotMagic)] = snapshotVersion - 1
	for name, data := range map[string][]byte{
		"truncated": good[:len(good)/2], "one byte short": good[:len(good)-1], "empty": {}, "garbage": []byte("not a snapshot at all, really"),
		"bit flipped in the rows": flip(rows+len(st.rows)/2, 0x40), "bit flipped in a path": flip(rows+2, 0x01),
		"bit flipped in the compiled part": flip(crc-len(st.compiled)/2, 0x08), "CRC flipped": flip(crc+1, 0x80),
		"old version": oldVersion,
	} {
		if _, err := decodeSnapshot(data, "test"); err == nil {
			t.Errorf("%s snapshot decodes", name)
		}
		if _, s := readStored(t, fs, store, data, ""); answer(t, s) != want {
			t.Errorf("%s snapshot: answer differs from a fresh parse", name)
		}
		if _, err := decodeSnapshot(store.data, "test"); err != nil {
			t.Errorf("%s snapshot was not rebuilt: %v", name, err)
		}
	}
	if _, err := decodeSnapshot(good, "another binary"); err == nil {
		t.Error("a snapshot written by another binary is trusted")
	}
}

// portableStore is a PortableStore in memory.
type portableStore struct{ memStore }

func (p *portableStore) FileID(os.FileInfo) uint64 { return 0 }
func (p *portableStore) SaveBack() bool            { return true }

// TestPortableStore: a snapshot built on one filesystem answers, from its
// compiled form, a reader of the same files on another (other times), and
// a file whose content differs is parsed again, never trusted.
func TestPortableStore(t *testing.T) {
	write := func(fs billy.Filesystem, name, text string) {
		if err := util.WriteFile(fs, name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{}
	for i := 0; i < 10; i++ {
		files[fmt.Sprintf(".ai/conventions/e-%d.md", i)] = entryText(i, i)
	}
	src := memfs.New()
	for n, txt := range files {
		write(src, n, txt)
	}
	store := &portableStore{}
	w := NewReader(src)
	w.SetStore(store)
	built, err := w.Read("rev")
	if err != nil {
		t.Fatal(err)
	}
	want := answer(t, built)
	time.Sleep(2 * time.Millisecond) // memfs files of the next filesystem get other times

	dst := memfs.New()
	for n, txt := range files {
		write(dst, n, txt)
	}
	r := NewReader(dst)
	r.SetStore(&portableStore{memStore{data: store.data}})
	got, err := r.Read("rev")
	if err != nil {
		t.Fatal(err)
	}
	if answer(t, got) != want {
		t.Fatal("the portable snapshot answers differently from a parse")
	}
	if r.compiled == "" {
		t.Fatal("the read did not answer from the compiled snapshot")
	}
	// Read only (a bundle opened in WASM): the files are checked against
	// the rows in place, no record is made for them, and every entry
	// decodes with its file's text.
	ro := NewReader(dst)
	ro.SetReadOnlyStore(&portableStore{memStore{data: store.data}})
	if got, err = ro.Read("rev"); err != nil {
		t.Fatal(err)
	}
	if answer(t, got) != want {
		t.Fatal("the read-only portable snapshot answers differently from a parse")
	}
	if ro.files != nil || ro.tab == nil || ro.Spoiled() != 0 {
		t.Fatalf("a read-only portable read made records (%d) or spoiled %d entries", len(ro.files), ro.Spoiled())
	}

	// One file's content differs (same size): parsed, not trusted.
	changed := memfs.New()
	for n, txt := range files {
		write(changed, n, txt)
	}
	write(changed, ".ai/conventions/e-3.md", entryText(3, 4))
	fresh, err := NewReader(changed).Read("rev")
	if err != nil {
		t.Fatal(err)
	}
	r = NewReader(changed)
	r.SetStore(&portableStore{memStore{data: store.data}})
	got, err = r.Read("rev")
	if err != nil {
		t.Fatal(err)
	}
	if answer(t, got) != answer(t, fresh) {
		t.Fatal("a portable snapshot of other content answers differently from a parse")
	}
	ro = NewReader(changed)
	ro.SetReadOnlyStore(&portableStore{memStore{data: store.data}})
	if got, err = ro.Read("rev"); err != nil {
		t.Fatal(err)
	}
	if answer(t, got) != answer(t, fresh) {
		t.Fatal("a read-only portable snapshot of other content answers differently from a parse")
	}
}

// A stored snapshot, portable or kept on disk, holds its configuration
// and path overlay decoded, as JSON data; a reader of the same texts takes
// them from there, equal to what the parser gives.
func TestSnapshotStoresDecodedTOML(t *testing.T) {
	fs := memfs.New()
	cfg := "[kinds.decision]\ndir = \"docs/adr\"\n[llm]\nadapter = \"x\"\n"
	overlay := "version = 1\n[paths]\n\"e-1\" = [\"src/**\", \"[\"]\n"
	for name, text := range map[string]string{".kontext.toml": cfg, ".ai/paths.toml": overlay, ".ai/conventions/e-1.md": entryText(1, 1)} {
		if err := util.WriteFile(fs, name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, portable := range []bool{true, false} {
		var store Store = &portableStore{}
		if !portable {
			store = &memStore{}
		}
		r := NewReader(fs)
		r.SetStore(store)
		if _, err := r.Read("rev"); err != nil {
			t.Fatal(err)
		}
		data, _ := store.LoadSnapshot()
		st, err := decodeSnapshot(data, "test")
		if err != nil {
			t.Fatal(err)
		}
		if len(st.data) != 6 || st.data[0] != "config" || st.data[1] != cfg || st.data[3] != "overlay" || st.data[4] != overlay {
			t.Fatalf("portable %v: stored data %q", portable, st.data)
		}
		want, err := config.Parse(".kontext.toml", []byte(cfg))
		if err != nil {
			t.Fatal(err)
		}
		if got := st.decoded.config(".kontext.toml", []byte(cfg)); !reflect.DeepEqual(got, want) {
			t.Fatalf("portable %v: stored configuration %+v, parsed %+v", portable, got, want)
		}
		if got := st.decoded.config(".ai/kontext.toml", []byte(cfg)); got != nil {
			t.Fatalf("portable %v: the configuration of another file is taken from the snapshot", portable)
		}
		if got := st.decoded.config(".kontext.toml", []byte(cfg+"\n")); got != nil {
			t.Fatalf("portable %v: the configuration of another text is taken from the snapshot", portable)
		}
		wantOv, wantDiags := ParseOverlay(".ai/paths.toml", []byte(overlay))
		gotOv, gotDiags, ok := st.decoded.overlay(".ai/paths.toml", []byte(overlay))
		if !ok || !reflect.DeepEqual(gotOv, wantOv) || !reflect.DeepEqual(gotDiags, wantDiags) || len(wantDiags) != 1 {
			t.Fatalf("portable %v: stored overlay %+v %+v, parsed %+v %+v", portable, gotOv, gotDiags, wantOv, wantDiags)
		}
	}
}

// readStored reads fs as a new process does, from the stored bytes data.
func readStored(t *testing.T, fs billy.Filesystem, store *memStore, data []byte, head string) (*Reader, *Snapshot) {
	t.Helper()
	store.data = data
	r := NewReader(fs)
	r.SetStore(store)
	s, err := r.Read(head)
	if err != nil {
		t.Fatal(err)
	}
	return r, s
}

// storedFresh reads dir fresh (the answer to compare with), then once more
// through a memory store, and returns the stored bytes as written.
func storedFresh(t *testing.T, dir string) (billy.Filesystem, string, *memStore, []byte) {
	t.Helper()
	fs := osfs.New(dir, osfs.WithBoundOS())
	fresh, err := NewReader(fs).Read("")
	if err != nil {
		t.Fatal(err)
	}
	store := &memStore{}
	r := NewReader(fs)
	r.SetStore(store)
	if _, err := r.Read(""); err != nil {
		t.Fatal(err)
	}
	return fs, answer(t, fresh), store, append([]byte(nil), store.data...)
}

// TestBlobIDsStoredAsBytes: a row stores a blob id as its 20 bytes and
// gives back the same text; an id of another form is stored as it is.
func TestBlobIDsStoredAsBytes(t *testing.T) {
	id := BlobID([]byte("hello\n"))
	if b := blobBytes(id); len(b) != 20 || blobText(b, nil) != id {
		t.Errorf("blob id %s stored as %q, read back as %q", id, b, blobText(b, nil))
	}
	for _, odd := range []string{"", strings.ToUpper(id), id[:39] + "g", id + "0"} {
		if b := blobBytes(odd); b != odd || blobText(b, nil) != odd {
			t.Errorf("blob id %q stored as %q", odd, b)
		}
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".ai", "conventions"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := entryText(1, 1)
	if err := os.WriteFile(filepath.Join(dir, ".ai", "conventions", "e.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, good := storedFresh(t, dir)
	if id := BlobID([]byte(text)); strings.Contains(string(good), id) || !strings.Contains(string(good), blobBytes(id)) {
		t.Error("the stored snapshot does not hold the file's blob id as 20 bytes")
	}
}
