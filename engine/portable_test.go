package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
)

const portableRev = "0123456789abcdef0123456789abcdef01234567"

func portableFiles() map[string]string {
	files := map[string]string{
		".ai/paths.toml":                   "[paths]\n\"c-1\" = [\"docs/**\"]\n",
		".ai/decisions/0001-use-go.md":     "# 1. Use Go\n\nDate: 2026-01-02\n\n## Status\n\nAccepted\n\nSuperseded by [2. Use Go 1.24](0002-use-go-124.md)\n\n## Context\n\nx\n",
		".ai/decisions/0002-use-go-124.md": "# 2. Use Go 1.24\n\nDate: 2026-01-03\n\n## Status\n\nAccepted\n\nSupersedes [1. Use Go](0001-use-go.md)\n",
		".ai/conventions/bad.md":           "---\nstatus: [\n---\n# Bad\n",
	}
	for i := 0; i < 30; i++ {
		files[fmt.Sprintf(".ai/conventions/c-%d.md", i)] = fmt.Sprintf("---\nstatus: active\npaths: [\"src/m%d/**\", \"!src/m%d/gen/**\"]\ntags: [t%d]\nfoo: {a: 1, b: [x, 2.5]}\n---\n# Convention %d\n\nBody %d.\n", i%5, i%5, i%3, i, i)
	}
	return files
}

