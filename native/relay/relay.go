// Package relay is the client half of the kontext daemon (package
// daemon): the wire protocol, the fingerprint a client must share with
// the daemon, and the call over the repository's Unix socket.
//
// On Linux it also answers whole invocations early: when a daemon serves
// the repository, kontext's package initialisation hands the command line
// to it and exits with its answer before the rest of the program (the
// Markdown and YAML parsers, the MCP server, jq) is initialised. Go
// initialises a package as soon as its imports are; this one imports only
// the standard library, so it runs before any of those (a script test
// pins it). That start-up is most of a short call's cost: a whole
// kontext process spends more time initialising packages than answering
// a warm `governing` (docs/architecture.md, "Whole-process floor").
package relay

import (
	"errors"
	"hash/fnv"
	"os"
	"time"
	"unicode/utf8"

	"github.com/kontext/kontext/native/internal/buildkey"
)

// Protocol is the version of the socket protocol.
const Protocol = 1

// ErrNotSupported is returned where the platform has no daemon.
var ErrNotSupported = errors.New("kontext daemon is not supported on this platform (it needs Linux inotify)")

// Request is one line a client sends.
type Request struct {
	V int `json:"v"`
	// Op is an API operation, "cli" (a whole command line), or
	// daemon.status / daemon.stop.
	Op    string `json:"op"`
	Key   string `json:"key,omitempty"`
	Dir   string `json:"dir,omitempty"` // absolute: the target (api) or working directory (cli)
	Input string `json:"input,omitempty"`
	// Args is the command line of a "cli" request, without the program name.
	Args []string `json:"args,omitempty"`
	// Columns is the client's $COLUMNS (the width of human tables): the
	// one variable outside the fingerprint that changes a "cli" answer.
	Columns string `json:"columns,omitempty"`
}

// Reply is the one line a daemon answers.
type Reply struct {
	// Envelope is the API answer, byte for byte what the local engine prints.
	Envelope string `json:"envelope,omitempty"`
	// Stdout, Stderr and Code are a "cli" request's output and exit code.
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	Code   int    `json:"code,omitempty"`
	// Served says the daemon ran a "cli" request.
	Served bool `json:"served,omitempty"`
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
	// LastFallback says why the last request the daemon did not answer
	// ran in its client.
	LastFallback string `json:"last_fallback,omitempty"`
}

// ignoredEnv are variables that change between shells but never an
// answer; every other variable is part of the fingerprint. COLUMNS does
// change human tables: a "cli" request carries it (Request.Columns).
var ignoredEnv = map[string]bool{
	"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true, "TERM": true, "COLORTERM": true,
	"COLUMNS": true, "LINES": true, "TERM_PROGRAM": true, "TERM_PROGRAM_VERSION": true,
	"TERM_SESSION_ID": true, "WINDOWID": true, "TMUX_PANE": true, "PS1": true, "PS2": true,
	"PROMPT_COMMAND": true, "LS_COLORS": true, "KONTEXT_DAEMON": true,
}

// Fingerprint names everything of this process besides the request that
// can change an answer: the binary (a rebuilt kontext never talks to an
// old daemon) and the environment (KONTEXT_*, GIT_*, HOME, XDG_*, PATH and
// whatever a model selection may name: all of it, less a few variables of
// the shell session). It is a 128-bit FNV-1a hash: it tells one process's
// settings from another's (both are the same user's); the crypto packages
// would be initialised before the client could run.
func Fingerprint(binaryKey string, environ []string) string {
	env := make([]string, 0, len(environ))
	for _, kv := range environ {
		k := kv
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				k = kv[:i]
				break
			}
		}
		if !ignoredEnv[k] {
			env = append(env, kv)
		}
	}
	for i := 1; i < len(env); i++ { // a few dozen variables: insertion sort
		for j := i; j > 0 && env[j] < env[j-1]; j-- {
			env[j], env[j-1] = env[j-1], env[j]
		}
	}
	h := fnv.New128a()
	h.Write([]byte(binaryKey))
	for _, kv := range env {
		h.Write([]byte{0})
		h.Write([]byte(kv))
	}
	const digits = "0123456789abcdef"
	var out []byte
	for _, b := range h.Sum(nil) {
		out = append(out, digits[b>>4], digits[b&15])
	}
	return string(out)
}

