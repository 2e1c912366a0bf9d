// Package bundle assembles knowledge bundles (kontext.bundle/v1): the
// knowledge files of a change's head and base, the paths the change
// touches, the history-derived fields of every entry and the drift result,
// in one JSON document. The review console and the edge worker load a
// bundle into the WASM engine, which recomputes everything else from the
// files; history is computed here because the browser has no git.
//
// Bundles are built with the native engine through its dispatcher
// (status, entries.drift, entries.list) and with internal/gogit for trees,
// diffs and the working tree.
package bundle

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/internal/gogit"
	"github.com/kontext/kontext/native"
)

// Schema is the schema id of the bundles this package writes.
const Schema = "kontext.bundle/v1"

// Bundle is a kontext.bundle/v1 document.
type Bundle struct {
	Schema      string     `json:"schema"`
	GeneratedAt string     `json:"generated_at"`
	Repository  Repository `json:"repository"`
	Config      *Config    `json:"config"`
	// Files are the knowledge files and the configuration at head (the
	// working tree without a head revision), by repo-relative path.
	Files map[string]string `json:"files"`
	// BaseFiles are the same at base; nil without a base.
	BaseFiles map[string]string `json:"base_files"`
	// ChangedPaths are the files changed base..head (from their merge
	// base), plus the uncommitted ones in working mode, sorted.
	ChangedPaths []string            `json:"changed_paths"`
	History      map[string]*History `json:"history"`
	Drift        []*api.DriftEntry   `json:"drift"`
}

// Repository describes the change a bundle is about.
type Repository struct {
	Name string `json:"name"` // the repository directory's base name
	// Head is the head commit (HEAD in working mode); nil before the
	// first commit or outside git.
	Head *string `json:"head"`
	// Base is the drift base; nil when none was found (base_source
	// fallback-none) or outside git.
	Base       *string `json:"base"`
	BaseSource string  `json:"base_source"`
	// Dirty is true in working mode when the working tree has uncommitted
	// changes (files then reflect them).
	Dirty bool `json:"dirty"`
}

// Config is the configuration file at head.
type Config struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// History holds the history-derived fields of one entry (README "The application API").
type History struct {
	Verification  *api.Verification `json:"verification"`
	LastVerified  *api.Verification `json:"last_verified"`
	Since         *api.Since        `json:"since"`
	SinceVerified *api.Since        `json:"since_verified"`
	Premises      []api.Premise     `json:"premises"`
	Failing       bool              `json:"failing"`
	AmendedSince  bool              `json:"amended_since"`
}

// Options select what a bundle covers.
type Options struct {
	Dir  string // a directory inside the repository ("" = ".")
	Base string // base revision; "" = the default drift base
	Head string // head revision; "" = HEAD plus the working tree
	// Now stamps generated_at; nil means KONTEXT_NOW or the clock.
	Now func() time.Time
}

