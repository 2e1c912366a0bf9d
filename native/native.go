// Package native serves the application API over a repository on disk: it
// opens the worktree with the OS filesystem and go-git and hands both to
// the engine. Applications embed kontext through package kontext (the
// module root), which opens repositories with it.
package native

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/drafts"
	"github.com/kontext/kontext/engine/models"
	"github.com/kontext/kontext/engine/worktree"
	"github.com/kontext/kontext/native/internal/dirfs"
	"github.com/kontext/kontext/native/internal/gitrepo"
	"github.com/kontext/kontext/native/internal/llm"
	"github.com/kontext/kontext/native/internal/snapstore"
	"github.com/kontext/kontext/native/internal/verifyrun"
)

// Request runs one API operation against the repository containing dir and
// returns the JSON envelope, exactly as `kontext -C dir api` prints it. An
// input field "dir" overrides dir (relative to it).
func Request(ctx context.Context, dir, operation string, input []byte) []byte {
	e, err := OpenFor(dir, input)
	if err != nil {
		return engine.ErrorEnvelope(err)
	}
	return e.Request(ctx, operation, input)
}

// OpenFor opens the engine that a request with input addresses: dir, or
// the input's "dir" field resolved against dir.
func OpenFor(dir string, input []byte) (*engine.Engine, error) {
	d, err := TargetDir(dir, input)
	if err != nil {
		return nil, err
	}
	return Open(d)
}

// TargetDir is the directory a request with input addresses: the input's
// "dir" field resolved against dir, else dir ("" = ".").
func TargetDir(dir string, input []byte) (string, error) {
	d, err := engine.InputDir(input)
	if err != nil {
		return "", err
	}
	if d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		dir = d
	}
	if dir == "" {
		dir = "."
	}
	return dir, nil
}

// Options tune Open for an interactive caller.
type Options struct {
	// Progress is told about long work: event "start" or "done", a task
	// name ("history.index") and fields (commits, ms).
	Progress func(event, task string, fields map[string]any)
	// Person marks the human CLI: ledger lines name git's user.name. Every other caller
	// is an application and writes `by: application:<name>`.
	Person bool
	// Application is <name> when KONTEXT_APPLICATION is unset ("" = "api").
	Application string
}

// Open returns an engine over the worktree containing dir. A directory
// outside any git repository is read as a plain file set.
func Open(dir string) (*engine.Engine, error) { return OpenWith(dir, Options{}) }

// OpenWith is Open with options.
func OpenWith(dir string, o Options) (*engine.Engine, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, apierr.Invalid("dir %q cannot be resolved: %v", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return nil, apierr.Invalid("dir %q is not a directory", dir)
	}
	now, err := clock()
	if err != nil {
		return nil, err
	}
	// The write operations are passed in here, explicitly: the engine
	// itself never links them (the WASM build has none).
	opts := engine.Options{Root: abs, Now: now, Surface: engine.Native, Operations: Operations(), RelatedModel: models.Related, RelatedCache: models.CachedRelated}
	gitDir := ""
	repo, err := gitrepo.Open(abs)
	switch {
	case errors.Is(err, gitrepo.ErrNoRepository):
	case err != nil:
		return nil, err
	default:
		repo.Progress = o.Progress
		opts.Root = repo.Root()
		opts.Git = repo
		opts.History = repo
		opts.Writer = newLocalWriter(repo, o)
		opts.Runner = &verifyrun.Runner{GitDir: repo.GitDir()}
		opts.Trust = verifyrun.Trust{}
		gitDir = repo.GitDir()
		// A write whose paths all lie inside a nested repository is routed
		// there: it is opened like this one, with the same options.
		root := repo.Root()
		opts.Nested = func(dir string) (*engine.Engine, error) {
			return OpenWith(filepath.Join(root, filepath.FromSlash(dir)), o)
		}
	}
	// The model selection is local only: env, <git-dir>/kontext/config.toml,
	// the user config — never the committed configuration.
	opts.Models = llm.Select(gitDir)
	if real, err := filepath.EvalSymlinks(opts.Root); err == nil && real != opts.Root {
		opts.RootAliases = []string{real}
	}
	opts.FS = dirfs.New(osfs.New(opts.Root, osfs.WithBoundOS()), opts.Root)
	e := engine.New(opts)
	e.UseAdoptionFinder(worktree.FindAdoptable)
	e.UseIncompleteLister(drafts.IncompleteOperations)
	// The walk never descends through a link, "..", or a file, so the plain
	// system call is as safe here as the bound filesystem's lstat, which
	// resolves every parent again (most of a 3,000-path answer's time).
	root := opts.Root
	e.UseBoundaryFinder(func(_ billy.Filesystem, paths []string) []api.Boundary {
		return worktree.BoundariesStat(func(p string) (fs.FileInfo, error) {
			return os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		}, paths)
	})
	if gitDir != "" {
		e.UseSnapshotStore(snapstore.New(gitDir))
	}
	return e, nil
}

// BundleSnapshots is the cache of compiled bundle snapshots of e's
// worktree (under its git dir) for worktree.WithSnapshotCache; nil for an
// engine outside git.
func BundleSnapshots(e *engine.Engine) worktree.SnapshotCache {
	g, ok := e.Options().Git.(interface{ GitDir() string })
	if !ok || g.GitDir() == "" {
		return nil
	}
	return snapstore.NewBundle(g.GitDir())
}

// Operations are the rows a native engine serves besides the engine's own
// reads: the writes (engine/drafts), the worktree's reads (engine/worktree)
// and the operations that may ask a model (engine/models).
func Operations() []engine.Operation {
	return append(append(drafts.Operations(), worktree.Operations()...), models.Operations()...)
}

// clock honours KONTEXT_NOW (RFC 3339) for tests and goldens.
func clock() (func() time.Time, error) {
	v := os.Getenv("KONTEXT_NOW")
	if v == "" {
		return time.Now, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, apierr.Invalid("KONTEXT_NOW=%q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", v)
	}
	return func() time.Time { return t }, nil
}

// PinVerify pins command as the verify command of entry id of the
// repository at root in the user's trust file and returns its path.
// Pinning is terminal-only (kontext trust --verify): it is never an API
// operation, so no agent can pin what it then runs; verify.pin only reads
// the pin state.
func PinVerify(root, id, command string, now time.Time) (string, error) {
	return verifyrun.AddPin(root, id, command, now)
}
