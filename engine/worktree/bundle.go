package worktree

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
)

// BundleSchema is the schema id of the bundles bundle.build answers.
const BundleSchema = "kontext.bundle/v1"

// BundleFormatVersion is the bundle's <major>.<minor>: the major is the
// schema's; the minor goes up with every added field (1.1: format_version,
// repository.worktree; private entries left out; 1.2: snapshot, drift
// entries' last_edited; 1.3: warnings, base_files at the merge base).
const BundleFormatVersion = "1.3"

// runBundle answers bundle.build: the knowledge files of a change's head
// and base, the paths it touches, every entry's history-derived fields and
// the drift result, in one document the WASM engine (review console, edge
// worker) loads; history is computed here because the browser has no git.
func runBundle(ctx context.Context, e *engine.Engine, in *api.BundleInput) (*api.Bundle, error) {
	// One listing of the working tree for every read below (the history
	// and private-entry passes page through all entries).
	ctx, err := e.Pin(ctx)
	if err != nil {
		return nil, err
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	b := &api.Bundle{
		Schema: BundleSchema, FormatVersion: BundleFormatVersion, GeneratedAt: e.Now().Format(time.RFC3339),
		Repository:   api.BundleRepository{Name: filepath.Base(e.Options().Root), BaseSource: "fallback-none", Worktree: in.Worktree},
		ChangedPaths: []string{}, History: map[string]*api.BundleHistory{}, Drift: []*api.DriftEntry{},
		Warnings: []string{},
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
		if err := dropPrivate(ctx, e, nil, b); err != nil {
			return nil, err
		}
		linkedOut(e, st, b)
		return b, compileBundle(ctx, b, e)
	}
	headRev := in.Head
	if headRev == "" && !working {
		headRev = st.Head
	}
	// In working mode the working tree's files are read while the drift
	// and the history are computed (two CPUs: one in system calls, one in
	// the commit index). The reading goroutine touches the filesystem
	// only; git is asked from this one. The uncommitted listing is
	// memoised: one operation sees one working tree.
	ctx = engine.WithUncommittedMemo(ctx)
	var read chan error
	if working {
		read = make(chan error, 1)
		// ctx is passed, not captured: this function pins ctx again below.
		go func(ctx context.Context) { read <- workingFiles(ctx, e, b, st) }(ctx)
		defer func() {
			if read != nil {
				<-read // an early return still waits for the reader
			}
		}()
	}
	drift, err := e.Drift(ctx, &api.DriftInput{Base: in.Base, Head: headRev, Broad: in.Broad})
	if err != nil {
		return nil, err
	}
	b.Drift = drift.Entries
	b.Warnings = append(b.Warnings, drift.Warnings...)
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
	if !working {
		// The engine drift read the head with (a head without a
		// configuration with the working tree's): its tree is read once.
		if histEng, _, err = e.AtRevision(ctx, head, head); err != nil {
			return nil, err
		}
		if ctx, err = histEng.Pin(ctx); err != nil {
			return nil, err
		}
		b.Files, b.Config = committedFiles(histEng)
	}
	var baseEng *engine.Engine
	if base != "" {
		// The base side of the change is its merge base with head, as
		// for changed_paths and the pull-request comment, read with
		// head's configuration when it has none (spec 04).
		from, err := h.MergeBase(ctx, base, head)
		if err != nil {
			return nil, err
		}
		if from == "" {
			from = base // unrelated histories: compare the trees
		}
		lendFrom := head
		if working {
			lendFrom = "" // the head is the working tree
		}
		var warning string
		if baseEng, warning, err = e.AtRevision(ctx, from, lendFrom); err != nil {
			return nil, err
		}
		if warning != "" && !slices.Contains(b.Warnings, warning) {
			b.Warnings = append(b.Warnings, warning)
		}
		if ctx, err = baseEng.Pin(ctx); err != nil {
			return nil, err
		}
		b.BaseFiles, _ = committedFiles(baseEng)
	}
	if err := bundleHistory(ctx, histEng, b); err != nil {
		return nil, err
	}
	if working {
		err := <-read
		read = nil
		if err != nil {
			return nil, err
		}
		if err := workingChanges(ctx, e, b); err != nil {
			return nil, err
		}
	}
	if err := clientSettings(ctx, e, b, head, working); err != nil {
		return nil, err
	}
	if err := bundleChanged(ctx, h, b, base, head); err != nil {
		return nil, err
	}
	if err := dropPrivate(ctx, histEng, baseEng, b); err != nil {
		return nil, err
	}
	linkedOut(e, st, b)
	return b, compileBundle(ctx, b, histEng)
}

// compileBundle stores the compiled snapshot of the bundle's head files,
// built from exactly the files (and revision) a reader opens: its files
// plus the configuration, after private entries were dropped. seed read
// the same files (the working tree or the head commit): its parses are
// reused where the content matches.
func compileBundle(ctx context.Context, b *api.Bundle, seed *engine.Engine) error {
	files := make(map[string]string, len(b.Files)+1)
	for p, text := range b.Files {
		files[p] = text
	}
	if b.Config != nil {
		if _, ok := files[b.Config.Path]; !ok {
			files[b.Config.Path] = b.Config.Text
		}
	}
	rev := ""
	if b.Repository.Head != nil {
		rev = *b.Repository.Head
	}
	cache, _ := ctx.Value(snapshotCacheKey{}).(SnapshotCache)
	key := ""
	if cache != nil {
		key = snapshotKey(files, rev)
		if snap, ok := cache.Load(key); ok {
			b.Snapshot = snap
			return nil
		}
	}
	snap, err := engine.CompileSnapshot(ctx, files, rev, seed)
	if err != nil {
		return err
	}
	b.Snapshot = base64.StdEncoding.EncodeToString(snap)
	if cache != nil {
		cache.Save(key, b.Snapshot)
	}
	return nil
}

// SnapshotCache keeps compiled bundle snapshots (base64, as the bundle
// holds them) between processes, under a key naming exactly what was
// compiled: the same files and revision compile to the same bytes, so a
// bundle of an unchanged knowledge base need not compile them again. The
// cache must also tell apart the programs that compiled (the native one
// keeps a file per binary).
type SnapshotCache interface {
	Load(key string) (snapshot string, ok bool)
	Save(key, snapshot string)
}

type snapshotCacheKey struct{}

// WithSnapshotCache returns a context under which bundle.build reuses and
// stores its compiled snapshot in c.
func WithSnapshotCache(ctx context.Context, c SnapshotCache) context.Context {
	return context.WithValue(ctx, snapshotCacheKey{}, c)
}

// snapshotKey digests the revision and every (path, content) pair, in
// path order, each length-prefixed so no two file sets share a digest.
func snapshotKey(files map[string]string, rev string) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	var n [8]byte
	put := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write(unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	put(rev)
	for _, p := range paths {
		put(p)
		put(files[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// dropPrivate removes private entries (visibility: private) from the
// bundle — their files at head and base, history and drift: private
// knowledge never leaves the machine, whatever the bundle is for.
func dropPrivate(ctx context.Context, head, base *engine.Engine, b *api.Bundle) error {
	// Visibility is the entry's own field (entries.list shows it as is).
	private := func(e *engine.Engine) (files, ids map[string]bool, err error) {
		st, err := e.Read(ctx)
		if err != nil {
			return nil, nil, err
		}
		files, ids = map[string]bool{}, map[string]bool{}
		for _, en := range st.Snap.Entries() {
			if en.Visibility == "private" {
				files[en.File], ids[en.ID] = true, true
			}
		}
		return files, ids, nil
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
	if err := workingFiles(ctx, e, b, st); err != nil {
		return err
	}
	return workingChanges(ctx, e, b)
}

// workingFiles fills files and config from the working tree (the
// filesystem only: it runs beside git requests).
func workingFiles(ctx context.Context, e *engine.Engine, b *api.Bundle, st *engine.State) error {
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
	return nil
}

// workingChanges sets dirty and adds the uncommitted paths to
// changed_paths (with git).
func workingChanges(ctx context.Context, e *engine.Engine, b *api.Bundle) error {
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

// bundleHistory keeps each entry's history fields: the entries'
// views (as entries.list shows them), rendered in one pass over the
// (pinned) state rather than page by page, so git is asked for the
// publication and the commit index is consulted once.
func bundleHistory(ctx context.Context, e *engine.Engine, b *api.Bundle) error {
	st, err := e.Read(ctx)
	if err != nil {
		return err
	}
	views, err := e.Views(ctx, st, st.Snap.Entries())
	if err != nil {
		return err
	}
	for _, en := range views {
		premises := en.Premises
		if premises == nil {
			premises = []api.Premise{}
		}
		b.History[en.ID] = &api.BundleHistory{
			Verification: en.Verification, LastVerified: en.LastVerified, Since: en.Since,
			SinceVerified: en.SinceVerified, Premises: premises, Failing: en.Failing, AmendedSince: en.AmendedSince,
		}
	}
	return nil
}

// committedFiles returns the knowledge files and the configuration of an
// engine AtCommit made (read with the configuration committed there).
func committedFiles(e *engine.Engine) (map[string]string, *api.BundleConfig) {
	files, cfgPath, _ := e.CommitFiles()
	var cfg *api.BundleConfig
	if cfgPath != "" {
		cfg = &api.BundleConfig{Path: cfgPath, Text: files[cfgPath]}
	}
	return files, cfg
}

// bundleSkipDirs are never walked (as the reader skips them).
var bundleSkipDirs = map[string]bool{".git": true, "node_modules": true}

// dirReader is a filesystem that lists a directory with the entries'
// types as recorded in it (no stat each) and reads the files of one
// directory relative to the open directory (the native working tree): one
// path resolution per directory instead of one per file.
type dirReader interface {
	ReadDirTypes(dir string) ([]fs.DirEntry, error)
	ReadFiles(dir string, names []string) ([][]byte, error)
}

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
	// Walked with directory listings, whose entries carry their type (a
	// link is not followed, as before): natively no stat per file at all,
	// elsewhere the listing's lstat data and one read per file.
	dr, _ := fsys.(dirReader)
	var walk func(dir string) error
	walk = func(dir string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		var infos []fs.DirEntry
		if dr != nil {
			infos, err = dr.ReadDirTypes(dir)
		} else {
			var fis []fs.FileInfo
			fis, err = fsys.ReadDir(dir)
			for _, fi := range fis {
				infos = append(infos, fs.FileInfoToDirEntry(fi))
			}
		}
		if err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "reading %s", dir)
		}
		var names, rels []string
		for _, fi := range infos {
			rel := path.Join(dir, fi.Name())
			if dir == "." {
				rel = fi.Name()
			}
			switch {
			case fi.IsDir():
				if !bundleSkipDirs[fi.Name()] {
					if err := walk(rel); err != nil {
						return err
					}
				}
			case fi.Type().IsRegular():
				if _, done := files[rel]; !done && k.Contains(rel) {
					names, rels = append(names, fi.Name()), append(rels, rel)
				}
			}
		}
		if dr != nil && len(names) > 0 {
			data, err := dr.ReadFiles(dir, names)
			if err != nil {
				return apierr.Wrap(apierr.OperationFailed, err, "reading %s", dir)
			}
			for i, rel := range rels {
				// The bytes are this map's alone: no copy into a string.
				files[rel] = unsafe.String(unsafe.SliceData(data[i]), len(data[i]))
			}
			return nil
		}
		for _, rel := range rels {
			if err := add(rel); err != nil {
				return err
			}
		}
		return nil
	}
	for _, d := range k.Dirs {
		start := d
		if start == "" {
			start = "."
		}
		fi, err := fsys.Lstat(start)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, apierr.Wrap(apierr.OperationFailed, err, "reading %s", d)
		case fi.IsDir():
			if err := walk(start); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return nil, err
			}
		case fi.Mode().IsRegular():
			rel := path.Clean(start)
			if _, done := files[rel]; !done && k.Contains(rel) {
				if err := add(rel); err != nil {
					return nil, err
				}
			}
		}
	}
	return files, nil
}

// clientSettings adds the committed (working: the working tree's) Gemini
// CLI settings to the bundle's files: they name the context files Gemini
// loads, and the WASM engine answers entries.governing with a client from
// the bundle alone.
func clientSettings(ctx context.Context, e *engine.Engine, b *api.Bundle, head string, working bool) error {
	name := engine.GeminiSettings
	var data []byte
	if working {
		f, err := e.FS().Open(name)
		if err != nil {
			return nil // absent
		}
		defer f.Close()
		if data, err = io.ReadAll(io.LimitReader(f, 1<<20)); err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "reading %s", name)
		}
	} else if h := e.Options().History; h != nil && head != "" {
		d, ok, err := h.FileAt(ctx, head, name)
		if err != nil || !ok {
			return err
		}
		data = d
	}
	if data != nil {
		if b.Files == nil {
			b.Files = map[string]string{}
		}
		b.Files[name] = string(data)
	}
	return nil
}

// linkedOut warns when entries of the working tree are not in the
// bundle's files because a symbolic link reaches them (a linked directory
// of rules, a link in another directory than its target): a bundle
// carries regular files only, so every reader of it (the console, the
// WASM engine, the edge worker) answers without them. Private entries are
// left out on purpose; an entry not committed yet is no link's.
func linkedOut(e *engine.Engine, st *engine.State, b *api.Bundle) {
	fsys := e.FS()
	var out []string
	for _, en := range st.Snap.Entries() {
		if _, ok := b.Files[en.File]; ok || en.Visibility == "private" {
			continue
		}
		for p := en.File; p != "." && p != "/" && p != ""; p = path.Dir(p) {
			if fi, err := fsys.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				out = append(out, en.File)
				break
			}
		}
	}
	if len(out) == 0 {
		return
	}
	sort.Strings(out)
	shown := out[:min(len(out), 3)]
	more := ""
	if len(out) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(out)-len(shown))
	}
	b.Warnings = append(b.Warnings, fmt.Sprintf("%d entries are reached through symbolic links (%s%s), which a bundle does not carry: its readers (the review console, the WASM engine, the edge worker) answer without them; replace the links with the files to publish them", len(out), strings.Join(shown, ", "), more))
}
