// Package daemon is kontext's file-system monitor: an opt-in process per
// repository that keeps one warm engine in memory and answers read-only
// API requests over a Unix socket, knowing from inotify (Linux) which
// knowledge files changed since it last read them. It is what git's
// fsmonitor daemon is for huge repositories: the one way under the
// whole-process floor of validating a stored snapshot with one stat per
// knowledge file.
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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kontext/kontext/native/internal/snapstore"
)

// ErrNotSupported is returned where the platform has no monitor.
var ErrNotSupported = errors.New("kontext daemon is not supported on this platform (it needs Linux inotify)")

// DefaultIdle is how long a daemon waits for a request before it exits.
const DefaultIdle = 30 * time.Minute

// protocol is the version of the socket protocol.
const protocol = 1

// forwardable are the operations a daemon answers: reads that take no
// lock, run no process and ask no model (entries.related may, with llm).
var forwardable = []string{"status", "entries.list", "entries.get", "entries.search", "entries.governing"}

// Forwardable reports whether op may be sent to a daemon.
func Forwardable(op string) bool { return slices.Contains(forwardable, op) }

// Paths are the files of a repository's daemon, under its git dir.
type Paths struct {
	GitDir string
	Dir    string // <git-dir>/kontext
	Socket string // the Unix socket (mode 0600)
	Lock   string // held (flock) while a daemon runs; holds its pid
	Log    string // what a daemon started in the background prints
}

// PathsOf returns the daemon files of the repository whose git dir is gitDir.
func PathsOf(gitDir string) Paths {
	d := filepath.Join(gitDir, "kontext")
	return Paths{GitDir: gitDir, Dir: d, Socket: filepath.Join(d, "daemon.sock"), Lock: filepath.Join(d, "daemon.lock"), Log: filepath.Join(d, "daemon.log")}
}

// FindGitDir returns the git dir of the worktree containing dir (walking
// up as git does, following a ".git" file), "" outside git. It costs one
// stat per level and reads nothing else: the client calls it before
// deciding whether to open an engine at all.
func FindGitDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return p
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return ""
			}
			g, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
			if !ok {
				return ""
			}
			g = strings.TrimSpace(g)
			if !filepath.IsAbs(g) {
				g = filepath.Join(d, g)
			}
			return g
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// ignoredEnv are variables that change between shells but never an
// answer; every other variable is part of the fingerprint.
var ignoredEnv = map[string]bool{
	"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true, "TERM": true, "COLORTERM": true,
	"COLUMNS": true, "LINES": true, "TERM_PROGRAM": true, "TERM_PROGRAM_VERSION": true,
	"TERM_SESSION_ID": true, "WINDOWID": true, "TMUX_PANE": true, "PS1": true, "PS2": true,
	"PROMPT_COMMAND": true, "LS_COLORS": true, "KONTEXT_DAEMON": true,
}

// Fingerprint names everything of this process besides the request that
// can change an answer: the binary (the snapshot store's key: a rebuilt
// kontext never talks to an old daemon) and the environment (KONTEXT_*,
// GIT_*, HOME, XDG_*, PATH and whatever a model selection may name: all
// of it, less a few variables of the shell session).
func Fingerprint(binaryKey string, environ []string) string {
	env := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !ignoredEnv[k] {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	h := sha256.New()
	h.Write([]byte(binaryKey))
	for _, kv := range env {
		h.Write([]byte{0})
		h.Write([]byte(kv))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ClientFingerprint is this process's Fingerprint.
func ClientFingerprint() string { return Fingerprint(snapstore.BinaryKey(), os.Environ()) }

// Config configures Run.
type Config struct {
	Dir  string        // a directory of the repository
	Idle time.Duration // exit after this long without a request (0: DefaultIdle)
	// Tick is how often the daemon checks its idle time, its git dir and
	// its socket (0: one second).
	Tick time.Duration
	// Ready is called once the socket answers.
	Ready func(Info)
	// Environ is the environment clients must match (nil: os.Environ()).
	Environ []string
}

// ErrRunning is returned by Run when a daemon already serves the repository.
type ErrRunning struct{ PID int }

func (e *ErrRunning) Error() string {
	return fmt.Sprintf("a kontext daemon already serves this repository (pid %d)", e.PID)
}

// Request is one line a client sends.
type Request struct {
	V     int    `json:"v"`
	Op    string `json:"op"` // an API operation, or daemon.status / daemon.stop
	Key   string `json:"key,omitempty"`
	Dir   string `json:"dir,omitempty"` // absolute: the client's target dir
	Input string `json:"input,omitempty"`
}

// Reply is the one line a daemon answers.
type Reply struct {
	// Envelope is the API answer, byte for byte what the local engine prints.
	Envelope string `json:"envelope,omitempty"`
	// Fallback says why the daemon did not answer: run locally.
	Fallback string `json:"fallback,omitempty"`
	Status   *Info  `json:"status,omitempty"`
}

// Info is what `kontext daemon status` reports.
type Info struct {
	PID         int       `json:"pid"`
	Root        string    `json:"repo"`
	Socket      string    `json:"socket"`
	Since       time.Time `json:"since"`
	Requests    int64     `json:"requests_served"`
	Fallbacks   int64     `json:"fallbacks"`
	WatchedDirs int       `json:"watched_dirs"`
	Idle        string    `json:"idle_exit"`
	// Degraded says why every request falls back now ("" when none).
	Degraded string `json:"degraded,omitempty"`
}

// Timeouts of the client: a daemon that does not answer in time is
// skipped (the request runs locally).
var (
	dialTimeout  = 2 * time.Second
	replyTimeout = 5 * time.Second
)

// Forward sends op to the daemon of the repository whose git dir is
// gitDir and returns the envelope it answered; ok is false when it did
// not (no daemon, a fallback, any error): the caller runs the request
// itself. dir is the absolute directory the request addresses.
func Forward(gitDir, dir, op string, input []byte, fingerprint string) (env []byte, ok bool) {
	rep, err := call(PathsOf(gitDir).Socket, Request{V: protocol, Op: op, Key: fingerprint, Dir: dir, Input: string(input)})
	if err != nil || rep.Fallback != "" || rep.Envelope == "" {
		return nil, false
	}
	return []byte(rep.Envelope), true
}

// Status asks the daemon of gitDir how it is; an error when none answers.
func Status(gitDir string) (*Info, error) {
	rep, err := call(PathsOf(gitDir).Socket, Request{V: protocol, Op: "daemon.status"})
	if err != nil {
		return nil, err
	}
	if rep.Status == nil {
		return nil, errors.New("the daemon did not report its status")
	}
	return rep.Status, nil
}

// Stop asks the daemon of gitDir to exit and returns its last status.
func Stop(gitDir string) (*Info, error) {
	rep, err := call(PathsOf(gitDir).Socket, Request{V: protocol, Op: "daemon.stop"})
	if err != nil {
		return nil, err
	}
	return rep.Status, nil
}

// call sends one request and reads one reply.
func call(socket string, req Request) (*Reply, error) {
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
	var rep Reply
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&rep); err != nil {
		return nil, err
	}
	return &rep, nil
}
