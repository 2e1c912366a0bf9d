package writer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kontext/kontext/engine/apierr"
)

func TestReplaceFileChecksPlannedFrom(t *testing.T) {
	dir := t.TempDir()
	w := New(dir, filepath.Join(dir, ".git"))
	p := filepath.Join(dir, "a.md")
	write := func(s string) {
		if err := os.WriteFile(p, []byte(s), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// Unchanged since the plan: rewritten, mode kept.
	write("old\n")
	if err := w.ReplaceFile("a.md", []byte("new\n"), []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); read() != "new\n" || fi.Mode().Perm() != 0o640 {
		t.Fatalf("after the write: %q %v", read(), fi.Mode())
	}

	// Edited since the plan: operation_conflict naming it, file untouched.
	write("old\nUSER EDIT\n")
	err := w.ReplaceFile("a.md", []byte("new\n"), []byte("old\n"))
	if ae := apierr.As(err); ae == nil || ae.Code != apierr.OperationConflict || ae.Extra["path"] != "a.md" {
		t.Fatalf("edited: %v", err)
	}
	if read() != "old\nUSER EDIT\n" {
		t.Fatalf("edited file became %q", read())
	}

	// Removed since the plan: operation_conflict, nothing created.
	os.Remove(p)
	if err := w.ReplaceFile("a.md", []byte("new\n"), []byte("old\n")); apierr.CodeOf(err) != apierr.OperationConflict {
		t.Fatalf("removed: %v", err)
	}
	if _, err := os.Stat(p); err == nil {
		t.Fatal("a removed file was written again")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".a.md.kontext-tmp-*")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}

// restoreIfEdited puts back what an outside writer wrote into the old
// inode after the rename.
func TestReplaceFileRestoresEditAfterRename(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	if err := os.WriteFile(p, []byte("old\nUSER EDIT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := AtomicWrite(p, []byte("new\n"), 0o644); err != nil { // kontext's rename
		t.Fatal(err)
	}
	err = restoreIfEdited("a.md", p, old, []byte("new\n"), []byte("old\n"), 0o644)
	if apierr.CodeOf(err) != apierr.OperationConflict {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old\nUSER EDIT\n" {
		t.Fatalf("restored %q", b)
	}
}
