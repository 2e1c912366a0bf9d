// Package daemon is kontext's file-system monitor: an opt-in process per
// repository that keeps one warm engine in memory and answers read-only
// API requests over a Unix socket, knowing from inotify (Linux) which
// knowledge files changed since it last read them. It is what git's
// fsmonitor daemon is for huge repositories: the one way under the
// whole-process floor of validating a stored snapshot with one stat per
// knowledge file. Package relay is its client: the protocol, and the
// early hand-over of whole command lines (Config.Command runs them).
//
// It is never wrong rather than fast: the client falls back to answering
// in its own process on any doubt (no daemon, a stale socket, another
// build or environment, a symbolic link in the knowledge tree, a timeout,
// a protocol error), and the daemon answers a request only after reading
// every inotify event queued before the request arrived (see
// docs/architecture.md, "File-system monitor"). Other platforms build a
// stub that reports it is not supported.
package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/native"
	"github.com/kontext/kontext/native/relay"
)

// DefaultIdle is how long a daemon waits for a request before it exits.
const DefaultIdle = 30 * time.Minute

// forwardable are the operations a daemon answers: reads that take no
// lock, run no process and ask no model (entries.related may, with llm);
// the brief reads the worktree's status too, per request as git state is.
var forwardable = []string{"status", "entries.list", "entries.get", "entries.search", "entries.governing", "context.brief"}

// Forwardable reports whether op may be sent to a daemon.
func Forwardable(op string) bool { return slices.Contains(forwardable, op) }

// Paths are the files of a repository's daemon, under its git dir.
type Paths struct {
	GitDir string
	Dir    string // <git-dir>/kontext
	Socket string // the Unix socket (mode 0600)
	Lock   string // held (flock) while a daemon runs; holds its pid
	Log    string // what a daemon started in the background prints
	// Refused holds why the last daemon could not run here (automatic
	// starts wait a while after it).
	Refused string
}

// PathsOf returns the daemon files of the repository whose git dir is gitDir.
func PathsOf(gitDir string) Paths {
	d := filepath.Join(gitDir, "kontext")
	return Paths{GitDir: gitDir, Dir: d, Socket: filepath.Join(d, "daemon.sock"), Lock: filepath.Join(d, "daemon.lock"), Log: filepath.Join(d, "daemon.log"), Refused: filepath.Join(d, "daemon.refused")}
}

// Config configures Run.
type Config struct {
	Dir  string        // a directory of the repository
	Idle time.Duration // exit after this long without a request (0: DefaultIdle)
	// Tick is how often the daemon checks its idle time, its git dir and
	// its socket (0: one second).
	Tick time.Duration
	// Ready is called once the socket answers.
	Ready func(relay.Info)
	// Environ is the environment clients must match (nil: os.Environ()).
	Environ []string
	// Command runs a command line a client handed over (relay); nil: the
	// daemon answers API requests only. It returns ErrDecline for a
	// command it does not run in a daemon.
	Command func(ctx context.Context, inv *Invocation) (*Output, error)
}

// Invocation is a command line a client handed over.
type Invocation struct {
	Args    []string // without the program name
	Cwd     string   // the client's working directory (absolute)
	Columns string   // the client's $COLUMNS
	// Open opens the engine of the repository containing dir, sharing the
	// daemon's warm read. It fails for another repository than the
	// daemon's; any failure makes the client run the command itself.
	Open func(dir string, o native.Options) (*engine.Engine, error)
}

// Output is what an invocation printed and its exit code.
type Output struct {
	Stdout, Stderr []byte
	Code           int
}

// ErrDecline is Config.Command's answer for a command line it does not run
// in a daemon (a write, a terminal dialogue, stdin): the client runs it.
var ErrDecline = errors.New("the command is not run by the daemon")

// ErrRunning is returned by Run when a daemon already serves the repository.
type ErrRunning struct{ PID int }

func (e *ErrRunning) Error() string {
	return fmt.Sprintf("a kontext daemon already serves this repository (pid %d)", e.PID)
}

// Ask answers a read-only API request through the daemon of the
// repository containing the request's directory (dir, or input's "dir"
// resolved against it), when one runs; ok is false otherwise and the
// caller answers it itself: an operation a daemon does not answer,
// KONTEXT_DAEMON=off, no git dir, no daemon, any doubt. It opens no
// engine: a stat per directory up to the git dir and one connect decide.
func Ask(dir, op string, input []byte) (env []byte, ok bool) {
	if !Forwardable(op) || os.Getenv("KONTEXT_DAEMON") == "off" {
		return nil, false
	}
	target, err := native.TargetDir(dir, input)
	if err != nil {
		return nil, false
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return nil, false
	}
	gitDir := relay.FindGitDir(abs)
	if gitDir == "" {
		return nil, false
	}
	return Forward(gitDir, abs, op, input, relay.ClientFingerprint())
}

// Forward sends op to the daemon of the repository whose git dir is
// gitDir and returns the envelope it answered; ok is false when it did
// not (no daemon, a fallback, any error): the caller runs the request
// itself. dir is the absolute directory the request addresses.
func Forward(gitDir, dir, op string, input []byte, fingerprint string) (env []byte, ok bool) {
	rep, err := call(PathsOf(gitDir).Socket, &relay.Request{V: relay.Protocol, Op: op, Key: fingerprint, Dir: dir, Input: string(input)})
	if err != nil || rep.Fallback != "" || rep.Envelope == "" {
		return nil, false
	}
	return []byte(rep.Envelope), true
}

// Status asks the daemon of gitDir how it is; an error when none answers.
func Status(gitDir string) (*relay.Info, error) {
	rep, err := call(PathsOf(gitDir).Socket, &relay.Request{V: relay.Protocol, Op: "daemon.status"})
	if err != nil {
		return nil, err
	}
	if rep.Status == nil {
		return nil, errors.New("the daemon did not report its status")
	}
	return rep.Status, nil
}

// Stop asks the daemon of gitDir to exit and returns its last status.
func Stop(gitDir string) (*relay.Info, error) {
	rep, err := call(PathsOf(gitDir).Socket, &relay.Request{V: relay.Protocol, Op: "daemon.stop"})
	if err != nil {
		return nil, err
	}
	return rep.Status, nil
}

// call sends one request and reads one JSON reply ("cli" requests go
// through relay.Hand).
func call(socket string, req *relay.Request) (*relay.Reply, error) {
	c, err := net.DialTimeout("unix", socket, dialTimeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := checkPeer(c); err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(replyTimeout))
	line, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if _, err := c.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	var rep relay.Reply
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// Timeouts of the client: a daemon that does not answer in time is
// skipped (the request runs locally).
var (
	dialTimeout  = 2 * time.Second
	replyTimeout = 5 * time.Second
)
