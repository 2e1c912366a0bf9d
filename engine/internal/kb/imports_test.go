package kb

import (
	"reflect"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/internal/entry"
)

// TestImports reads @path imports across files: aliases (a chain of them,
// and a cycle, which leaves both files entries), targets resolved to ids
// or kept as files, and what imported entries import, up to five hops.
func TestImports(t *testing.T) {
	fs := memfs.New()
	for name, text := range map[string]string{
		".kontext.toml":     "[[kinds.convention.include]]\ndir = \".\"\nstyle = \"agents\"\n",
		"AGENTS.md":         "# Root\n\nSee @docs/a/AGENTS.md.\n",
		"CLAUDE.md":         "<!-- sync -->\n@AGENTS.md\n",
		".claude/CLAUDE.md": "@../CLAUDE.md\n", // an alias of an alias
		"x/CLAUDE.md":       "@y/CLAUDE.md\n",  // a cycle of aliases: both stay entries
		"x/y/CLAUDE.md":     "@../CLAUDE.md\n",
		"r/CLAUDE.md":       "@README.md\n", // no entry: stays an entry
		"docs/a/AGENTS.md":  "A @../b/AGENTS.md\n",
		"docs/b/AGENTS.md":  "B @../c/AGENTS.md\n",
		"docs/c/AGENTS.md":  "C @../d/AGENTS.md\n",
		"docs/d/AGENTS.md":  "D @../e/AGENTS.md\n",
		"docs/e/AGENTS.md":  "E @../f/AGENTS.md @../../AGENTS.md\n",
		"docs/f/AGENTS.md":  "F @../g/AGENTS.md\n",
		"docs/g/AGENTS.md":  "G\n",
	} {
		if err := util.WriteFile(fs, name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := NewReader(fs).Read("")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]*entry.Entry{}
	for _, e := range s.Entries() {
		ids[e.ID] = e
	}
	for _, gone := range []string{"CLAUDE", ".claude/CLAUDE"} {
		if ids[gone] != nil {
			t.Errorf("%s is an alias, not an entry", gone)
		}
	}
	for _, kept := range []string{"x/CLAUDE", "x/y/CLAUDE", "r/CLAUDE"} {
		if ids[kept] == nil {
			t.Errorf("%s should stay an entry", kept)
		}
	}
	root := ids["AGENTS"]
	if root == nil || !reflect.DeepEqual(root.Extra["aliases"], []any{".claude/CLAUDE.md", "CLAUDE.md"}) {
		t.Fatalf("root AGENTS: %+v", root)
	}
	if e, err := s.Lookup(".claude/CLAUDE.md"); err != nil || e.ID != "AGENTS" {
		t.Errorf("lookup of an alias file: %v %v", e, err)
	}
	if got := ids["r/CLAUDE"].Links; !reflect.DeepEqual(got, []entry.TypedLink{{Type: "imports", Target: "r/README.md", Text: "@README.md"}}) {
		t.Errorf("r/CLAUDE links %+v", got)
	}
	var targets []string
	for _, l := range root.Links {
		targets = append(targets, l.Target)
	}
	// Five hops from the root: a … e; f is the sixth, and e's import of
	// the root itself is no link of the root's.
	if want := []string{"docs/a/AGENTS", "docs/b/AGENTS", "docs/c/AGENTS", "docs/d/AGENTS", "docs/e/AGENTS"}; !reflect.DeepEqual(targets, want) {
		t.Errorf("root imports %q, want %q", targets, want)
	}
	// From e the cycle through the root comes back to e and stops there.
	targets = nil
	for _, l := range ids["docs/e/AGENTS"].Links {
		targets = append(targets, l.Target)
	}
	if want := []string{"docs/f/AGENTS", "AGENTS", "docs/g/AGENTS", "docs/a/AGENTS", "docs/b/AGENTS", "docs/c/AGENTS", "docs/d/AGENTS"}; !reflect.DeepEqual(targets, want) {
		t.Errorf("docs/e imports %q, want %q", targets, want)
	}
}
