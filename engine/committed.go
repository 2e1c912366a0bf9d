package engine

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

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

// commitCache keeps the last few engines atCommit made: a commit's files
// never change, so a call that needs the same commit twice (bundle: drift
// at head, the head's files, their history) reads its tree and parses its
// entries once.
type commitCache struct {
	mu      sync.Mutex
	engines map[string]*Engine
	order   []string
}

// maxCommitEngines bounds the cache of a long-lived engine (MCP).
const maxCommitEngines = 4

// commitFiles are the files an engine atCommit made was loaded with.
type commitFiles struct {
	files      map[string]TreeFile
	configPath string // "" for the defaults
	contains   func(string) bool
}

// CommitFiles returns, for an engine AtCommit made, its knowledge files
// (repo-relative path → text, the configuration included) and the
// configuration's path ("" for the defaults); ok is false for an engine
// over a working tree or a file set.
func (e *Engine) CommitFiles() (files map[string]string, configPath string, ok bool) {
	if e.commit == nil {
		return nil, "", false
	}
	files = map[string]string{}
	for p, f := range e.commit.files {
		if !f.Link && (p == e.commit.configPath || e.commit.contains(p)) {
			files[p] = string(f.Data)
		}
	}
	return files, e.commit.configPath, true
}

// atCommit returns an engine over the knowledge files committed in sha,
// Read with the configuration committed there (or the defaults; local
// configuration never applies). The engine is shared by later calls for
// the same commit.
func (e *Engine) atCommit(ctx context.Context, sha string) (*Engine, error) {
	return e.cachedCommit(ctx, sha, nil)
}

// borrowed is a configuration a commit without one of its own is read
// with: its path and text, and whose it is (for the warning).
type borrowed struct {
	path string
	data []byte
	from string
}

// AtRevision returns an engine over the knowledge files committed in sha,
// read with the configuration committed there; a commit without one is
// read with head's (head, a full sha, is the other end of the question;
// "" when the working tree is), else with the working tree's, else with
// the defaults (spec 04: configuration per revision). warning names sha
// and the configuration it was read with; it is "" when sha has its own
// configuration or none exists anywhere (the defaults, as before).
func (e *Engine) AtRevision(ctx context.Context, sha, head string) (eng *Engine, warning string, err error) {
	lent, err := e.lentConfig(ctx, sha, head)
	if err != nil {
		return nil, "", err
	}
	if eng, err = e.cachedCommit(ctx, sha, lent); err != nil {
		return nil, "", err
	}
	return eng, lent.warning(sha), nil
}

// RevisionWarning is the warning AtRevision gives for sha and head,
// without reading sha's knowledge files: what a report says about a
// revision whose entries it did not need.
func (e *Engine) RevisionWarning(ctx context.Context, sha, head string) (string, error) {
	lent, err := e.lentConfig(ctx, sha, head)
	if err != nil {
		return "", err
	}
	return lent.warning(sha), nil
}

func (b *borrowed) warning(sha string) string {
	if b == nil {
		return ""
	}
	return fmt.Sprintf("%s has no configuration committed: its entries were read with the configuration of %s (%s)", short(sha), b.from, b.path)
}

// lentConfig is the configuration sha is read with when it has none of
// its own: head's, else the working tree's; nil when sha has one or none
// exists.
func (e *Engine) lentConfig(ctx context.Context, sha, head string) (*borrowed, error) {
	h := e.opts.History
	if h == nil {
		return nil, apierr.New(apierr.UnsupportedOperation, "reading a commit needs git history; run it with the native CLI")
	}
	committed := func(sha string) (string, []byte, error) {
		for _, cand := range config.Candidates() {
			data, ok, err := h.FileAt(ctx, sha, cand)
			if err != nil || ok {
				return cand, data, err
			}
		}
		return "", nil, nil
	}
	if p, _, err := committed(sha); err != nil || p != "" {
		return nil, err
	}
	if head != "" && head != sha {
		p, data, err := committed(head)
		if err != nil {
			return nil, err
		}
		if p != "" {
			return &borrowed{path: p, data: data, from: "head " + short(head)}, nil
		}
	}
	if e.commit != nil {
		return nil, nil // an engine over a commit has no working tree
	}
	st, err := e.Read(ctx)
	if err != nil || st.Cfg.Path == "" {
		return nil, err
	}
	return &borrowed{path: st.Cfg.Path, data: st.Snap.ConfigText, from: "the working tree"}, nil
}

