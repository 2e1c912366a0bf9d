//go:build !js

// entries.suggest_paths reads git history and the checked-out tree: it is
// native only, so the WASM build leaves it (and its package) out; there it
// answers unsupported_operation from the API schema list.

package engine

import (
	"context"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/suggest"
)

// SuggestPathsInput is the input of entries.suggest_paths.
type SuggestPathsInput struct {
	DirInput
	IDs         []string `json:"ids,omitempty" jsonschema:"description=Entries to suggest paths for (id or id prefix or ADR number or file)."`
	All         bool     `json:"all,omitempty" jsonschema:"description=Suggest for every entry without paths."`
	MaxPerEntry *int     `json:"max_per_entry,omitempty" jsonschema:"default=3,minimum=1,maximum=20,description=At most this many globs per entry."`
}

// PathSuggestion is one entry's suggested globs.
type PathSuggestion struct {
	ID    string         `json:"id"`
	Globs []suggest.Glob `json:"globs"`
}

// SuggestPathsResult is the result of entries.suggest_paths.
type SuggestPathsResult struct {
	Suggestions []PathSuggestion `json:"suggestions"`
	Snapshot    string           `json:"snapshot"`
}

func init() {
	register(operation{name: "entries.suggest_paths", input: func() any { return &SuggestPathsInput{} }, run: runSuggestPaths, history: true})
}

// runSuggestPaths proposes globs for entries without paths; it writes
// nothing (the overlay is written only by drafts.set_paths).
func runSuggestPaths(ctx context.Context, e *Engine, v any) (any, error) {
	in := v.(*SuggestPathsInput)
	if len(in.IDs) == 0 && !in.All {
		return nil, apierr.Invalid("pass ids (the entries to suggest paths for) or all: true (every entry without paths)")
	}
	if len(in.IDs) > 0 && in.All {
		return nil, apierr.Invalid("pass ids or all: true, not both")
	}
	max, err := limitOf("max_per_entry", in.MaxPerEntry, 3, 20)
	if err != nil {
		return nil, err
	}
	h, _, err := e.historyFor(nil)
	if err != nil {
		return nil, err
	}
	st, err := e.read(ctx)
	if err != nil {
		return nil, err
	}
	if st.head == "" {
		return nil, apierr.New(apierr.NoCommits, "the repository has no commits yet; suggestions read the history")
	}
	var picked []*entry.Entry
	if in.All {
		for _, en := range st.snap.Entries {
			if len(en.Paths) == 0 {
				picked = append(picked, en)
			}
		}
	} else {
		for _, ref := range in.IDs {
			en, err := st.snap.Lookup(ref)
			if err != nil {
				return nil, jsonin.Errorf("ids", "%v", apierr.As(err).Message)
			}
			picked = append(picked, en)
		}
	}
	res := &SuggestPathsResult{Suggestions: []PathSuggestion{}, Snapshot: st.snap.ID}
	if len(picked) == 0 {
		return res, nil
	}
	log, err := h.Log(ctx, st.head, st.cfg.MaxCommits)
	if err != nil {
		return nil, err
	}
	knowledge := knowledgeFiles(st)
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
		res.Suggestions = append(res.Suggestions, PathSuggestion{ID: en.ID, Globs: globs})
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
	e     *Engine
	known map[string]bool // files changed by the commits read
	dirs  map[string]bool // their directories
	files []string
}

func (t *fsTree) IsFile(p string) bool {
	if !t.known[p] {
		return false
	}
	fi, err := t.e.opts.FS.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

func (t *fsTree) IsDir(p string) bool {
	if !t.dirs[p] {
		return false
	}
	fi, err := t.e.opts.FS.Lstat(p)
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
