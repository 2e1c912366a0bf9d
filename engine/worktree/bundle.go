package worktree

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"time"

	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
)

// BundleSchema is the schema id of the bundles bundle.build answers.
const BundleSchema = "kontext.bundle/v1"

// BundleFormatVersion is the bundle's <major>.<minor>: the major is the
// schema's; the minor goes up with every added field (1.1: format_version,
// repository.worktree; private entries left out; 1.2: drift entries'
// last_edited).
const BundleFormatVersion = "1.2"

// runBundle answers bundle.build: the knowledge files of a change's head
// and base, the paths it touches, every entry's history-derived fields and
// the drift result, in one document the WASM engine (review console, edge
// worker) loads; history is computed here because the browser has no git.
func runBundle(ctx context.Context, e *engine.Engine, in *api.BundleInput) (*api.Bundle, error) {
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	b := &api.Bundle{
		Schema: BundleSchema, FormatVersion: BundleFormatVersion, GeneratedAt: e.Now().Format(time.RFC3339),
		Repository:   api.BundleRepository{Name: filepath.Base(e.Options().Root), BaseSource: "fallback-none", Worktree: in.Worktree},
		ChangedPaths: []string{}, History: map[string]*api.BundleHistory{}, Drift: []*api.DriftEntry{},
	}
	if in.Worktree && in.Head != "" {
		return nil, apierr.Invalid("worktree and head exclude each other: a bundle of another revision has no working tree")
	}
	h := e.Options().History
	working := in.Worktree
	if h == nil || st.Head == "" {
		// Outside git or before the first commit: only the working tree
		// exists, and nothing of it is committed.
		if !working || in.Base != "" {
			if h == nil {
				return nil, apierr.Invalid("a bundle of committed knowledge needs a git repository: use worktree (kontext bundle --worktree) for a local review")
			}
			return nil, apierr.New(apierr.NoCommits, "nothing is committed yet: a bundle holds committed knowledge at HEAD; commit it, or use worktree (kontext bundle --worktree) for a local review")
		}
		if err := bundleWorkingTree(ctx, e, b, st); err != nil {
			return nil, err
		}
		if err := bundleHistory(ctx, e, b); err != nil {
			return nil, err
		}
		return b, dropPrivate(ctx, e, nil, b)
	}
	headRev := in.Head
	if headRev == "" && !working {
		headRev = st.Head
	}
	drift, err := e.Drift(ctx, &api.DriftInput{Base: in.Base, Head: headRev})
	if err != nil {
		return nil, err
	}
	b.Drift = drift.Entries
	b.Repository.BaseSource = drift.BaseSource
	head := st.Head
	if !working {
		head = drift.Head
	}
	b.Repository.Head = &head
	base := ""
	if drift.BaseSource != "fallback-none" && drift.Base != nil {
		base = *drift.Base
		b.Repository.Base = &base
	}
	histEng := e
	if working {
		if err := bundleWorkingTree(ctx, e, b, st); err != nil {
			return nil, err
		}
	} else {
		if b.Files, b.Config, err = bundleAt(ctx, h, head); err != nil {
			return nil, err
		}
		if histEng, err = e.AtCommit(ctx, head); err != nil {
			return nil, err
		}
	}
	var baseEng *engine.Engine
	if base != "" {
		if b.BaseFiles, _, err = bundleAt(ctx, h, base); err != nil {
			return nil, err
		}
		if baseEng, err = e.AtCommit(ctx, base); err != nil {
			return nil, err
		}
	}
	if err := bundleChanged(ctx, h, b, base, head); err != nil {
		return nil, err
	}
	if err := bundleHistory(ctx, histEng, b); err != nil {
		return nil, err
	}
	if err := dropPrivate(ctx, histEng, baseEng, b); err != nil {
		return nil, err
	}
	return b, nil
}

// dropPrivate removes private entries (visibility: private) from the
// bundle — their files at head and base, history and drift: private
// knowledge never leaves the machine, whatever the bundle is for.
func dropPrivate(ctx context.Context, head, base *engine.Engine, b *api.Bundle) error {
	private := func(e *engine.Engine) (files, ids map[string]bool, err error) {
		files, ids = map[string]bool{}, map[string]bool{}
		offset, limit := 0, 500
		for {
			l, err := e.List(ctx, &api.ListInput{Limit: &limit, Offset: offset})
			if err != nil {
				return nil, nil, err
			}
			for _, en := range l.Entries {
				if en.Visibility == "private" {
					files[en.File], ids[en.ID] = true, true
				}
			}
			if l.NextOffset == nil || *l.NextOffset <= offset {
				return files, ids, nil
			}
			offset = *l.NextOffset
		}
	}
	files, ids, err := private(head)
	if err != nil {
		return err
	}
	for f := range files {
		delete(b.Files, f)
	}
	for id := range ids {
		delete(b.History, id)
	}
	kept := b.Drift[:0]
	for _, d := range b.Drift {
		if !ids[d.ID] {
			kept = append(kept, d)
		}
	}
	b.Drift = kept
	if base != nil && b.BaseFiles != nil {
		files, _, err := private(base)
		if err != nil {
			return err
		}
		for f := range files {
			delete(b.BaseFiles, f)
		}
	}
	return nil
}