// compilePortable is the portable snapshot of files at portableRev.
func compilePortable(t *testing.T, files map[string]string) []byte {
	t.Helper()
	snap, err := engine.CompileSnapshot(context.Background(), files, portableRev, nil)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// open opens files on the Snapshot surface, with a portable snapshot when
// snap is not nil.
func openPortable(t *testing.T, files map[string]string, snap []byte, immutable bool) (*engine.Engine, func(string, string)) {
	t.Helper()
	fs := memfs.New()
	write := func(name, text string) {
		if err := util.WriteFile(fs, name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for n, txt := range files {
		write(n, txt)
	}
	e := engine.New(engine.Options{FS: fs, Surface: engine.Snapshot, Revision: portableRev, Immutable: immutable})
	if snap != nil {
		e.UsePortableSnapshot(snap)
	}
	return e, func(n, txt string) { write(n, txt); e.Forget(n) }
}

// answers are the reads a bundle's reader makes, as envelopes.
func answers(t *testing.T, e *engine.Engine) string {
	t.Helper()
	ctx := context.Background()
	out := ""
	for _, r := range []struct{ op, in string }{
		{"status", `{}`},
		{"entries.list", `{"limit": 500}`},
		{"entries.governing", `{"paths": ["src/m1/a.go", "src/m1/gen/x.go", "docs/a.md", "src/m4/z/y.go"]}`},
		{"entries.search", `{"query": "convention body"}`},
		{"entries.get", `{"id": "0002-use-go-124"}`},
		{"diagnostics.list", `{}`},
	} {
		out += r.op + " " + string(e.Request(ctx, r.op, []byte(r.in))) + "\n"
	}
	return out
}

// TestPortableSnapshotAnswersLikeAParse: an engine answering from a
// bundle's compiled snapshot answers exactly like one that parses the
// files; a snapshot of other files, a corrupt one or one of another engine
// version is ignored (answers still equal a fresh parse), and after an
// update the engine parses only what changed.
func TestPortableSnapshotAnswersLikeAParse(t *testing.T) {
	files := portableFiles()
	snap := compilePortable(t, files)
	if again, err := engine.CompileSnapshot(context.Background(), files, portableRev, nil); err != nil || !bytes.Equal(again, snap) {
		t.Fatalf("compiling the same files twice gives other bytes (%v): a bundle is not reproducible", err)
	}
	// The snapshot references the files' texts, which the bundle carries,
	// instead of repeating them.
	for name, text := range files {
		if i := strings.Index(text, "\n---\n"); i >= 0 && bytes.Contains(snap, []byte(text[i+5:])) {
			t.Errorf("the snapshot repeats the body of %s", name)
		}
	}
	// Nor an entry's body, the file's text trimmed (not its tail).
	for i := 0; i < 30; i++ {
		if body := fmt.Sprintf("Body %d.", i); bytes.Contains(snap, []byte(body)) {
			t.Errorf("the snapshot repeats the body %q of c-%d", body, i)
		}
	}
	// Seeded by an engine that read other files (one edited, one only it
	// has, as a private entry): the same bytes as without a seed.
	seedFiles := portableFiles()
	seedFiles[".ai/conventions/c-3.md"] = "---\nstatus: active\npaths: [\"lib/**\"]\n---\n# Edited\n"
	seedFiles[".ai/conventions/private.md"] = "---\nstatus: active\nvisibility: private\n---\n# Private note\n"
	seed, _ := openPortable(t, seedFiles, nil, false)
	answers(t, seed)
	if seeded, err := engine.CompileSnapshot(context.Background(), files, portableRev, seed); err != nil || !bytes.Equal(seeded, snap) {
		t.Fatalf("a seeded compile differs from an unseeded one (%v); holds the seed's private file: %v", err, bytes.Contains(seeded, []byte("Private note")))
	}
	fresh, _ := openPortable(t, files, nil, false)
	want := answers(t, fresh)
	for _, immutable := range []bool{false, true} {
		e, _ := openPortable(t, files, snap, immutable)
		if got := answers(t, e); got != want {
			t.Fatalf("immutable=%v: answers from the snapshot\n%s\nwant (parse)\n%s", immutable, got, want)
		}
	}

	// Stale: the snapshot of other files (one changed, one added, one
	// removed), another revision, corrupt bytes, another version.
	other := portableFiles()
	other[".ai/conventions/c-3.md"] = "---\nstatus: active\npaths: [\"lib/**\"]\n---\n# Changed\n"
	other[".ai/conventions/new.md"] = "---\nstatus: active\npaths: [\"src/m1/**\"]\n---\n# New\n"
	delete(other, ".ai/conventions/c-4.md")
	otherFresh, _ := openPortable(t, other, nil, false)
	otherWant := answers(t, otherFresh)
	flipped := append([]byte(nil), snap...)
	flipped[len(flipped)/3] ^= 0x20
	// The parses come last, each checked by its own CRC when decoded: one
	// file name changed (the title is a span of the file's text there).
	flippedParse := append([]byte(nil), snap...)
	if i := bytes.LastIndex(flippedParse, []byte("conventions/c-7.md")); i < 0 {
		t.Fatal("no file name in the snapshot's parses")
	} else {
		flippedParse[i] ^= 0x20
	}
	oldRev, err := engine.CompileSnapshot(context.Background(), files, "fedcba9876543210fedcba9876543210fedcba98", nil)
	if err != nil {
		t.Fatal(err)
	}
	saved := engine.Version
	engine.Version = "another version"
	otherVersion, err := engine.CompileSnapshot(context.Background(), files, portableRev, nil)
	engine.Version = saved
	if err != nil {
		t.Fatal(err)
	}
	// A snapshot of an older format (a bundle written by an older
	// kontext of the same version string): ignored, the files parsed.
	olderFormat := append([]byte(nil), snap...)
	olderFormat[len("KONTEXTSNAP\x00")]--
	for name, c := range map[string]struct {
		files map[string]string
		snap  []byte
		want  string
	}{
		"older snapshot format":   {files, olderFormat, want},
		"snapshot of other files": {other, snap, otherWant},
		"other revision":          {files, oldRev, want},
		"corrupt":                 {files, flipped, want},
		"corrupt parse":           {files, flippedParse, want},
		"truncated":               {files, snap[:len(snap)/2], want},
		"garbage":                 {files, []byte("not a snapshot"), want},
		"another engine version":  {files, otherVersion, want},
	} {
		for _, immutable := range []bool{false, true} {
			e, _ := openPortable(t, c.files, c.snap, immutable)
			if got := answers(t, e); got != c.want {
				t.Errorf("%s (immutable=%v): answers differ from a parse\n%s\nwant\n%s", name, immutable, got, c.want)
			}
		}
	}

	// Updates: the immutable engine answers the old snapshot until Forget
	// (update() in the package), then the new files.
	for _, immutable := range []bool{false, true} {
		e, update := openPortable(t, files, snap, immutable)
		answers(t, e)
		update(".ai/conventions/c-3.md", other[".ai/conventions/c-3.md"])
		update(".ai/conventions/new.md", other[".ai/conventions/new.md"])
		ref, refUpdate := openPortable(t, files, nil, false)
		refUpdate(".ai/conventions/c-3.md", other[".ai/conventions/c-3.md"])
		refUpdate(".ai/conventions/new.md", other[".ai/conventions/new.md"])
		if got, want := answers(t, e), answers(t, ref); got != want {
			t.Errorf("immutable=%v, after an update: answers\n%s\nwant\n%s", immutable, got, want)
		}
	}
}

// spoilEntry returns snap with the first entry of its compiled part made
// undecodable (a mode no writer uses or, lists, a list bit beyond the
// lists) and its CRC still matching: a snapshot that passes every check
// at open, one of whose entries does not decode when an answer needs it.
func spoilEntry(t *testing.T, snap []byte, lists bool) []byte {
	t.Helper()
	d := append([]byte(nil), snap...)
	at := len("KONTEXTSNAP\x00")
	uv := func() uint64 {
		v, n := binary.Uvarint(d[at:])
		at += n
		return v
	}
	str := func() int {
		l := int(uv())
		at += l
		return at - l
	}
	uv()  // version
	str() // key
	_, n := binary.Varint(d[at:])
	at += n                     // stamp
	uv()                        // files
	plen := int(uv())           // the parses' length: they follow the CRC
	for k := uv(); k > 1; k-- { // source keys (count + 1)
		str()
	}
	at += 4 + int(binary.LittleEndian.Uint32(d[at:])) // rows
	compiled := str()
	crcAt := len(d) - plen - 4
	at = compiled
	str() // inputs
	str() // snapshot id
	uv()  // entries
	str() // table
	at = str()
	str() // the first entry's id
	if !lists {
		d[at] = 9
	} else if d[at] != 1 { // a reference: its file, then which lists are the parse's
		t.Fatalf("the first entry is stored whole (mode %d)", d[at])
	} else {
		at++
		uv()
		d[at] |= 1 << 5
	}
	binary.LittleEndian.PutUint32(d[crcAt:], crc32.ChecksumIEEE(d[:crcAt]))
	return d
}

// TestPortableSnapshotSpoiledEntry: a portable snapshot is decoded entry
// by entry as answers need them; one that passes every check at open but
// one of whose entries does not decode (another program's bytes) still
// answers exactly like a parse, whichever request meets the entry first.
func TestPortableSnapshotSpoiledEntry(t *testing.T) {
	files := portableFiles()
	fresh, _ := openPortable(t, files, nil, false)
	want := answers(t, fresh)
	ctx := context.Background()
	get := `{"id": "0001-use-go"}` // the first entry (decisions sort first)
	wantGet := string(fresh.Request(ctx, "entries.get", []byte(get)))
	for _, c := range []struct {
		lists, immutable bool
	}{{false, false}, {false, true}, {true, false}, {true, true}} {
		spoiled, immutable := spoilEntry(t, compilePortable(t, files), c.lists), c.immutable
		e, _ := openPortable(t, files, spoiled, immutable)
		if got := string(e.Request(ctx, "entries.get", []byte(get))); got != wantGet {
			t.Errorf("lists=%v immutable=%v: the spoiled entry first\n%s\nwant\n%s", c.lists, immutable, got, wantGet)
		}
		if got := answers(t, e); got != want {
			t.Errorf("lists=%v immutable=%v: answers after the spoiled entry differ from a parse\n%s\nwant\n%s", c.lists, immutable, got, want)
		}
		e, _ = openPortable(t, files, spoiled, immutable)
		if got := answers(t, e); got != want { // entries.list meets it first
			t.Errorf("lists=%v immutable=%v: answers differ from a parse\n%s\nwant\n%s", c.lists, immutable, got, want)
		}
		// entries.changed between two knowledge bases (the console's base
		// opens with the head's snapshot).
		other := portableFiles()
		other[".ai/decisions/0001-use-go.md"] += "\nEdited.\n"
		head, _ := openPortable(t, other, nil, immutable)
		base, _ := openPortable(t, files, spoiled, immutable)
		if got, want := string(engine.Changed(ctx, base, head)), string(engine.Changed(ctx, fresh, head)); got != want {
			t.Errorf("lists=%v immutable=%v: changed from the spoiled base\n%s\nwant\n%s", c.lists, immutable, got, want)
		}
	}
}