// Build assembles the bundle of the change opts select.
func Build(ctx context.Context, opts Options) (*Bundle, error) {
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	now, err := clock(opts.Now)
	if err != nil {
		return nil, err
	}
	eng, err := native.Open(dir)
	if err != nil {
		return nil, err
	}
	res, err := do(ctx, eng, "status", map[string]any{})
	if err != nil {
		return nil, err
	}
	status := res.(*api.StatusResult)
	b := &Bundle{
		Schema: Schema, GeneratedAt: now.UTC().Format(time.RFC3339),
		Repository:   Repository{Name: filepath.Base(status.Root), BaseSource: "fallback-none"},
		ChangedPaths: []string{}, History: map[string]*History{}, Drift: []*api.DriftEntry{},
	}
	repo, err := gogit.Open(status.Root)
	switch {
	case errors.Is(err, gogit.ErrNoRepository):
		repo = nil
	case err != nil:
		return nil, err
	}
	working := opts.Head == ""
	if repo == nil || status.Revision == nil {
		// Outside git or before the first commit: the working tree alone.
		if !working || opts.Base != "" {
			return nil, apierr.Invalid("--base and --head need a git repository with commits")
		}
		if err := b.fromWorkingTree(ctx, eng, status.Root, repo); err != nil {
			return nil, err
		}
		return b, b.history(ctx, eng)
	}

	res, err = do(ctx, eng, "entries.drift", map[string]any{"base": opts.Base, "head": opts.Head})
	if err != nil {
		return nil, err
	}
	drift := res.(*api.DriftResult)
	b.Drift = drift.Entries
	b.Repository.BaseSource = drift.BaseSource
	head := *status.Revision
	if !working {
		head = drift.Head
	}
	b.Repository.Head = &head
	base := ""
	if drift.BaseSource != "fallback-none" && drift.Base != nil {
		base = *drift.Base
		b.Repository.Base = &base
	}

	histEng := eng
	if working {
		if err := b.fromWorkingTree(ctx, eng, status.Root, repo); err != nil {
			return nil, err
		}
	} else {
		if b.Files, b.Config, err = atCommit(ctx, repo, head); err != nil {
			return nil, err
		}
		if histEng, err = eng.AtCommit(ctx, head); err != nil {
			return nil, err
		}
	}
	if base != "" {
		if b.BaseFiles, _, err = atCommit(ctx, repo, base); err != nil {
			return nil, err
		}
	}
	if err := b.changed(ctx, repo, base, head, working); err != nil {
		return nil, err
	}
	return b, b.history(ctx, histEng)
}

// fromWorkingTree fills files, config and (with git) dirty and the
// uncommitted part of changed_paths from the working tree.
func (b *Bundle) fromWorkingTree(ctx context.Context, eng *engine.Engine, root string, repo *gogit.Repo) error {
	k, err := eng.Knowledge(ctx)
	if err != nil {
		return err
	}
	if b.Files, err = readWorkingTree(ctx, root, k); err != nil {
		return err
	}
	if k.Config != "" {
		if text, ok := b.Files[k.Config]; ok {
			b.Config = &Config{Path: k.Config, Text: text}
		}
	}
	if repo == nil {
		return nil
	}
	dirty, err := repo.Uncommitted(ctx)
	if err != nil {
		return err
	}
	b.Repository.Dirty = len(dirty) > 0
	b.ChangedPaths = append(b.ChangedPaths, dirty...)
	return nil
}

// changed adds the committed changes of base..head (from their merge
// base) to changed_paths; uncommitted ones were added in working mode.
func (b *Bundle) changed(ctx context.Context, repo *gogit.Repo, base, head string, working bool) error {
	set := map[string]bool{}
	for _, p := range b.ChangedPaths {
		set[p] = true
	}
	if base != "" {
		from, err := repo.MergeBase(ctx, base, head)
		if err != nil {
			return err
		}
		if from == "" {
			from = base // unrelated histories: compare the trees
		}
		paths, err := repo.Diff(ctx, from, head)
		if err != nil {
			return err
		}
		for _, p := range paths {
			set[p] = true
		}
	}
	b.ChangedPaths = make([]string, 0, len(set))
	for p := range set {
		b.ChangedPaths = append(b.ChangedPaths, p)
	}
	sort.Strings(b.ChangedPaths)
	return nil
}

// history pages through entries.list and keeps each entry's history
// fields.
func (b *Bundle) history(ctx context.Context, eng *engine.Engine) error {
	offset := 0
	for {
		res, err := do(ctx, eng, "entries.list", map[string]any{"limit": 500, "offset": offset})
		if err != nil {
			return err
		}
		l := res.(*api.ListResult)
		for _, e := range l.Entries {
			premises := e.Premises
			if premises == nil {
				premises = []api.Premise{}
			}
			b.History[e.ID] = &History{
				Verification: e.Verification, LastVerified: e.LastVerified, Since: e.Since,
				SinceVerified: e.SinceVerified, Premises: premises, Failing: e.Failing, AmendedSince: e.AmendedSince,
			}
		}
		if l.NextOffset == nil || *l.NextOffset <= offset {
			return nil
		}
		offset = *l.NextOffset
	}
}