// bundleWorkingTree fills files, config and (with git) dirty and the
// uncommitted part of changed_paths from the working tree.
func bundleWorkingTree(ctx context.Context, e *engine.Engine, b *api.Bundle, st *engine.State) error {
	k := engine.KnowledgeOf(st)
	var err error
	if b.Files, err = readKnowledge(ctx, e, k); err != nil {
		return err
	}
	if k.Config != "" {
		if text, ok := b.Files[k.Config]; ok {
			b.Config = &api.BundleConfig{Path: k.Config, Text: text}
		}
	}
	h := e.Options().History
	if h == nil {
		return nil
	}
	dirty, err := h.Uncommitted(ctx)
	if err != nil {
		return err
	}
	b.Repository.Dirty = len(dirty) > 0
	b.ChangedPaths = append(b.ChangedPaths, dirty...)
	return nil
}

// bundleChanged adds the committed changes of base..head (from their
// merge base) to changed_paths; uncommitted ones were added in working
// mode.
func bundleChanged(ctx context.Context, h engine.History, b *api.Bundle, base, head string) error {
	set := map[string]bool{}
	for _, p := range b.ChangedPaths {
		set[p] = true
	}
	if base != "" {
		from, err := h.MergeBase(ctx, base, head)
		if err != nil {
			return err
		}
		if from == "" {
			from = base // unrelated histories: compare the trees
		}
		paths, err := h.Diff(ctx, from, head)
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

// bundleHistory pages through entries.list and keeps each entry's history
// fields.
func bundleHistory(ctx context.Context, e *engine.Engine, b *api.Bundle) error {
	offset := 0
	limit := 500
	for {
		l, err := e.List(ctx, &api.ListInput{Limit: &limit, Offset: offset})
		if err != nil {
			return err
		}
		for _, en := range l.Entries {
			premises := en.Premises
			if premises == nil {
				premises = []api.Premise{}
			}
			b.History[en.ID] = &api.BundleHistory{
				Verification: en.Verification, LastVerified: en.LastVerified, Since: en.Since,
				SinceVerified: en.SinceVerified, Premises: premises, Failing: en.Failing, AmendedSince: en.AmendedSince,
			}
		}
		if l.NextOffset == nil || *l.NextOffset <= offset {
			return nil
		}
		offset = *l.NextOffset
	}
}

// bundleAt returns the knowledge files and the configuration committed in
// sha, read with the configuration committed there.
func bundleAt(ctx context.Context, h engine.History, sha string) (map[string]string, *api.BundleConfig, error) {
	var cfg *api.BundleConfig
	for _, cand := range engine.ConfigCandidates() {
		data, ok, err := h.FileAt(ctx, sha, cand)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			cfg = &api.BundleConfig{Path: cand, Text: string(data)}
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
	tree, err := h.Tree(ctx, sha, k.Dirs)
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

// bundleSkipDirs are never walked (as the reader skips them).
var bundleSkipDirs = map[string]bool{".git": true, "node_modules": true}

// readKnowledge reads the knowledge files of k from the engine's
// filesystem (the working tree natively). Symlinks and other non-regular
// files are skipped.
func readKnowledge(ctx context.Context, e *engine.Engine, k *engine.Knowledge) (map[string]string, error) {
	fsys := e.FS()
	files := map[string]string{}
	add := func(rel string) error {
		data, err := util.ReadFile(fsys, rel)
		if err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "reading %s", rel)
		}
		files[rel] = string(data)
		return nil
	}
	if k.Config != "" {
		if fi, err := fsys.Lstat(k.Config); err == nil && fi.Mode().IsRegular() {
			if err := add(k.Config); err != nil {
				return nil, err
			}
		}
	}
	for _, d := range k.Dirs {
		start := d
		if start == "" {
			start = "."
		}
		err := util.Walk(fsys, start, func(p string, fi fs.FileInfo, err error) error {
			if err != nil {
				if p == start && errors.Is(err, fs.ErrNotExist) {
					return fs.SkipDir
				}
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if fi.IsDir() {
				if p != start && bundleSkipDirs[fi.Name()] {
					return fs.SkipDir
				}
				return nil
			}
			if !fi.Mode().IsRegular() {
				return nil
			}
			rel := path.Clean(filepath.ToSlash(p))
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
