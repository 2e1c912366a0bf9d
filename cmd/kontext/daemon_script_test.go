package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kontext/kontext/native/daemon"
	"github.com/kontext/kontext/native/relay"
)

// daemonSetup kills, when a script ends, every daemon it left running
// (a failing script never reaches its daemon stop): CI shares the machine.
func daemonSetup(env *testscript.Env) {
	work := env.WorkDir
	env.Defer(func() {
		filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "daemon.lock" {
				if pid := daemon.RunningPID(filepath.Dir(filepath.Dir(p))); pid > 0 {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return nil
		})
	})
}

// daemonCounts is what `kontext daemon status --json` says of requests.
func daemonCounts(ts *testscript.TestScript, dir string) (served, fallbacks int64, degraded string) {
	ts.Check(ts.Exec("kontext", "-C", dir, "daemon", "status", "--json"))
	var res daemonResult
	ts.Check(json.Unmarshal([]byte(ts.ReadFile("stdout")), &res))
	if res.Daemon == nil {
		ts.Fatalf("no daemon runs for %s", dir)
	}
	return res.Daemon.Requests, res.Daemon.Fallbacks, res.Daemon.Degraded
}

// kontextArgs is the command line of kontext-same and kontext-unserved:
// DIR ARGS… is `kontext -C DIR ARGS…` ("-" for DIR: no -C, in the
// script's directory).
func kontextArgs(ts *testscript.TestScript, args []string) []string {
	if len(args) < 2 {
		ts.Fatalf("usage: DIR ARGS…")
	}
	if args[0] == "-" {
		return args[1:]
	}
	return append([]string{"-C", args[0]}, args[1:]...)
}

// daemonDir is the directory whose daemon kontext-same asks for counts.
func daemonDir(args []string) string {
	if args[0] == "-" {
		return "."
	}
	return args[0]
}

// daemon-mark DIR notes how many requests DIR's daemon served;
// daemon-answered DIR checks it served one more since (for command lines
// kontext-same cannot run, such as one reading stdin).
func cmdDaemonMark(ts *testscript.TestScript, neg bool, args []string) {
	served, _, _ := daemonCounts(ts, args[0])
	ts.Check(os.WriteFile(ts.MkAbs(".daemon-mark"), []byte(fmt.Sprint(served)), 0o644))
}

func cmdDaemonAnswered(ts *testscript.TestScript, neg bool, args []string) {
	served, _, _ := daemonCounts(ts, args[0])
	mark := ts.ReadFile(".daemon-mark")
	if got := fmt.Sprint(served - 1); (got == mark) == neg {
		ts.Fatalf("the daemon served %d requests, %s before", served, mark)
	}
}

// kontext-same DIR ARGS… runs the kontext command line through the
// daemon and locally (KONTEXT_DAEMON=off): both must print the same bytes
// on stdout and stderr and exit alike, and the daemon must have answered
// (or, while it says it is degraded, not). stdout and stderr are the
// daemon's answer.
func cmdKontextSame(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: kontext-same DIR ARGS…")
	}
	argv := kontextArgs(ts, args)
	dir := daemonDir(args)
	ts.Setenv("KONTEXT_DAEMON", "off")
	localErr := ts.Exec("kontext", argv...)
	local, localStderr := ts.ReadFile("stdout"), ts.ReadFile("stderr")
	ts.Setenv("KONTEXT_DAEMON", "")
	before, _, _ := daemonCounts(ts, dir)
	viaErr := ts.Exec("kontext", argv...)
	via, viaStderr := ts.ReadFile("stdout"), ts.ReadFile("stderr")
	after, _, degraded := daemonCounts(ts, dir)
	if via != local || viaStderr != localStderr || fmt.Sprint(localErr) != fmt.Sprint(viaErr) {
		ts.Fatalf("the daemon answered\n%s%s(%v)\nthe local run\n%s%s(%v)", via, viaStderr, viaErr, local, localStderr, localErr)
	}
	switch {
	case degraded == "" && after != before+1:
		ts.Fatalf("the daemon did not answer (served %d, then %d)", before, after)
	case degraded != "" && after != before:
		ts.Fatalf("a degraded daemon answered (%s)", degraded)
	}
	// stdout and stderr are the answer again (daemonCounts replaced them).
	ts.Setenv("KONTEXT_DAEMON", "off")
	ts.Exec("kontext", argv...)
	ts.Setenv("KONTEXT_DAEMON", "")
}

// kontext-unserved DIR ARGS… runs the kontext command line and
// checks the daemon did not answer it; its stdout is copied to
// unserved.out.
func cmdKontextUnserved(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: kontext-unserved DIR ARGS…")
	}
	argv := kontextArgs(ts, args)
	dir := daemonDir(args)
	before, _, _ := daemonCounts(ts, dir)
	err := ts.Exec("kontext", argv...)
	out := ts.ReadFile("stdout")
	after, _, _ := daemonCounts(ts, dir)
	if after != before {
		ts.Fatalf("the daemon answered %v", args[1:])
	}
	ts.Check(os.WriteFile(ts.MkAbs("unserved.out"), []byte(out), 0o644))
	if err != nil {
		ts.Logf("%v: %v", args[1:], err)
	}
}

// daemonPID is the pid holding DIR's daemon lock (fatal when none).
func daemonPID(ts *testscript.TestScript, dir string) int {
	gitDir := relay.FindGitDir(ts.MkAbs(dir))
	pid := daemon.RunningPID(gitDir)
	if pid == 0 {
		ts.Fatalf("no daemon holds the lock of %s", gitDir)
	}
	return pid
}

// daemon-kill DIR kills DIR's daemon with SIGKILL (leaving its socket
// behind) and waits until it is gone.
func cmdDaemonKill(ts *testscript.TestScript, neg bool, args []string) {
	pid := daemonPID(ts, args[0])
	ts.Check(syscall.Kill(pid, syscall.SIGKILL))
	waitExit(ts, pid)
}

// daemon-gone DIR waits until DIR's daemon exits by itself (idle).
func cmdDaemonGone(ts *testscript.TestScript, neg bool, args []string) {
	waitExit(ts, daemonPID(ts, args[0]))
}

// waitExit waits for pid to end; a minute is a hang, not a slow machine.
func waitExit(ts *testscript.TestScript, pid int) {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
	}
	ts.Fatalf("process %d did not exit", pid)
}

// daemon-up DIR waits until a daemon answers for DIR (one started in the
// background by KONTEXT_DAEMON=auto); a minute is a failure.
func cmdDaemonUp(ts *testscript.TestScript, neg bool, args []string) {
	gitDir := relay.FindGitDir(ts.MkAbs(args[0]))
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := daemon.Status(gitDir); err == nil {
			return
		}
	}
	ts.Fatalf("no daemon answers for %s", args[0])
}
