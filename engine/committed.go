package engine

import (
	"context"
	"path"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/config"
)

// committedGit is the Git of an engine over one commit's files: every file
// is committed, in the index and in HEAD alike.
type committedGit struct {
	sha   string
	blobs map[string]string
}

func (g *committedGit) Head(context.Context) (string, error) { return g.sha, nil }

func (g *committedGit) Blobs(_ context.Context, paths []string) (map[string]string, map[string]string, error) {
	out := map[string]string{}
	for _, p := range paths {
		if b, ok := g.blobs[p]; ok {
			out[p] = b
		}
	}
	return out, out, nil
}

// atCommit returns an engine over the knowledge files committed in sha,
// Read with the configuration committed there (or the defaults; local
// configuration never applies).
func (e *Engine) atCommit(ctx context.Context, sha string) (*Engine, error) {
	h := e.opts.History
	if h == nil {
		return nil, apierr.New(apierr.UnsupportedOperation, "reading a commit needs git history; run it with the native CLI")
	}
	fs := memfs.New()
	blobs := map[string]string{}
	var cfg *config.Config
	var cfgData []byte
	for _, cand := range config.Candidates() {
		data, ok, err := h.FileAt(ctx, sha, cand)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		cfgData = data
		if cfg, err = config.Parse(cand, data); err != nil {
			return nil, apierr.Wrap(apierr.InvalidInput, err, "the configuration committed in %s is invalid", short(sha))
		}
		break
	}
	if cfg == nil {
		cfg = config.Defaults()
	}
	dirs := []string{path.Dir(cfg.Ledger())}
	for _, s := range cfg.Sources() {
		dirs = append(dirs, s.Dir)
	}
	files, err := h.Tree(ctx, sha, dirs)
	if err != nil {
		return nil, err
	}
	if cfg.Path != "" {
		files[cfg.Path] = TreeFile{Blob: blobOf(cfgData), Data: cfgData}
	}
	for name, f := range files {
		if err := util.WriteFile(fs, name, f.Data, 0o644); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "loading %s of %s", name, short(sha))
		}
		blobs[name] = f.Blob
	}
	return New(Options{FS: fs, Git: &committedGit{sha: sha, blobs: blobs}, History: h, Root: e.opts.Root,
		Surface: e.opts.Surface, Now: e.opts.Now}), nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
