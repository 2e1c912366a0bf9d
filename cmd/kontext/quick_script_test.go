package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// quick-same [-early|-full] DIR ARGS… runs the kontext command line with
// the early governing answer turned off (KONTEXT_QUICK=off) and as is:
// both must print the same bytes on stdout and stderr (the init trace
// left out) and exit alike. -early requires that the second run answered
// before the Markdown parser was initialised (package quick), -full that
// it did not; both need GODEBUG=inittrace=1 in the script's environment.
// stdout and stderr are the second run's.
func cmdQuickSame(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: quick-same [-early|-full] DIR ARGS…")
	}
	want := ""
	if args[0] == "-early" || args[0] == "-full" {
		want, args = args[0], args[1:]
	}
	argv := kontextArgs(ts, args)
	ts.Setenv("KONTEXT_QUICK", "off")
	fullErr := ts.Exec("kontext", argv...)
	full, fullStderr := ts.ReadFile("stdout"), untraced(ts.ReadFile("stderr"))
	ts.Setenv("KONTEXT_QUICK", "")
	err := ts.Exec("kontext", argv...)
	got, stderr := ts.ReadFile("stdout"), ts.ReadFile("stderr")
	if got != full || untraced(stderr) != fullStderr || fmt.Sprint(err) != fmt.Sprint(fullErr) {
		ts.Fatalf("the run printed\n%s%s(%v)\nthe full command\n%s%s(%v)", got, untraced(stderr), err, full, fullStderr, fullErr)
	}
	early := !strings.Contains(stderr, "init github.com/yuin/goldmark")
	if !strings.Contains(stderr, "init github.com/kontext/kontext/native/internal/buildkey") {
		ts.Fatalf("no init trace: set GODEBUG=inittrace=1")
	}
	switch {
	case want == "-early" && !early:
		ts.Fatalf("the full command answered; the early answer should have")
	case want == "-full" && early:
		ts.Fatalf("the early answer answered; the full command should have")
	}
}

// untraced is stderr without GODEBUG=inittrace=1's lines.
func untraced(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "init ") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// settle waits until the clock has passed into a new second: a file
// written before is no longer racy (the early answer's sidecar is written
// only when every input it records is older than the second its read
// started in).
func cmdSettle(ts *testscript.TestScript, neg bool, args []string) {
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(1100 * time.Millisecond)))
}

// kontextArgs is the command line of quick-same: DIR ARGS… is
// `kontext -C DIR ARGS…` ("-" for DIR: no -C, in the script's directory).
func kontextArgs(ts *testscript.TestScript, args []string) []string {
	if len(args) < 2 {
		ts.Fatalf("usage: DIR ARGS…")
	}
	if args[0] == "-" {
		return args[1:]
	}
	return append([]string{"-C", args[0]}, args[1:]...)
}
