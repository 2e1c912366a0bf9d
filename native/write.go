package native

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/native/internal/gitrepo"
	"github.com/kontext/kontext/native/internal/writer"
)

// localWriter is the engine.Writer of a worktree on disk: the shared write
// lock, atomic writes, staging that keeps every other index entry, and
// local state below <git-dir>/kontext/.
type localWriter struct {
	*writer.Writer
	repo   *gitrepo.Repo
	gitDir string
	person bool   // the human CLI: by is git's user.name
	app    string // the application's name when KONTEXT_APPLICATION is unset
}

var _ engine.Writer = (*localWriter)(nil)

func newLocalWriter(repo *gitrepo.Repo, o Options) *localWriter {
	return &localWriter{Writer: writer.New(repo.Root(), repo.GitDir()), repo: repo, gitDir: repo.GitDir(), person: o.Person, app: o.Application}
}

var _ engine.IndexWriter = (*localWriter)(nil)

func (w *localWriter) Lock(ctx context.Context) (func(), error) { return w.Writer.Lock(ctx) }

// IndexFile returns the content rel has in the git index.
func (w *localWriter) IndexFile(ctx context.Context, rel string) ([]byte, bool, error) {
	return w.repo.IndexFile(ctx, rel)
}

func (w *localWriter) statePath(name string) string {
	return filepath.Join(w.gitDir, "kontext", filepath.FromSlash(name))
}

// ReadState reads a local state file.
func (w *localWriter) ReadState(name string) ([]byte, bool, error) {
	data, err := os.ReadFile(w.statePath(name))
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	return data, err == nil, err
}

// WriteState writes a local state file atomically.
func (w *localWriter) WriteState(name string, data []byte) error {
	p := w.statePath(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	writer.RemoveStaleTemps(p) // state is written under the write lock
	return writer.AtomicWrite(p, data, 0o644)
}

// Identity is the `by` of ledger lines. A person at the human CLI is git's user.name
// ("unknown" when unset or when it looks like an e-mail address: the ledger never holds
// one). Everything else is an application, so that a look written by a program is never
// taken for a terminal read: `application:<name>`, the name from KONTEXT_APPLICATION, else
// the surface's (Options.Application: "mcp" for the MCP server), else "api".
func (w *localWriter) Identity() string {
	if !w.person {
		app := strings.TrimSpace(os.Getenv("KONTEXT_APPLICATION"))
		if app == "" || strings.Contains(app, "@") || strings.ContainsFunc(app, unicode.IsControl) {
			app = w.app
		}
		if app == "" {
			app = "api"
		}
		return "application:" + app
	}
	name := strings.TrimSpace(w.repo.UserName())
	if name == "" || strings.Contains(name, "@") {
		return "unknown"
	}
	return name
}

// ListState lists the names of the state files below dir, sorted.
func (w *localWriter) ListState(dir string) ([]string, error) {
	entries, err := os.ReadDir(w.statePath(dir))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".tmp-") {
			out = append(out, dir+"/"+e.Name())
		}
	}
	return out, nil
}
