//go:build linux && (amd64 || arm64)

package quick

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// TestUnchanged: recorded inputs are unchanged until a file is edited,
// replaced, removed or a path recorded absent appears; the root ("")
// and absolute paths are inputs too.
func TestUnchanged(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".ai/decisions/a.md", "one")
	write(".ai/decisions/b.md", "two")
	write(".ai/conventions/c.md", "three")
	abs := filepath.Join(root, "abs")
	write("abs", "x")
	repeat := 1
	record := func() *opened {
		f := &File{Root: root}
		for range repeat {
			for _, p := range []string{"", ".ai/decisions", ".ai/decisions/a.md", ".ai/decisions/b.md", ".ai/conventions/c.md", ".ai/learnings", ".kontext.toml", abs} {
				full := p
				if !filepath.IsAbs(p) {
					full = filepath.Join(root, p)
				}
				fi, err := os.Lstat(full)
				if err != nil {
					fi = nil
				}
				s, ok := StatOf(p, fi)
				if !ok {
					t.Fatalf("no stat data for %s", p)
				}
				f.Stats = append(f.Stats, s)
			}
		}
		o, err := open(f.Append(nil))
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	if f := record(); !unchanged(f) {
		t.Fatal("an untouched tree is changed")
	}
	changes := map[string]func(){
		"an edit of the same size": func() {
			write(".ai/decisions/a.md", "ONE")
			os.Chtimes(filepath.Join(root, ".ai/decisions/a.md"), time.Time{}, time.Now().Add(-time.Hour))
		},
		"a file removed":         func() { os.Remove(filepath.Join(root, ".ai/conventions/c.md")) },
		"an absent path created": func() { write(".kontext.toml", "version = 1\n") },
		"an absent dir created":  func() { os.Mkdir(filepath.Join(root, ".ai/learnings"), 0o755) },
		"a file added at the root": func() {
			write("new.md", "x")
		},
		"an absolute input touched": func() { os.Chtimes(abs, time.Time{}, time.Now().Add(time.Hour)) },
	}
	for what, change := range changes {
		f := record()
		change()
		if unchanged(f) {
			t.Errorf("%s: still unchanged", what)
		}
	}
	// many inputs are checked on several threads: each run's records
	repeat = 1000
	if f := record(); !unchanged(f) {
		t.Fatal("an untouched tree is changed (8,000 inputs)")
	}
	f := record()
	os.Chtimes(abs, time.Time{}, time.Now().Add(2*time.Hour))
	if unchanged(f) {
		t.Fatal("a change among 8,000 inputs is not seen")
	}
}

// TestCheckRuns: the check is split into runs that goroutines and the
// waiting caller take in turn; a change in any run — the last one
// included — or records that do not decode make it false.
func TestCheckRuns(t *testing.T) {
	root := t.TempDir()
	const n = 3*checkRunLen + 7 // four runs, the last short
	f := &File{Root: root}
	for i := range n {
		name := filepath.Join("d", strconv.Itoa(i/100), strconv.Itoa(i)+".md")
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Lstat(p)
		s, _ := StatOf(name, fi)
		f.Stats = append(f.Stats, s)
	}
	data := f.Append(nil)
	o, err := open(data)
	if err != nil {
		t.Fatal(err)
	}
	c := startCheck(o)
	if len(c.runs) != 4 || c.runs[3].n != 7 {
		t.Fatalf("runs: %d", len(c.runs))
	}
	if !c.result() || !unchanged(o) {
		t.Fatal("an untouched tree is changed")
	}
	last := filepath.Join(root, "d", strconv.Itoa((n-1)/100), strconv.Itoa(n-1)+".md")
	if err := os.WriteFile(last, []byte("xy"), 0o644); err != nil {
		t.Fatal(err)
	}
	if unchanged(o) {
		t.Fatal("a change in the last run is not seen")
	}
	o.count++ // one record more than the bytes hold
	if unchanged(o) {
		t.Fatal("records that do not decode pass")
	}
}

