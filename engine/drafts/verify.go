package drafts

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/ledger"
	"github.com/kontext/kontext/engine/internal/redact"
)

// DefaultVerifyTimeout is the verify timeout when nothing sets one.
const DefaultVerifyTimeout = 120 * time.Second

// outputTailBytes is how much command output a verify result keeps.
const outputTailBytes = 2048

// verifyLedgerLine is a ledger line of kind verify.
type verifyLedgerLine struct {
	At            string  `json:"at"`
	Kind          string  `json:"kind"`
	ID            string  `json:"id"`
	Commit        *string `json:"commit"`
	By            string  `json:"by"`
	Because       *string `json:"because"`
	Passed        bool    `json:"passed"`
	ExitCode      *int    `json:"exit_code"`
	CommandSHA256 string  `json:"command_sha256"`
}

func runVerify(ctx context.Context, e *draft, in *api.VerifyInput) (*api.VerifyResult, error) {
	if len(in.Because) > 500 || strings.ContainsAny(in.Because, "\r\n") {
		return nil, jsonin.Errorf("because", "must be one line of at most 500 characters")
	}
	if _, err := e.writer(); err != nil {
		return nil, err
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	en, err := st.Snap.Lookup(in.ID)
	if err != nil {
		return nil, err
	}
	if en.Verify == "" {
		return nil, apierr.Invalid("%s has no verify command; set one with drafts.set_verify", en.ID)
	}
	if entry.Inactive(en.Status) {
		return nil, apierr.New(apierr.OperationConflict, "%s is %s; only active entries are verified", en.ID, en.Status)
	}
	sum := engine.CommandSHA256(en.Verify)
	if e.Options().Trust == nil || !e.Options().Trust.Pinned(e.Options().Root, en.ID, en.Verify) {
		ae := apierr.New(apierr.UntrustedVerify, "the verify command of %s is not pinned in your trust file, so it was not run; a person shows it and pins it with %q", en.ID, engine.UntrustedVerifyHint(en.ID))
		ae.Extra = map[string]any{"id": en.ID, "command": en.Verify, "command_sha256": sum, "hint": engine.UntrustedVerifyHint(en.ID)}
		return nil, ae
	}
	if e.Options().Runner == nil {
		return nil, apierr.New(apierr.UnsupportedOperation, "verify runs need the native CLI")
	}
	req, err := e.verifyRequest(en.Verify)
	if err != nil {
		return nil, err
	}
	dirty, err := e.dirtyPaths(ctx, st, en)
	if err != nil {
		return nil, err
	}
	at := e.Now().Format("2006-01-02T15:04:05Z")
	// The command runs without the write lock: only the ledger append takes it.
	run, err := e.Options().Runner.Run(ctx, req)
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "running the verify command of %s", en.ID)
	}
	passed := !run.TimedOut && run.ExitCode != nil && *run.ExitCode == 0
	tail, _ := redact.Text(outputTail(run.Output))

	because := in.Because
	if len(dirty) > 0 {
		note := "[dirty: " + strings.Join(dirty, ", ") + "]"
		if because == "" {
			because = note
		} else {
			because += " " + note
		}
	}
	var path string
	if _, err := e.recorded(ctx, "drafts.verify", "", "", func(now *engine.State, by string, p *plan) (any, error) {
		line, _ := json.Marshal(verifyLedgerLine{At: at, Kind: ledger.KindVerify, ID: en.ID, Commit: strp(st.Head), By: by,
			Because: strp(because), Passed: passed, ExitCode: run.ExitCode, CommandSHA256: sum})
		path = now.Cfg.Ledger()
		return nil, e.appendLedger(ctx, now, p, []string{string(line)})
	}); err != nil {
		return nil, err
	}
	if dirty == nil {
		dirty = []string{}
	}
	return &api.VerifyResult{ID: en.ID, Command: en.Verify, CommandSHA256: sum, Ran: true, Passed: passed, ExitCode: run.ExitCode,
		TimedOut: run.TimedOut, OutputTail: tail, At: at, Commit: strp(st.Head), Dirty: len(dirty) > 0, DirtyPaths: dirty, Path: path}, nil
}

// verifyRequest builds the run request from the runner's local settings.
func (e *draft) verifyRequest(command string) (engine.RunRequest, error) {
	var s engine.VerifySettings
	if src, ok := e.Options().Runner.(engine.VerifySettingsSource); ok {
		var err error
		if s, err = src.VerifySettings(); err != nil {
			return engine.RunRequest{}, err
		}
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultVerifyTimeout
	}
	return engine.RunRequest{Command: command, Dir: e.Options().Root, Env: VerifyEnv(s.Environ, s.PassEnv), Timeout: s.Timeout}, nil
}

// verifyEnvNames is the environment allow-list of verify runs (LC_* too).
var verifyEnvNames = map[string]bool{"PATH": true, "HOME": true, "USER": true, "LANG": true, "TMPDIR": true, "TERM": true}

// VerifyEnv keeps the allow-listed variables of environ (PATH, HOME, USER,
// LANG, LC_*, TMPDIR, TERM) and those named in passEnv.
func VerifyEnv(environ, passEnv []string) []string {
	pass := map[string]bool{}
	for _, n := range passEnv {
		pass[n] = true
	}
	out := []string{}
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if verifyEnvNames[name] || strings.HasPrefix(name, "LC_") || pass[name] {
			out = append(out, kv)
		}
	}
	return out
}

// ParseVerifyTimeout reads a KONTEXT_VERIFY_TIMEOUT_SECS or timeout_secs
// value: a positive whole number of seconds.
func ParseVerifyTimeout(name, v string) (time.Duration, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return 0, apierr.Invalid("%s=%q is not a positive whole number of seconds", name, v)
	}
	return time.Duration(n) * time.Second, nil
}

// outputTail is the last 2 KiB of out, starting at a whole character.
func outputTail(out []byte) string {
	if len(out) > outputTailBytes {
		out = out[len(out)-outputTailBytes:]
		for i := 0; i < utf8.UTFMax && len(out) > 0 && !utf8.RuneStart(out[0]); i++ {
			out = out[1:]
		}
	}
	return strings.ToValidUTF8(string(out), "\uFFFD")
}

// dirtyPaths lists the uncommitted changes to en's file or its governed
// paths (knowledge files other than en's own file are not governed).
func (e *draft) dirtyPaths(ctx context.Context, st *engine.State, en *entry.Entry) ([]string, error) {
	if e.Options().History == nil {
		return nil, nil
	}
	all, err := e.Options().History.Uncommitted(ctx)
	if err != nil {
		return nil, err
	}
	knowledge := st.KnowledgeFiles()
	hits := map[string]bool{}
	var governed []string
	for _, p := range all {
		if p == en.File {
			hits[p] = true
		} else if !knowledge(p) {
			governed = append(governed, p)
		}
	}
	if len(governed) > 0 && len(en.Paths) > 0 {
		for _, r := range st.Snap.Governing().Lookup(governed) {
			if st.Snap.Entry(r.Owner) != en {
				continue
			}
			for _, m := range r.Matches {
				hits[m.Path] = true
			}
		}
	}
	out := make([]string, 0, len(hits))
	for p := range hits {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}
