package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kontext/kontext/native/daemon"
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

// kontext-same DIR OP INPUT runs `kontext -C DIR api OP INPUT` through the
// daemon and locally (KONTEXT_DAEMON=off): both must print the same bytes
// and exit alike, and the daemon must have answered (or, while it says it
// is degraded, not). stdout is the daemon's answer.
func cmdKontextSame(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: kontext-same DIR OP INPUT")
	}
	dir := args[0]
	ts.Setenv("KONTEXT_DAEMON", "off")
	localErr := ts.Exec("kontext", "-C", dir, "api", args[1], args[2])
	local := ts.ReadFile("stdout")
	ts.Setenv("KONTEXT_DAEMON", "")
	before, _, _ := daemonCounts(ts, dir)
	viaErr := ts.Exec("kontext", "-C", dir, "api", args[1], args[2])
	via := ts.ReadFile("stdout")
	after, _, degraded := daemonCounts(ts, dir)
	if via != local || (localErr == nil) != (viaErr == nil) {
		ts.Fatalf("the daemon answered\n%s(%v)\nthe local run\n%s(%v)", via, viaErr, local, localErr)
	}
	switch {
	case degraded == "" && after != before+1:
		ts.Fatalf("the daemon did not answer (served %d, then %d)", before, after)
	case degraded != "" && after != before:
		ts.Fatalf("a degraded daemon answered (%s)", degraded)
	}
	// stdout is the answer again (daemonCounts replaced it).
	ts.Setenv("KONTEXT_DAEMON", "off")
	ts.Check(ts.Exec("kontext", "-C", dir, "api", args[1], args[2]))
	ts.Setenv("KONTEXT_DAEMON", "")
}

// kontext-unserved DIR OP INPUT runs `kontext -C DIR api OP INPUT` and
// checks the daemon did not answer it; stdout is the answer.
func cmdKontextUnserved(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: kontext-unserved DIR OP INPUT")
	}
	before, _, _ := daemonCounts(ts, args[0])
	err := ts.Exec("kontext", "-C", args[0], "api", args[1], args[2])
	out := ts.ReadFile("stdout")
	after, _, _ := daemonCounts(ts, args[0])
	if after != before {
		ts.Fatalf("the daemon answered %s", args[1])
	}
	ts.Check(os.WriteFile(ts.MkAbs("unserved.out"), []byte(out), 0o644))
	if err != nil {
		ts.Logf("%s: %v", args[1], err)
	}
}

// daemonPID is the pid holding DIR's daemon lock (fatal when none).
func daemonPID(ts *testscript.TestScript, dir string) int {
	gitDir := daemon.FindGitDir(ts.MkAbs(dir))
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
