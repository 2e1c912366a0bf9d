//go:build !windows

package outfile_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/internal/outfile"
)

func text(s string) func(w io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRegularAndNew: a new path and an existing file are written through a
// temporary file and a rename (a new inode, no temporary file left); an
// existing file keeps its permission bits; a failed write leaves the file
// as it was.
func TestRegularAndNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if n, err := outfile.Write(p, text("one\n")); err != nil || n != 4 || read(t, p) != "one\n" {
		t.Fatalf("new: %d, %v", n, err)
	}
	os.Chmod(p, 0o600)
	before, _ := os.Stat(p)
	if _, err := outfile.Write(p, text("two\n")); err != nil || read(t, p) != "two\n" {
		t.Fatalf("existing: %v", err)
	}
	after, _ := os.Stat(p)
	if os.SameFile(before, after) {
		t.Errorf("an existing file was written in place, not replaced atomically")
	}
	if after.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's 0600 kept", after.Mode().Perm())
	}
	boom := errors.New("boom")
	if _, err := outfile.Write(p, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); err != boom {
		t.Errorf("a failing writer: %v, want its own error", err)
	}
	if read(t, p) != "two\n" {
		t.Errorf("a failed write changed the file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	// A missing directory and a directory are invalid_input.
	if _, err := outfile.Write(filepath.Join(dir, "no", "such.json"), text("x")); apierr.CodeOf(err) != apierr.InvalidInput {
		t.Errorf("missing directory: %v", err)
	}
	if _, err := outfile.Write(dir, text("x")); apierr.CodeOf(err) != apierr.InvalidInput || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}

// TestSymlink: a link is followed to its target, which is replaced; the
// link stays a link. A relative chain of two links and a dangling link
// (its target is created) work the same.
func TestSymlink(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	target := filepath.Join(dir, "real", "bundle.json")
	os.WriteFile(target, []byte("old"), 0o644)
	os.Symlink("real/bundle.json", filepath.Join(dir, "hop"))
	link := filepath.Join(dir, "link")
	os.Symlink("hop", link)
	if _, err := outfile.Write(link, text("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if read(t, target) != "new" {
		t.Errorf("the target was not written")
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "real")); len(ents) != 1 {
		t.Errorf("temporary files left beside the target: %v", ents)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("real/fresh.json", dangling)
	if _, err := outfile.Write(dangling, text("fresh")); err != nil || read(t, filepath.Join(dir, "real", "fresh.json")) != "fresh" {
		t.Errorf("dangling link: %v", err)
	}
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if _, err := outfile.Write(loop, text("x")); apierr.CodeOf(err) != apierr.InvalidInput {
		t.Errorf("a link to itself: %v", err)
	}
}

// TestFIFO: a named pipe is written directly (a reader gets the bytes) and
// stays a pipe.
func TestFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(p)
		got <- string(b)
	}()
	if _, err := outfile.Write(p, text("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("the reader got %q", s)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", fi.Mode())
	}
}

// TestDevices: /dev/null is written directly and stays a device; a write
// error (/dev/full: no space left) is operation_failed naming the file.
func TestDevices(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	if n, err := outfile.Write("/dev/null", text("nothing")); err != nil || n != 7 {
		t.Errorf("/dev/null: %d, %v", n, err)
	}
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		if fi, err := os.Lstat(dev); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s is no longer a device: %v", dev, fi.Mode())
		}
	}
	_, err := outfile.Write("/dev/full", text(strings.Repeat("x", 100000)))
	if apierr.CodeOf(err) != apierr.OperationFailed || !strings.Contains(err.Error(), "/dev/full") || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("/dev/full: %v, want operation_failed with ENOSPC", err)
	}
	if fi, err := os.Lstat("/dev/full"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/full is no longer a device: %v", fi.Mode())
	}
}

// TestStdout: - and the names of standard output are standard output.
func TestStdout(t *testing.T) {
	for p, want := range map[string]bool{"-": true, "/dev/stdout": true, "/dev/fd/1": true, "/proc/self/fd/1": true, "./-": false, "/dev/stderr": false, "out.json": false} {
		if outfile.IsStdout(p) != want {
			t.Errorf("IsStdout(%q) = %v", p, !want)
		}
	}
}

// TestDescriptor: /dev/fd/N is the process's open descriptor N, written as
// it is (not reopened).
func TestDescriptor(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := fmt.Sprintf("/dev/fd/%d", w.Fd())
	if _, err := outfile.Write(p, text("to the descriptor")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if b, _ := io.ReadAll(r); string(b) != "to the descriptor" {
		t.Errorf("read %q", b)
	}
}
