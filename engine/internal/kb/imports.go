package kb

import (
	"sort"

	"github.com/kontext/kontext/engine/internal/entry"
)

// maxImportDepth is how many hops of @path imports are followed, as in
// Claude Code.
const maxImportDepth = 5

// importing reports whether e's links are @path imports (the agents and
// claude styles, whose only links they are).
func importing(e *entry.Entry) bool {
	return len(e.Links) > 0 && (e.Style == entry.StyleClaude || e.Style == entry.StyleAgents)
}

// resolveImports settles the @path imports of a read (spec 10): a file
// whose body is only imports and whose first import is an entry is an
// alias of that entry — not an entry of its own, its file listed in the
// target's extra.aliases (and, for a rule file, its scope added to the
// target's paths); every import's target becomes the id of the entry it
// names (the file's path when it names no entry), and an entry's links
// list the imports it loads through the entries it imports too, up to
// maxImportDepth hops, each once, cycles stopped. Entries are clones;
// their Extra maps are the parse cache's and are copied before a change.
func resolveImports(s *Snapshot) {
	found := false
	for _, e := range s.entries {
		found = found || importing(e)
	}
	if !found {
		return
	}
	byFile := make(map[string]*entry.Entry, len(s.entries))
	for _, e := range s.entries {
		byFile[e.File] = e
	}
	for _, e := range s.entries { // a symlinked file answers for its target's path too
		if t, ok := e.Extra["link_target"].(string); ok && byFile[t] == nil {
			byFile[t] = e
		}
	}
	aliasOf := map[*entry.Entry]*entry.Entry{}
	for _, e := range s.entries {
		// A private file (CLAUDE.local.md) stays a private entry: its name
		// must not reach a team entry's aliases.
		if importing(e) && e.Visibility != "private" && entry.ImportsOnly(e) {
			if t := byFile[e.Links[0].Target]; t != nil && t != e {
				aliasOf[e] = t
			}
		}
	}
	// An alias of an alias names the entry at the end of the chain; a
	// chain longer than maxImportDepth or a cycle leaves its files entries.
	final := func(e *entry.Entry) *entry.Entry {
		t, seen := aliasOf[e], map[*entry.Entry]bool{e: true}
		for depth := 1; ; depth++ {
			next, ok := aliasOf[t]
			if !ok {
				return t
			}
			if seen[t] || depth >= maxImportDepth {
				return nil
			}
			seen[t], t = true, next
		}
	}
	removed := map[*entry.Entry]*entry.Entry{}
	for _, e := range s.entries {
		if _, ok := aliasOf[e]; ok {
			if t := final(e); t != nil {
				removed[e] = t
			}
		}
	}
	if len(removed) > 0 {
		kept := s.entries[:0:0]
		for _, e := range s.entries {
			t, ok := removed[e]
			if !ok {
				kept = append(kept, e)
				continue
			}
			addAlias(t, e)
			if s.byID != nil && s.byID[e.ID] == e {
				delete(s.byID, e.ID)
			}
		}
		s.entries = kept
	}
	idOf := func(file string) string {
		t := byFile[file]
		if t == nil {
			return file
		}
		if r, ok := removed[t]; ok {
			t = r
		}
		return t.ID
	}
	direct := map[string][]entry.TypedLink{}
	for _, e := range s.entries {
		if !importing(e) {
			continue
		}
		links := make([]entry.TypedLink, 0, len(e.Links))
		for _, l := range e.Links {
			l.Target = idOf(l.Target)
			if l.Target != e.ID && !hasTarget(links, l.Target) {
				links = append(links, l)
			}
		}
		e.Links = links
		direct[e.ID] = links
	}
	// What an entry loads through the entries it imports.
	for _, e := range s.entries {
		if len(direct[e.ID]) == 0 {
			continue
		}
		type hop struct {
			id    string
			depth int
		}
		var queue []hop
		for _, l := range direct[e.ID] {
			queue = append(queue, hop{l.Target, 1})
		}
		for len(queue) > 0 {
			h := queue[0]
			queue = queue[1:]
			if h.depth >= maxImportDepth {
				continue
			}
			for _, l := range direct[h.id] {
				if l.Target == e.ID || hasTarget(e.Links, l.Target) {
					continue
				}
				e.Links = append(e.Links, l)
				queue = append(queue, hop{l.Target, h.depth + 1})
			}
		}
	}
}

// addAlias records alias as a file of t: extra.aliases, and the alias's
// scope in t's paths when both are rule files that govern where they sit.
func addAlias(t, alias *entry.Entry) {
	t.Extra = cloneExtra(t.Extra)
	var files []string
	if prev, ok := t.Extra["aliases"].([]any); ok {
		for _, f := range prev {
			if s, ok := f.(string); ok {
				files = append(files, s)
			}
		}
	}
	files = append(files, alias.File)
	sort.Strings(files)
	list := make([]any, len(files))
	for i, f := range files {
		list[i] = f
	}
	t.Extra["aliases"] = list
	if t.Style != entry.StyleAgents && t.Style != entry.StyleClaude {
		return
	}
	paths := append([]string{}, t.Paths...)
	for _, p := range alias.Paths {
		if !contains(paths, p) && !contains(paths, "**") {
			paths = append(paths, p)
		}
	}
	t.Paths = paths
}

func hasTarget(links []entry.TypedLink, target string) bool {
	for _, l := range links {
		if l.Target == target {
			return true
		}
	}
	return false
}
