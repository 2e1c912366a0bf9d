package native

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSnapshotSeesSameSizeEditWithRestoredMtime: the stored snapshot
// validates each file as git validates its index (mtime, ctime, size,
// inode): an in-place edit of the same size whose modification time is
// put back is read again, never served from the stored parse.
func TestSnapshotSeesSameSizeEditWithRestoredMtime(t *testing.T) {
	r := newRepo(t)
	name := ".ai/conventions/a.md"
	r.write(map[string]string{name: "---\ntitle: A\nstatus: active\n---\n# A\n\nOld body text.\n"})
	r.commit("2026-01-01T10:00:00Z", "initial")
	path := filepath.Join(r.dir, name)
	// An old modification time: the file is not racy when the snapshot is
	// stored, so only its stat data can tell the edit.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if body, _ := r.entry("a")["body"].(string); !strings.Contains(body, "Old body text.") {
		t.Fatalf("first read: %q", body)
	}
	if body, _ := r.entry("a")["body"].(string); !strings.Contains(body, "Old body text.") {
		t.Fatalf("read from the stored snapshot: %q", body)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)           // a ctime of its own
	f, err := os.OpenFile(path, os.O_WRONLY, 0) // in place: the inode stays
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("---\ntitle: A\nstatus: active\n---\n# A\n\nNew body text.\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the edit changed size or mtime: %d %v, was %d %v", after.Size(), after.ModTime(), before.Size(), before.ModTime())
	}
	if st := r.git("status", "--porcelain"); !strings.Contains(st, "M "+name) {
		t.Fatalf("git sees no change: %q", st)
	}
	if body, _ := r.entry("a")["body"].(string); !strings.Contains(body, "New body text.") {
		t.Fatalf("same-size edit with its mtime restored served stale: %q", body)
	}
}