// cachedCommit is atCommit, read with cfg when the commit has no
// configuration (nil: its own or the defaults).
func (e *Engine) cachedCommit(ctx context.Context, sha string, cfg *borrowed) (*Engine, error) {
	key := sha
	if cfg != nil {
		key += "\x00" + cfg.path + "\x00" + blobOf(cfg.data)
	}
	e.commits.mu.Lock()
	defer e.commits.mu.Unlock()
	if eng, ok := e.commits.engines[key]; ok {
		return eng, nil
	}
	eng, err := e.loadCommit(ctx, sha, cfg)
	if err != nil {
		return nil, err
	}
	if e.commits.engines == nil {
		e.commits.engines = map[string]*Engine{}
	}
	if len(e.commits.order) == maxCommitEngines {
		delete(e.commits.engines, e.commits.order[0])
		e.commits.order = e.commits.order[1:]
	}
	e.commits.engines[key] = eng
	e.commits.order = append(e.commits.order, key)
	return eng, nil
}

func (e *Engine) loadCommit(ctx context.Context, sha string, lent *borrowed) (*Engine, error) {
	h := e.opts.History
	if h == nil {
		return nil, apierr.New(apierr.UnsupportedOperation, "reading a commit needs git history; run it with the native CLI")
	}
	fs := memfs.New()
	blobs := map[string]string{}
	var cfg *config.Config
	var cfgData []byte
	if lent != nil {
		var err error
		cfgData = lent.data
		if cfg, err = config.Parse(lent.path, lent.data); err != nil {
			return nil, apierr.Wrap(apierr.InvalidInput, err, "the configuration of %s is invalid", lent.from)
		}
	}
	for _, cand := range config.Candidates() {
		if cfg != nil {
			break
		}
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
	}
	if cfg == nil {
		cfg = config.Defaults()
	}
	dirs := []string{path.Dir(cfg.Ledger())}
	for _, s := range cfg.Sources() {
		dirs = append(dirs, s.Dir)
	}
	// Only the knowledge files: a whole-tree source (AGENTS.md, Claude
	// Code's files) reads a few names anywhere, never every blob.
	contains, ledgerDir := knowledgeOf(cfg).Contains, path.Dir(cfg.Ledger())
	want := func(p string) bool { return contains(p) || strings.HasPrefix(p, ledgerDir+"/") }
	files, err := h.Tree(ctx, sha, dirs, want)
	if err != nil {
		return nil, err
	}
	if err := linkTargets(ctx, h, sha, files, want); err != nil {
		return nil, err
	}
	if cfg.Path != "" {
		files[cfg.Path] = TreeFile{Blob: blobOf(cfgData), Data: cfgData}
	}
	for name, f := range files {
		if f.Link {
			// The reader follows it as in the working tree.
			if err := util.RemoveAll(fs, name); err == nil {
				err = fs.Symlink(string(f.Data), name)
			}
			if err != nil {
				return nil, apierr.Wrap(apierr.OperationFailed, err, "loading the link %s of %s", name, short(sha))
			}
			continue
		}
		if err := util.WriteFile(fs, name, f.Data, 0o644); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "loading %s of %s", name, short(sha))
		}
		if lent != nil && name == cfg.Path {
			continue // not committed in sha
		}
		blobs[name] = f.Blob
	}
	eng := New(Options{FS: fs, Git: &committedGit{sha: sha, blobs: blobs}, History: h, Root: e.opts.Root,
		Surface: e.opts.Surface, Now: e.opts.Now})
	eng.commit = &commitFiles{files: files, configPath: cfg.Path, contains: knowledgeOf(cfg).Contains}
	return eng, nil
}

// maxLinkHops bounds how many links deep linkTargets follows (a chain or
// a linked directory holding links); the reader reports loops itself.
const maxLinkHops = 8

// linkTargets adds to files what the links among them point to inside the
// repository, as the working tree's reader would reach it: a file, or
// the files below a directory that want takes at the link's place (and the
// links there, followed in turn). A target outside the repository or
// absolute is left to the reader, which reports it.
func linkTargets(ctx context.Context, h History, sha string, files map[string]TreeFile, want func(string) bool) error {
	done := map[string]bool{}
	for hop := 0; hop < maxLinkHops; hop++ {
		var links []string
		for p, f := range files {
			if f.Link && !done[p] {
				links = append(links, p)
			}
		}
		if len(links) == 0 {
			return nil
		}
		sort.Strings(links)
		for _, p := range links {
			done[p] = true
			target := string(files[p].Data)
			if path.IsAbs(target) {
				continue
			}
			real := path.Join(path.Dir(p), target)
			if real == "." || real == ".." || strings.HasPrefix(real, "../") {
				continue
			}
			if _, ok := files[real]; ok {
				continue
			}
			display := func(q string) bool { return want(p + strings.TrimPrefix(q, real)) }
			got, err := h.Tree(ctx, sha, []string{real}, func(q string) bool { return q == real || display(q) })
			if err != nil {
				return err
			}
			for q, f := range got {
				if _, ok := files[q]; !ok {
					files[q] = f
				}
			}
		}
	}
	return nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
