package quick

import (
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sample(r *rand.Rand) *File {
	f := &File{Op: Governing, Fingerprint: "fp", Root: "/repo", Aliases: []string{"/real/repo"}, Answer: "kontext-sidecar-2\nanswer bytes"}
	for i := range 50 {
		s := Stat{Path: strings.Repeat("d/", i%4) + "f" + string(rune('a'+i%26)) + ".md"}
		if r.Intn(5) == 0 {
			s.Absent = true
		} else {
			s.Mode, s.Size, s.Mtime, s.Ctime = 0o100644, r.Int63n(1<<20), r.Int63(), r.Int63()
			s.Ino, s.Dev = r.Uint64(), r.Uint64()
		}
		f.Stats = append(f.Stats, s)
	}
	return f
}

// TestFileRoundTrip: what Append writes decodes to the same file; any
// changed or missing byte is refused, never decoded into other stat data.
func TestFileRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	f := sample(r)
	data := f.Append(nil)
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got, f)
	}
	for i := range data {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x20
		if _, err := Decode(bad); err == nil {
			t.Fatalf("a flipped byte at %d decoded", i)
		}
	}
	for n := range len(data) {
		if _, err := Decode(data[:n]); err == nil {
			t.Fatalf("%d of %d bytes decoded", n, len(data))
		}
	}
}

// TestWrite: a sidecar is written under its fingerprint's name, not when
// an input changed in the second its read started, and a git dir keeps
// the newest few.
func TestWrite(t *testing.T) {
	gitDir := t.TempDir()
	start := time.Now()
	f := sample(rand.New(rand.NewSource(2)))
	for i := range f.Stats {
		f.Stats[i].Mtime, f.Stats[i].Ctime = start.Add(-2*time.Second).UnixNano(), start.Add(-2*time.Second).UnixNano()
	}
	f.Stats[3].Absent = false
	f.Stats[3].Ctime = start.Truncate(time.Second).UnixNano() // racy
	if wrote, err := Write(gitDir, f, start); wrote || err != nil {
		t.Fatalf("a racy input: wrote %v, %v", wrote, err)
	}
	f.Stats[3].Ctime = start.Add(-2 * time.Second).UnixNano()
	for i := range keepSidecars + 3 {
		f.Fingerprint = "fp" + string(rune('a'+i))
		if wrote, err := Write(gitDir, f, start); !wrote || err != nil {
			t.Fatalf("wrote %v, %v", wrote, err)
		}
		// distinct modification times, oldest first
		os.Chtimes(Path(gitDir, Governing, f.Fingerprint), time.Time{}, start.Add(time.Duration(i)*time.Second))
	}
	data, err := os.ReadFile(Path(gitDir, Governing, f.Fingerprint))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(data); err != nil || got.Fingerprint != f.Fingerprint {
		t.Fatalf("read back %v, %v", got, err)
	}
	names, _ := filepath.Glob(filepath.Join(gitDir, "kontext", "governing-*"))
	if len(names) != keepSidecars {
		t.Fatalf("%d sidecars kept, want %d: %v", len(names), keepSidecars, names)
	}
	if Path(gitDir, Governing, "a") == Path(gitDir, Governing, "b") || Path(gitDir, Governing, "a") == Path(gitDir, Status, "a") {
		t.Fatal("two fingerprints share a sidecar")
	}
}
