package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native/daemon"
	"github.com/kontext/kontext/native/relay"
)

// daemonResult is the --json answer of every daemon subcommand.
type daemonResult struct {
	Running bool `json:"running"`
	// Started: this call started it; Stopped: this call stopped it.
	Started bool        `json:"started,omitempty"`
	Stopped bool        `json:"stopped,omitempty"`
	GitDir  string      `json:"git_dir"`
	Daemon  *relay.Info `json:"daemon,omitempty"`
}

// runDaemonCmd is `kontext daemon start|run|stop|status`: the opt-in
// file-system monitor that answers read-only `kontext api` calls from
// memory (docs/architecture.md, "File-system monitor").
func runDaemonCmd(ctx context.Context, g *factory, args []string) int {
	stdout, stderr := g.io.Out, g.io.ErrOut
	fs := flags("daemon", stderr)
	idle := fs.Duration("idle", daemon.DefaultIdle, "start, run: exit after this long without a request")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		return usageErr(g, stderr, "kontext daemon needs one subcommand: start, run, stop or status")
	}
	if *idle <= 0 {
		return usageErr(g, stderr, "--idle %s is not a positive duration", *idle)
	}
	sub := pos[0]
	switch sub {
	case "start", "run", "stop", "status":
	default:
		return usageErr(g, stderr, "kontext daemon %s: unknown subcommand (start, run, stop or status)", sub)
	}
	if !daemon.Supported {
		return fail(g, stderr, apierr.New(apierr.UnsupportedOperation, "%s", relay.ErrNotSupported))
	}
	top, gitDir := relay.FindRepo(g.dir)
	if gitDir == "" {
		return fail(g, stderr, apierr.Invalid("kontext daemon needs a git repository: %s is not inside one", g.dir))
	}
	res := daemonResult{GitDir: gitDir}
	switch sub {
	case "status":
		if info, err := daemon.Status(gitDir); err == nil {
			res.Running, res.Daemon = true, info
		}
	case "stop":
		info, err := daemon.Stop(gitDir)
		if err == nil {
			res.Stopped, res.Daemon = true, info
			waitGone(info.PID)
		} else if pid := daemon.RunningPID(gitDir); pid != 0 {
			// Holding the lock but not answering: ask it the other way.
			if p, err := os.FindProcess(pid); err == nil && p.Signal(os.Interrupt) == nil {
				res.Stopped = true
				waitGone(pid)
			}
		}
	case "run":
		err := daemon.Run(ctx, daemon.Config{Dir: g.dir, Idle: *idle, Command: handedOver, Ready: func(info relay.Info) {
			fmt.Fprintf(stderr, "kontext daemon: serving %s on %s (pid %d)\n", info.Root, info.Socket, info.PID)
		}})
		var running *daemon.ErrRunning
		if err != nil && !errors.As(err, &running) {
			// KONTEXT_DAEMON=auto does not try again for a while.
			os.WriteFile(daemon.PathsOf(gitDir).Refused, []byte(err.Error()+"\n"), 0o644)
		}
		if err != nil {
			return fail(g, stderr, daemonErr(err))
		}
		return exitOK
	case "start":
		os.Remove(daemon.PathsOf(gitDir).Refused) // asked for: tried again
		info, started, err := startDaemon(g, gitDir, *idle)
		if err != nil {
			return fail(g, stderr, err)
		}
		res.Running, res.Started, res.Daemon = true, started, info
	}
	return emit(g, stdout, res, func(w io.Writer) {
		d := res.Daemon
		switch {
		case sub == "stop" && res.Stopped:
			fmt.Fprintf(w, "stopped the kontext daemon of %s\n", top)
		case sub == "stop":
			fmt.Fprintf(w, "no kontext daemon runs for %s\n", top)
		case !res.Running:
			fmt.Fprintf(w, "no kontext daemon runs for %s (start one: kontext daemon start)\n", top)
		default:
			verb := "running"
			if sub == "start" && res.Started {
				verb = "started"
			} else if sub == "start" {
				verb = "already running"
			}
			fmt.Fprintf(w, "kontext daemon %s: pid %d, repository %s\n", verb, d.PID, d.Root)
			fmt.Fprintf(w, "  socket:   %s\n", d.Socket)
			fmt.Fprintf(w, "  since:    %s\n", d.Since.Format(time.RFC3339))
			fmt.Fprintf(w, "  served:   %d requests (%d ran in the client)\n", d.Requests, d.Fallbacks)
			fmt.Fprintf(w, "  watching: %d directories; exits after %s without a request\n", d.WatchedDirs, d.Idle)
			if d.Degraded != "" {
				fmt.Fprintf(w, "  note:     %s\n", d.Degraded)
			}
			if d.LastFallback != "" {
				fmt.Fprintf(w, "  last run in the client: %s\n", d.LastFallback)
			}
		}
	})
}

// daemonErr gives Run's errors their codes.
func daemonErr(err error) error {
	var running *daemon.ErrRunning
	if errors.As(err, &running) {
		return apierr.New(apierr.OperationConflict, "%s", err)
	}
	return apierr.Wrap(apierr.OperationFailed, err, "kontext daemon")
}

