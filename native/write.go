package native

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/native/internal/gogit"
	"github.com/kontext/kontext/native/internal/writer"
)

// localWriter is the engine.Writer of a worktree on disk: the shared write
// lock, atomic writes, staging that keeps every other index entry, and
// local state below <git-dir>/kontext/.
type localWriter struct {
	*writer.Writer
	repo   *gogit.Repo
	gitDir string
}

var _ engine.Writer = (*localWriter)(nil)

func newLocalWriter(repo *gogit.Repo) *localWriter {
	return &localWriter{Writer: writer.New(repo.Root(), repo.GitDir()), repo: repo, gitDir: repo.GitDir()}
}

func (w *localWriter) Lock(ctx context.Context) (func(), error) { return w.Writer.Lock(ctx) }

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

// Identity is `application:<name>` under KONTEXT_APPLICATION, else git's
// user.name; "unknown" when unset or when it looks like an e-mail address
// (the ledger never holds one).
func (w *localWriter) Identity() string {
	if app := strings.TrimSpace(os.Getenv("KONTEXT_APPLICATION")); app != "" {
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
