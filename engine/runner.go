package engine

import (
	"context"
	"time"
)

// The native runtime interfaces of the write operations. They are declared for
// every build (engine.Options carries them); the operation itself is
// compiled only natively.

// Runner runs a pinned verify command (native only). Run returns an error
// only when the command could not be started or waited for; a failing or
// killed command is a RunResult.
type Runner interface {
	Run(ctx context.Context, req RunRequest) (RunResult, error)
}

// RunRequest is one verify run: `sh -c Command` in Dir with exactly Env,
// stdin closed, killed (with its process group) after Timeout.
type RunRequest struct {
	Command, Dir string
	Env          []string
	Timeout      time.Duration
}

// RunResult is the outcome of a run.
type RunResult struct {
	ExitCode *int // nil when the process was killed
	TimedOut bool
	Output   []byte // stdout and stderr combined; the last 2 KiB kept by the runner
}

// Trust answers whether a verify command is pinned for an entry of a
// repository (the user's trust file, natively).
type Trust interface {
	Pinned(repository, id, command string) bool
}

// VerifySettings are the machine-local settings of verify runs.
type VerifySettings struct {
	// Environ is the environment the allow-list is taken from (os.Environ
	// natively).
	Environ []string
	// PassEnv are extra variable names from the local [verify] pass_env.
	PassEnv []string
	// Timeout is the run timeout (KONTEXT_VERIFY_TIMEOUT_SECS, else the
	// local timeout_secs); 0 means the default.
	Timeout time.Duration
}

// VerifySettingsSource is implemented by a Runner that knows the local
// verify settings. A Runner without it runs with an empty environment
// but for nothing and the default timeout.
type VerifySettingsSource interface {
	VerifySettings() (VerifySettings, error)
}

// Writer writes and stages files of one worktree and keeps its local
// state. Only native surfaces have one: writes take the shared write lock,
// are atomic, and stage exactly the files they wrote.
type Writer interface {
	// Lock takes the shared write lock (bounded wait).
	Lock(ctx context.Context) (unlock func(), err error)
	// WriteFile writes a repo-relative file atomically.
	WriteFile(rel string, data []byte) error
	// Remove deletes a repo-relative file (the rollback of a new file
	// whose write could not be staged); a missing file is no error.
	Remove(rel string) error
	// MkdirAll creates a repo-relative directory and its parents.
	MkdirAll(rel string) error
	// Stage adds exactly these files to the git index.
	Stage(ctx context.Context, paths ...string) error
	// ReadState and WriteState access local state below <git-dir>/kontext/.
	ReadState(name string) (data []byte, ok bool, err error)
	WriteState(name string, data []byte) error
	// ListState lists the state files below dir (e.g. "inbox"), sorted.
	ListState(dir string) ([]string, error)
	// Identity is the `by` of ledger lines: the git user name, or
	// application:<name>.
	Identity() string
}

// IndexWriter is a Writer that also reads and writes a file's version in
// the git index apart from its working file: an append to a file the user
// has unstaged lines in (the ledger) stages only its own lines.
type IndexWriter interface {
	// IndexFile returns the content rel has in the index; ok is false
	// when the index has no entry for it.
	IndexFile(ctx context.Context, rel string) (data []byte, ok bool, err error)
	// StageContents stages paths from their working files and each file
	// of contents with the content given (its working file untouched), in
	// one update of the index.
	StageContents(ctx context.Context, paths []string, contents map[string][]byte) error
}

// CheckedWriter is a Writer that rewrites an existing file only while it
// still holds the bytes the write was planned from: checked immediately
// before the rename, and the old file re-read after it (an outside edit
// that got in is put back, nothing of it lost). A changed file is
// operation_conflict naming it, with nothing written.
type CheckedWriter interface {
	ReplaceFile(rel string, data, before []byte) error
}
