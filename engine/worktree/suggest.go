package worktree

import (
	"context"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/suggest"
)

// runSuggestPaths proposes globs for entries without paths; it writes
// nothing (the overlay is written only by drafts.set_paths).
func runSuggestPaths(ctx context.Context, e *engine.Engine, in *api.SuggestPathsInput) (*api.SuggestPathsResult, error) {
	if len(in.IDs) == 0 && !in.All {
		return nil, apierr.Invalid("pass ids (the entries to suggest paths for) or all: true (every active entry without paths)")
	}
	if len(in.IDs) > 0 && in.All {
		return nil, apierr.Invalid("pass ids or all: true, not both")
	}
	max := 3
	if in.MaxPerEntry != nil {
		if *in.MaxPerEntry < 1 || *in.MaxPerEntry > 20 {
			return nil, jsonin.Errorf("max_per_entry", "must be between 1 and 20, got %d", *in.MaxPerEntry)
		}
		max = *in.MaxPerEntry
	}
	h := e.Options().History
	if h == nil {
		return nil, apierr.New(apierr.UnsupportedOperation, "entries.suggest_paths reads git history; run it with the native CLI inside a git repository")
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	if st.Head == "" {
		return nil, apierr.New(apierr.NoCommits, "the repository has no commits yet; suggestions read the history")
	}
	var picked []*entry.Entry
	if in.All {
		// Every active entry without paths: an inactive one governs
		// nothing, whatever paths it gets (ask for it by id to see them).
		for _, en := range st.Snap.Entries() {
			if len(en.Paths) == 0 && !entry.Inactive(en.Status) {
				picked = append(picked, en)
			}
		}
	} else {
		for _, ref := range in.IDs {
			en, err := st.Snap.Lookup(ref)
			if err != nil {
				return nil, jsonin.Errorf("ids", "%v", apierr.As(err).Message)
			}
			picked = append(picked, en)
		}
	}
	res := &api.SuggestPathsResult{Suggestions: []api.PathSuggestion{}, Snapshot: st.Snap.ID}
	if len(picked) == 0 {
		return res, nil
	}
	log, err := h.Log(ctx, st.Head, st.Cfg.MaxCommits)
	if err != nil {
		return nil, err
	}
	knowledge := st.KnowledgeFiles()
	exclude := func(p string) bool { return knowledge(p) || isDoc(p) }
	tree := &fsTree{e: e, known: map[string]bool{}, dirs: map[string]bool{}}
	for _, c := range log.Commits {
		for _, p := range c.Paths {
			tree.known[p] = true
			for d := path.Dir(p); d != "."; d = path.Dir(d) {
				tree.dirs[d] = true
			}
		}
	}
	for _, en := range picked {
		var commits []suggest.Commit
		for _, c := range log.Commits {
			if c.Merge || !containsStr(c.Paths, en.File) {
				continue
			}
			commits = append(commits, suggest.Commit{SHA: c.SHA, Files: c.Paths})
		}
		text := en.Title + "\n" + en.Summary + "\n" + en.Body
		globs := suggest.Suggest(suggest.Input{Text: text, Commits: commits, Exclude: exclude, Have: en.Paths}, tree, max)
		res.Suggestions = append(res.Suggestions, api.PathSuggestion{ID: en.ID, Globs: globs})
	}
	return res, nil
}

// isDoc: documentation and repository plumbing (hidden files and
// directories such as .gitignore or .github/, lock files, licences) are
// never suggested governed paths.
func isDoc(p string) bool {
	base := path.Base(p)
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	switch {
	case strings.HasSuffix(base, ".lock"), strings.HasSuffix(base, "-lock.json"), strings.HasSuffix(base, "-lock.yaml"),
		base == "go.sum", strings.HasPrefix(strings.ToUpper(base), "LICENSE"), strings.HasPrefix(strings.ToUpper(base), "COPYING"):
		return true
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".mdx", ".markdown", ".rst", ".adoc", ".txt":
		return true
	}
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg == "doc" || seg == "docs" {
			return true
		}
	}
	return false
}

// fsTree answers existence: a file (or a directory holding one) that
// the history knows and that the checked-out tree still has. Files never
// committed (build output, local notes) are not the repository's.
type fsTree struct {
	e     *engine.Engine
	known map[string]bool // files changed by the commits read
	dirs  map[string]bool // their directories
	files []string
}

func (t *fsTree) IsFile(p string) bool {
	if !t.known[p] {
		return false
	}
	fi, err := t.e.FS().Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

func (t *fsTree) IsDir(p string) bool {
	if !t.dirs[p] {
		return false
	}
	fi, err := t.e.FS().Lstat(p)
	return err == nil && fi.IsDir() && fi.Mode()&os.ModeSymlink == 0
}

func (t *fsTree) Files() []string {
	if t.files == nil {
		for p := range t.known {
			if t.IsFile(p) {
				t.files = append(t.files, p)
			}
		}
		sort.Strings(t.files)
		if t.files == nil {
			t.files = []string{}
		}
	}
	return t.files
}

func containsStr(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