// startDaemon starts `kontext daemon run` in a session of its own and
// waits until its socket answers; a daemon already running is reported
// instead (started false).
func startDaemon(g *factory, gitDir string, idle time.Duration) (*relay.Info, bool, error) {
	if info, err := daemon.Status(gitDir); err == nil {
		return info, false, nil
	}
	dir, err := filepath.Abs(g.dir)
	if err != nil {
		return nil, false, apierr.Invalid("dir %q cannot be resolved: %v", g.dir, err)
	}
	exe, err := self()
	if err != nil {
		return nil, false, apierr.Wrap(apierr.OperationFailed, err, "finding the kontext binary")
	}
	paths := daemon.PathsOf(gitDir)
	if err := os.MkdirAll(paths.Dir, 0o755); err != nil {
		return nil, false, apierr.Wrap(apierr.OperationFailed, err, "creating %s", paths.Dir)
	}
	logStart := int64(0)
	if fi, err := os.Stat(paths.Log); err == nil {
		logStart = fi.Size()
	}
	p, err := daemon.Spawn(exe, []string{os.Args[0], "-C", dir, "daemon", "run", "--idle", idle.String()}, paths.Log)
	if err != nil {
		return nil, false, apierr.Wrap(apierr.OperationFailed, err, "starting kontext daemon run")
	}
	exited := make(chan struct{})
	go func() { p.Wait(); close(exited) }()
	deadline := time.Now().Add(time.Minute) // the first read of a large knowledge base
	for {
		if info, err := daemon.Status(gitDir); err == nil {
			return info, info.PID == p.Pid, nil
		}
		select {
		case <-exited:
			// Another start may have won the race: report that one.
			if info, err := daemon.Status(gitDir); err == nil {
				return info, false, nil
			}
			return nil, false, apierr.New(apierr.OperationFailed, "kontext daemon run exited: %s", logSince(paths.Log, logStart))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.Kill()
			return nil, false, apierr.New(apierr.OperationFailed, "kontext daemon run did not answer within a minute: %s", logSince(paths.Log, logStart))
		}
	}
}

// self is the path of this binary, found the way it was started (a test
// binary runs as "kontext" found on PATH).
func self() (string, error) {
	if a := os.Args[0]; !strings.ContainsRune(a, os.PathSeparator) {
		if p, err := exec.LookPath(a); err == nil {
			return filepath.Abs(p)
		}
	} else if p, err := filepath.Abs(a); err == nil {
		return p, nil
	}
	return os.Executable()
}

// logSince is what the daemon's log gained from offset on, trimmed.
func logSince(path string, offset int64) string {
	data, err := os.ReadFile(path)
	if err != nil || int64(len(data)) < offset {
		return "(no log)"
	}
	s := strings.TrimSpace(string(data[offset:]))
	if s == "" {
		return "(no output)"
	}
	return s
}

// waitGone waits (a few seconds at most) until process pid has exited, so
// that `daemon stop` returns with the daemon gone.
func waitGone(pid int) {
	for range 250 {
		p, err := os.FindProcess(pid)
		if err != nil || p.Signal(syscall.Signal(0)) != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// daemonCommands are the commands a daemon runs for a client (relay):
// reads whose output depends on nothing of the client but its command
// line, working directory, environment (the fingerprint) and $COLUMNS.
// The client hands over only when neither stdout nor stderr is a
// terminal, so no output is formatted for one.
var daemonCommands = map[string]bool{"governing": true, "status": true, "list": true, "show": true, "search": true, "brief": true, "api": true}

// handedOver runs, inside the daemon, a command line a client handed over
// before it initialised; the output is what the client's own run would
// print. Anything else is declined and runs in the client.
func handedOver(ctx context.Context, inv *daemon.Invocation) (out *daemon.Output, err error) {
	probe := &factory{dir: ".", color: "auto"}
	rest, version, help, perr := parseGlobals(probe, inv.Args)
	if perr != nil || version || help || len(rest) == 0 || !daemonCommands[rest[0]] || probe.progress != "" {
		return nil, daemon.ErrDecline
	}
	for _, a := range rest[1:] {
		if a == "-" || a == "-h" || a == "--help" || a == "-help" || a == "--" {
			return nil, daemon.ErrDecline // stdin, help, or arguments the probe did not see
		}
	}
	if rest[0] == "api" && (len(rest) < 2 || !daemon.Forwardable(rest[1])) {
		return nil, daemon.ErrDecline
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("the command failed in the daemon: %v", r)
		}
	}()
	var stdout, stderr bytes.Buffer
	code := runIn(ctx, inv.Args, Streams(strings.NewReader(""), &stdout, &stderr),
		host{cwd: inv.Cwd, columns: inv.Columns, open: inv.Open, daemon: true})
	return &daemon.Output{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Code: code}, nil
}

// refusedFor is how long an automatic start is not tried again after a
// daemon refused to run in the repository (a network file system, the
// inotify limit): each call would otherwise pay for a failing start.
const refusedFor = time.Hour

// autoStartDaemon starts a daemon in the background for the repository of
// a read a daemon runs (daemonCommands; for api, a read operation), with
// KONTEXT_DAEMON=auto (as git
// starts its fsmonitor daemon with core.fsmonitor): the call that starts
// it is answered locally and does not wait, the next ones are the
// daemon's. Nothing is started while one runs, after a refusal within
// the last hour, or where the platform has none; a failure is silent
// (the call's answer is already out; the log says why).
func autoStartDaemon(g *factory) {
	if !daemon.Supported {
		return
	}
	gitDir := relay.FindGitDir(g.dir)
	if gitDir == "" || daemon.RunningPID(gitDir) != 0 {
		return
	}
	paths := daemon.PathsOf(gitDir)
	if fi, err := os.Stat(paths.Refused); err == nil && time.Since(fi.ModTime()) < refusedFor {
		return
	}
	dir, err := filepath.Abs(g.dir)
	if err != nil {
		return
	}
	exe, err := self()
	if err != nil || os.MkdirAll(paths.Dir, 0o755) != nil {
		return
	}
	if p, err := daemon.Spawn(exe, []string{os.Args[0], "-C", dir, "daemon", "run", "--idle", daemon.DefaultIdle.String()}, paths.Log); err == nil {
		p.Release()
	}
}