// TestInvocation: only a plain governing command line, or api status with
// no input but {}, is taken.
func TestInvocation(t *testing.T) {
	t.Setenv("COLUMNS", "")
	t.Setenv("KONTEXT_QUICK", "")
	t.Setenv("KONTEXT_DAEMON", "")
	t.Setenv("CLICOLOR_FORCE", "")
	cwd, _ := os.Getwd()
	for _, c := range []struct {
		args []string
		want *Invocation
	}{
		{[]string{"governing", "a.go"}, &Invocation{Op: Governing, Dir: cwd, Paths: []string{"a.go"}}},
		{[]string{"-C", "/r", "governing", "a.go", "b/"}, &Invocation{Op: Governing, Dir: "/r", Paths: []string{"a.go", "b/"}}},
		{[]string{"-C=/r", "governing", "a.go"}, &Invocation{Op: Governing, Dir: "/r", Paths: []string{"a.go"}}},
		{[]string{"-C/r", "governing", "a.go"}, &Invocation{Op: Governing, Dir: "/r", Paths: []string{"a.go"}}},
		{[]string{"governing"}, nil},
		{[]string{"list"}, nil},
		{[]string{"governing", "a.go", "--min-specificity", "2"}, nil},
		{[]string{"--json", "governing", "a.go"}, nil},
		{[]string{"-C", "/a", "-C", "/b", "governing", "a.go"}, nil},
		{[]string{"governing", "--", "a.go"}, nil},
		{[]string{"governing", ""}, nil},
		{[]string{"api", "status"}, &Invocation{Op: Status, Dir: cwd}},
		{[]string{"-C", "/r", "api", "status", "{}"}, &Invocation{Op: Status, Dir: "/r"}},
		{[]string{"api", "status", "{\"dir\":\"x\"}"}, nil},
		{[]string{"api", "status", "-"}, nil},
		{[]string{"api", "status", "{}", "x"}, nil},
		{[]string{"api", "entries.list"}, nil},
		{[]string{"--jq", ".result", "api", "status"}, nil},
		{[]string{"api", "status", "--text"}, nil},
		{[]string{"status"}, nil},
	} {
		got, ok := invocation(c.args)
		if ok != (c.want != nil) || (ok && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("%q: %+v %v, want %+v", c.args, got, ok, c.want)
		}
	}
	t.Setenv("COLUMNS", "80")
	if _, ok := invocation([]string{"governing", "a.go"}); ok {
		t.Error("taken with COLUMNS set")
	}
	if _, ok := invocation([]string{"api", "status"}); !ok {
		t.Error("a status (JSON, whatever the width) not taken with COLUMNS set")
	}
	t.Setenv("KONTEXT_QUICK", "off")
	if _, ok := invocation([]string{"api", "status"}); ok {
		t.Error("taken with KONTEXT_QUICK=off")
	}
}

// TestStatusAnswer: a status sidecar's answer holds for its day only.
func TestStatusAnswer(t *testing.T) {
	root := t.TempDir()
	f := &File{Op: Status, Root: root, Stats: []Stat{{Path: "absent.md", Absent: true}}}
	t.Setenv("KONTEXT_NOW", "2026-03-04T23:59:59Z")
	for _, c := range []struct {
		day  string
		want bool
	}{{"2026-03-04", true}, {"2026-03-03", false}, {"2026-03-05", false}, {"", false}} {
		f.Answer = StatusAnswer(c.day, "{\"ok\":true}\n")
		o, err := open(f.Append(nil))
		if err != nil {
			t.Fatal(err)
		}
		out, ok := statusAnswer(o)
		if ok != c.want || (ok && out != "{\"ok\":true}\n") {
			t.Errorf("day %q: %q %v, want %v", c.day, out, ok, c.want)
		}
	}
	t.Setenv("KONTEXT_NOW", "2026-03-05T00:00:00+01:00") // still the 4th in UTC
	f.Answer = StatusAnswer("2026-03-04", "x")
	o, _ := open(f.Append(nil))
	if _, ok := statusAnswer(o); !ok {
		t.Error("the day is not the UTC day")
	}
	os.WriteFile(filepath.Join(root, "absent.md"), []byte("now here"), 0o644)
	if _, ok := statusAnswer(o); ok {
		t.Error("an input that appeared is not seen")
	}
	t.Setenv("KONTEXT_NOW", "")
	f.Stats = nil
	f.Answer = StatusAnswer(time.Now().UTC().Format("2006-01-02"), "x")
	if o, _ = open(f.Append(nil)); o == nil {
		t.Fatal("not opened")
	}
	if _, ok := statusAnswer(o); !ok && time.Now().UTC().Format("2006-01-02") == today() {
		t.Error("today's answer refused")
	}
}
