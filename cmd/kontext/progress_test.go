package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// failWriter accepts n writes, then fails every write with err.
type failWriter struct {
	n   int
	err error
	buf bytes.Buffer
}

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n <= 0 {
		return 0, w.err
	}
	w.n--
	return w.buf.Write(p)
}

func TestReaderGoneIsStructural(t *testing.T) {
	for _, c := range []struct {
		err  error
		gone bool
	}{
		{&os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}, true},
		{fmt.Errorf("writing: %w", syscall.EPIPE), true},
		{io.ErrClosedPipe, true},
		{fs.ErrClosed, true},
		{&os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}, false},
		// The words of a broken pipe without its identity are not one.
		{errors.New("write |1: broken pipe"), false},
		{errors.New("The pipe has been ended."), false},
	} {
		if got := readerGone(c.err); got != c.gone {
			t.Errorf("readerGone(%v) = %v, want %v", c.err, got, c.gone)
		}
	}
}

// TestProgressStreamIntegrity runs commands in-process with a progress
// stream (stderr) that fails after its first event: a reader that went away
// ends it quietly with the command's own exit code; any other failure is
// exit 1 with the events written and lost.
func TestProgressStreamIntegrity(t *testing.T) {
	dir := testrepo.Demo(t)
	args := []string{"-C", dir, "--progress", "jsonl", "brief", "src/billing/tax/vat.go"}

	var stdout bytes.Buffer
	gone := &failWriter{n: 1, err: &os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}}
	if code := run(context.Background(), args, Streams(strings.NewReader(""), &stdout, gone)); code != exitOK {
		t.Fatalf("reader gone: exit %d, want 0", code)
	}
	if !strings.Contains(stdout.String(), "## DECISIONS") {
		t.Errorf("the result must still be written whole:\n%s", stdout.String())
	}
	if strings.Count(gone.buf.String(), "\n") != 1 {
		t.Errorf("after the reader went away nothing more is written to it: %q", gone.buf.String())
	}

	stdout.Reset()
	full := &failWriter{n: 1, err: &os.PathError{Op: "write", Path: "/dev/full", Err: syscall.ENOSPC}}
	if code := run(context.Background(), args, Streams(strings.NewReader(""), &stdout, full)); code != exitFailed {
		t.Fatalf("disk full: exit %d, want 1", code)
	}

	// A stream that works has one JSON object a line, type and flow on
	// each, and complete last.
	stdout.Reset()
	var stderr bytes.Buffer
	if code := run(context.Background(), args, Streams(strings.NewReader(""), &stdout, &stderr)); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	for i, l := range lines {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %d is not one JSON object: %q", i+1, l)
		}
		if ev["flow"] != "brief" || ev["type"] == nil {
			t.Errorf("line %d lacks type or flow: %q", i+1, l)
		}
		if last := i == len(lines)-1; last != (ev["type"] == "complete") {
			t.Errorf("line %d: complete must be the last event and only it: %q", i+1, l)
		}
	}
}
