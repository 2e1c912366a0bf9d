package native

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/kontext/kontext/internal/benchcorpus"
	"github.com/kontext/kontext/internal/testrepo"
)

// fastImportRepo writes a repository with `entries` conventions (each
// governing src/mNNN/**, confirmed in the second commit) and `commits`
// commits that each change one file below src/, via git fast-import.
func fastImportRepo(tb testing.TB, dir string, entries, commits int) {
	var s bytes.Buffer
	mark := 0
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	commit := func(msg string, files map[string]string) {
		mark++
		at = at.Add(time.Minute)
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n", mark, at.Unix(), len(msg), msg)
		if mark > 1 {
			fmt.Fprintf(&s, "from :%d\n", mark-1)
		}
		for name, text := range files {
			fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", name, len(text), text)
		}
	}
	first := map[string]string{}
	for i := 0; i < entries; i++ {
		first[fmt.Sprintf(".ai/conventions/c%04d.md", i)] = fmt.Sprintf("---\npaths: [\"src/m%03d/**\"]\ntags: [bench]\n---\n# Convention %d\n\nKeep module %d tidy.\n", i, i, i)
		first[fmt.Sprintf("src/m%03d/f.go", i)] = "package m\n"
	}
	commit("initial", first)
	var ledger bytes.Buffer
	for i := 0; i < entries; i++ {
		fmt.Fprintf(&ledger, `{"at":"2025-01-01T00:02:00Z","kind":"read","id":"c%04d","commit":null,"by":"Bench"}`+"\n", i)
	}
	commit("confirm all", map[string]string{".ai/confirmations.log": ledger.String()})
	for c := 0; c < commits-2; c++ {
		m := (c * 7919) % entries
		commit(fmt.Sprintf("change %d", c), map[string]string{fmt.Sprintf("src/m%03d/f.go", m): fmt.Sprintf("package m // %d\n", c)})
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"fast-import", "--quiet"}, {"checkout", "-q", "main"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if args[0] == "fast-import" {
			cmd.Stdin = &s
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// BenchmarkHistoryFields measures, on 1,000 entries and 10,000 commits,
// the cold first list (history index built and cached) and warm
// entries.list with since and entries.drift (budget: warm ≤ 100 ms).
func BenchmarkHistoryFields(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("no git")
	}
	testrepo.Env(b)
	dir := b.TempDir()
	fastImportRepo(b, dir, 1000, 10000)
	ctx := context.Background()
	base := testrepo.Git(b, dir, "rev-parse", "HEAD~5000") // a 5,000-commit range, base given as CI gives it
	run := func(op, input string) time.Duration {
		e, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		out := e.Request(ctx, op, []byte(input))
		if !bytes.Contains(out, []byte(`"ok":true`)) {
			b.Fatalf("%s: %.300s", op, out)
		}
		return time.Since(t0)
	}
	for i := 0; i < b.N; i++ {
		cold := run("entries.list", `{"limit":500}`)
		var list, drift time.Duration
		const reps = 3
		for j := 0; j < reps; j++ {
			list += run("entries.list", `{"limit":500}`)
			drift += run("entries.drift", `{"base":"`+base+`"}`)
		}
		b.ReportMetric(float64(cold.Milliseconds()), "cold-list-ms")
		b.ReportMetric(float64(list.Milliseconds())/reps, "warm-list-ms")
		b.ReportMetric(float64(drift.Milliseconds())/reps, "warm-drift-ms")
	}
}

// BenchmarkWarmList is the in-process warm read of the Go embedding API
// (an engine from OpenWith, kept and asked again, as a long-running Go
// program does): entries.list on an unchanged knowledge base of 10,000
// entries, validated by one stat per file against the stored snapshot.
// The timed engine starts on a settled snapshot (written in a later
// second than the files, so no file is racy and re-read), as a program
// started on an existing checkout does; warm-list-ms is the mean of five
// reads per iteration.
func BenchmarkWarmList(b *testing.B) {
	dir := b.TempDir()
	if _, err := benchcorpus.Repo(dir, 10000); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	list := func(e interface {
		Request(context.Context, string, []byte) []byte
	}) {
		if out := e.Request(ctx, "entries.list", []byte(`{"limit":100}`)); !bytes.Contains(out[:40], []byte(`"ok":true`)) {
			b.Fatalf("%s", out[:200])
		}
	}
	func() {
		first, err := OpenWith(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		list(first) // parses and stores the snapshot
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(1100 * time.Millisecond)))
		list(first) // checks the racy files in a later second: settled, stored again
	}()
	runtime.GC() // the first engine's parses are not the timed engine's garbage
	e, err := OpenWith(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	list(e) // loads the stored snapshot
	b.ResetTimer()
	var warm time.Duration
	const reps = 5
	for i := 0; i < b.N; i++ {
		for j := 0; j < reps; j++ {
			t0 := time.Now()
			list(e)
			warm += time.Since(t0)
		}
	}
	b.ReportMetric(float64(warm.Microseconds())/1000/float64(b.N*reps), "warm-list-ms")
}
