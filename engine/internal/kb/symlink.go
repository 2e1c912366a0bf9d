package kb

import (
	"errors"
	"os"
	"path"
	"sort"

	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/link"
)

// SetRoots tells the reader the absolute spellings of the repository root,
// so links with absolute targets inside the repository are followed. An
// in-memory filesystem has none: there every absolute target is outside.
func (r *Reader) SetRoots(roots []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.roots = append([]string(nil), roots...)
}

func (r *Reader) resolver() *link.Resolver {
	return &link.Resolver{FS: r.fs, Roots: r.roots}
}

// linkDiag is the warning for a link that is not read.
func linkDiag(err error) (entry.Diagnostic, bool) {
	var le *link.Error
	if !errors.As(err, &le) {
		return entry.Diagnostic{}, false
	}
	return entry.Diagnostic{File: le.Path, Severity: "warning", Code: le.Code, Message: le.Error()}, true
}

// followLink resolves the symlink rel met while listing src. A file link
// whose target stays inside the repository is listed at the link's place
// with the target's content; a directory link is walked (walk is called
// with the link's path and the target dir). A link that cannot be read is
// a diagnostic when it could have been a knowledge file or directory.
func (r *Reader) followLink(rel string, srcp *entry.Source, stack []string, walk func(display, real string, stack []string) error, out *[]job, diags *[]entry.Diagnostic) error {
	src := *srcp
	target, fi, err := r.resolver().Resolve(rel)
	if err != nil {
		if d, ok := linkDiag(err); ok {
			// A link named like a knowledge file is reported; so is one
			// that may be a directory of a source, except in a whole-tree
			// source (AGENTS.md files), where any tool's link would be.
			if entry.IsRecordFile(rel, src) || (src.Dir != "" && path.Ext(path.Base(rel)) == "") {
				*diags = append(*diags, d)
			}
			return nil
		}
		return err
	}
	if fi.IsDir() {
		for _, s := range stack {
			if link.Within(s, target) {
				*diags = append(*diags, entry.Diagnostic{File: rel, Severity: "warning", Code: link.Loop,
					Message: "symlink " + rel + " points to " + displayDir(target) + ", which contains it: a loop; it is not followed"})
				return nil
			}
		}
		return walk(rel, target, stack)
	}
	if fi.Mode().IsRegular() && entry.IsRecordFile(rel, src) {
		*out = append(*out, job{listed{path: rel, info: fi, target: target}, srcp})
	}
	return nil
}

// mergeLinks makes a link and its target found by the same source one
// entry: the first link (by path) in another directory than the target
// is kept, else the target; the other paths become aliases whose
// directory scope an agents-style entry adds to its paths.
func mergeLinks(jobs []job) ([]job, map[string][]string) {
	linked := false
	for _, j := range jobs {
		linked = linked || j.target != ""
	}
	if !linked {
		return jobs, nil // listed paths are distinct: only links can alias
	}
	type key struct{ src, target string }
	first := map[key]int{}
	aliases := map[string][]string{}
	var out []job
	for _, j := range jobs {
		t := j.path
		if j.target != "" {
			t = j.target
		}
		k := key{j.src.Dir + "\x00" + j.src.Kind, t}
		i, dup := first[k]
		if !dup {
			first[k] = len(out)
			out = append(out, j)
			continue
		}
		// Prefer a link as the entry's place when it sits elsewhere: its
		// location decides scope. A link beside its target (CLAUDE.md ->
		// AGENTS.md) scopes the same; the real file stays the entry.
		if out[i].target == "" && j.target != "" && path.Dir(j.path) != path.Dir(out[i].path) {
			aliases[j.path] = append(aliases[j.path], append([]string{out[i].path}, aliases[out[i].path]...)...)
			delete(aliases, out[i].path)
			out[i] = j
			continue
		}
		aliases[out[i].path] = append(aliases[out[i].path], j.path)
	}
	return out, aliases
}

// withAliases lists the alias locations in extra.aliases and adds the
// scope of each to an agents- or claude-style entry (a file governs its own directory); other styles read their
// paths from the content, which the aliases share.
func withAliases(e *entry.Entry, aliases []string, target string) {
	if target != "" {
		e.Extra = cloneExtra(e.Extra)
		e.Extra["link_target"] = target
	}
	if len(aliases) > 0 {
		// The other files that hold the entry, as an import-only file's
		// are (resolveImports adds those).
		e.Extra = cloneExtra(e.Extra)
		files := append([]string{}, aliases...)
		sort.Strings(files)
		list := make([]any, len(files))
		for i, f := range files {
			list[i] = f
		}
		e.Extra["aliases"] = list
	}
	if len(aliases) == 0 || (e.Style != entry.StyleAgents && e.Style != entry.StyleClaude) {
		return
	}
	paths := append([]string{}, e.Paths...)
	for _, a := range aliases {
		scope := "**"
		if d := path.Dir(a); d != "." && d != "" {
			scope = d + "/**"
		}
		if !contains(paths, scope) && !contains(paths, "**") {
			paths = append(paths, scope)
		}
	}
	e.Paths = paths
}

func cloneExtra(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// isLink reports a symlink in a directory listing.
func isLink(fi os.FileInfo) bool { return fi.Mode()&os.ModeSymlink != 0 }

// resolvedDir resolves a source directory that is itself (or lies below) a
// symlink; "" and no problem when it does not exist.
func (r *Reader) resolvedDir(dir string) (string, *entry.Diagnostic, error) {
	if dir == "" {
		return "", nil, nil
	}
	// The common case costs one Lstat: the directory itself is no link.
	// (Links in its parents are resolved by the filesystem below the root.)
	if fi, err := r.fs.Lstat(dir); err != nil || !isLink(fi) {
		return dir, nil, nil
	}
	target, _, err := r.resolver().Resolve(dir)
	if err != nil {
		var le *link.Error
		if errors.As(err, &le) && le.Code == link.Dangling && le.Target == dir {
			return dir, nil, nil // simply absent
		}
		if d, ok := linkDiag(err); ok {
			d.File = dir
			return "", &d, nil
		}
		return "", nil, err
	}
	return target, nil, nil
}