// ClientFingerprint is this process's Fingerprint.
func ClientFingerprint() string { return Fingerprint(buildkey.Key(), os.Environ()) }

// Timeouts of Hand: a daemon that does not answer in time is skipped
// (the command runs in the client).
var (
	dialTimeout  = 2 * time.Second
	replyTimeout = 5 * time.Second
)

// AppendRequest appends req as one JSON line (the daemon decodes it with
// encoding/json; the client encodes it by hand, as encoding/json would be
// initialised first). ok is false for a string that is not UTF-8, which
// JSON cannot carry unchanged.
func AppendRequest(b []byte, req *Request) (_ []byte, ok bool) {
	ok = true
	str := func(name, v string) {
		if v == "" {
			return
		}
		b = append(b, ',', '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b, ok = appendString(b, v, ok)
	}
	b = append(b, `{"v":`...)
	b = appendInt(b, req.V)
	str("op", req.Op)
	str("key", req.Key)
	str("dir", req.Dir)
	str("input", req.Input)
	if len(req.Args) > 0 {
		b = append(b, `,"args":[`...)
		for i, a := range req.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b, ok = appendString(b, a, ok)
		}
		b = append(b, ']')
	}
	str("columns", req.Columns)
	return append(b, '}', '\n'), ok
}

func appendString(b []byte, s string, ok bool) ([]byte, bool) {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"'), ok && utf8.ValidString(s)
}

func appendInt(b []byte, n int) []byte {
	if n < 0 {
		b, n = append(b, '-'), -n
	}
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// The answer to a "cli" request is framed, not JSON (the output may be
// megabytes, and the client decodes it while the program initialises):
// 'S', the exit code, stdout and stderr for a run the daemon served; 'F'
// and the reason for a fallback. Numbers and lengths are big-endian
// uint32.

// AppendCommandReply appends rep framed as a "cli" answer.
func AppendCommandReply(b []byte, rep *Reply) []byte {
	if !rep.Served {
		b = append(b, 'F')
		return appendBytes(b, rep.Fallback)
	}
	b = append(b, 'S')
	b = appendUint32(b, uint32(rep.Code))
	b = appendBytes(b, rep.Stdout)
	return appendBytes(b, rep.Stderr)
}

func appendBytes(b []byte, s string) []byte {
	b = appendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// ParseCommandReply reads a framed "cli" answer.
func ParseCommandReply(b []byte) (*Reply, error) {
	bad := errors.New("the daemon's answer is not a framed command reply")
	take := func() (string, bool) {
		if len(b) < 4 {
			return "", false
		}
		n := uint32At(b)
		if uint64(n) > uint64(len(b)-4) {
			return "", false
		}
		s := string(b[4 : 4+n])
		b = b[4+n:]
		return s, true
	}
	if len(b) == 0 {
		return nil, bad
	}
	kind := b[0]
	b = b[1:]
	switch kind {
	case 'F':
		why, ok := take()
		if !ok || len(b) != 0 {
			return nil, bad
		}
		return &Reply{Fallback: why}, nil
	case 'S':
		if len(b) < 4 {
			return nil, bad
		}
		rep := &Reply{Served: true, Code: int(uint32At(b))}
		b = b[4:]
		var ok1, ok2 bool
		rep.Stdout, ok1 = take()
		rep.Stderr, ok2 = take()
		if !ok1 || !ok2 || len(b) != 0 {
			return nil, bad
		}
		return rep, nil
	}
	return nil, bad
}

// Big-endian by hand: encoding/binary would initialise reflect first.
func appendUint32(b []byte, v uint32) []byte {
	return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func uint32At(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