// atCommit returns the knowledge files and the configuration committed in
// sha, read with the configuration committed there.
func atCommit(ctx context.Context, repo *gogit.Repo, sha string) (map[string]string, *Config, error) {
	var cfg *Config
	for _, cand := range engine.ConfigCandidates() {
		data, ok, err := repo.FileAt(ctx, sha, cand)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			cfg = &Config{Path: cand, Text: string(data)}
			break
		}
	}
	var k *engine.Knowledge
	var err error
	if cfg == nil {
		k, err = engine.KnowledgeAt("", nil)
	} else {
		k, err = engine.KnowledgeAt(cfg.Path, []byte(cfg.Text))
	}
	if err != nil {
		return nil, nil, err
	}
	tree, err := repo.Tree(ctx, sha, k.Dirs)
	if err != nil {
		return nil, nil, err
	}
	files := map[string]string{}
	for p, f := range tree {
		if k.Contains(p) {
			files[p] = string(f.Data)
		}
	}
	if cfg != nil {
		files[cfg.Path] = cfg.Text
	}
	return files, cfg, nil
}

// skipDirs are never walked (as the engine's reader skips them).
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// readWorkingTree reads the knowledge files of k from the working tree at
// root. Symlinks and other non-regular files are skipped.
func readWorkingTree(ctx context.Context, root string, k *engine.Knowledge) (map[string]string, error) {
	files := map[string]string{}
	add := func(rel string) error {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "reading %s", rel)
		}
		files[rel] = string(data)
		return nil
	}
	if k.Config != "" {
		if fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(k.Config))); err == nil && fi.Mode().IsRegular() {
			if err := add(k.Config); err != nil {
				return nil, err
			}
		}
	}
	for _, d := range k.Dirs {
		start := filepath.Join(root, filepath.FromSlash(d))
		err := filepath.WalkDir(start, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				if p == start && errors.Is(err, fs.ErrNotExist) {
					return fs.SkipDir
				}
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if de.IsDir() {
				if p != start && skipDirs[de.Name()] {
					return fs.SkipDir
				}
				return nil
			}
			if !de.Type().IsRegular() {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if _, done := files[rel]; done || !k.Contains(rel) {
				return nil
			}
			return add(rel)
		})
		if err != nil && !errors.Is(err, fs.SkipDir) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, apierr.Wrap(apierr.OperationFailed, err, "reading %s", d)
		}
	}
	return files, nil
}

// do runs one operation through the engine's dispatcher.
func do(ctx context.Context, eng *engine.Engine, op string, input any) (any, error) {
	data, err := json.Marshal(input)
	if err != nil {
		return nil, err
	}
	return eng.Do(ctx, op, data)
}

// clock is now, else KONTEXT_NOW (RFC 3339), else the system clock.
func clock(now func() time.Time) (time.Time, error) {
	if now != nil {
		return now(), nil
	}
	if v := os.Getenv("KONTEXT_NOW"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return time.Time{}, apierr.Invalid("KONTEXT_NOW=%q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", v)
		}
		return t, nil
	}
	return time.Now(), nil
}

// Marshal encodes b as indented JSON with a final newline. HTML-sensitive
// characters (<, >, &) are escaped as \u003c…, so the document can be
// inlined in a <script> element as it is.
func Marshal(b *Bundle) ([]byte, error) {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// WriteFile writes b to path atomically: a temporary file in the same
// directory, then a rename.
func WriteFile(path string, b *Bundle) (int, error) {
	data, err := Marshal(b)
	if err != nil {
		return 0, err
	}
	return len(data), WriteAtomic(path, data)
}

// WriteAtomic writes data to path through a temporary file in the same
// directory and a rename, so readers never see a partial file.
func WriteAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", path)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", path)
	}
	if err := f.Chmod(0o644); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", path)
	}
	if err := f.Close(); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", path)
	}
	if err := os.Rename(tmp, path); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", path)
	}
	ok = true
	return nil
}
