package snapstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaveSnapshotParts: the stored file is the head followed by the
// parses, whatever their sizes against the write buffer, and it replaces
// what was stored without leaving a temporary file.
func TestSaveSnapshotParts(t *testing.T) {
	dir := t.TempDir()
	f := &File{Path: filepath.Join(dir, "kontext", "snapshot-x")}
	if err := f.SaveSnapshot([]byte("old")); err != nil {
		t.Fatal(err)
	}
	head := []byte("head\x00")
	parses := []string{"a", "", strings.Repeat("b", 300<<10), "c", strings.Repeat("d", 5)}
	if err := f.SaveSnapshotParts(head, parses); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte{}, head...), strings.Join(parses, "")...)
	if !bytes.Equal(got, want) {
		t.Fatalf("stored %d bytes, want %d (head and parses in order)", len(got), len(want))
	}
	names, _ := filepath.Glob(filepath.Join(dir, "kontext", "*"))
	if len(names) != 1 {
		t.Fatalf("files left: %v", names)
	}
}
