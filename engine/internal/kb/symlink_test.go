package kb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"

	"github.com/kontext/kontext/engine/internal/entry"
)

// TestSymlinksOnDisk builds real links in a temp dir and reads them with
// the OS filesystem the native engine uses.
func TestSymlinksOnDisk(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, rel string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	write(".kontext.toml", "[[kinds.convention.include]]\ndir = \".\"\nstyle = \"agents\"\n\n[[kinds.convention.include]]\ndir = \".cursor/rules\"\nstyle = \"cursor\"\n")
	write(".agents/AGENTS.md", "# Repo rules\n\nBe kind.\n")
	ln(".agents/AGENTS.md", "AGENTS.md")                         // the common layout
	ln("AGENTS.md", "CLAUDE.md")                                 // a chain: CLAUDE.md -> AGENTS.md -> .agents/AGENTS.md
	write("web/AGENTS.md", "# Web rules\n")                      // a real nested file
	ln(filepath.Join(root, "web", "AGENTS.md"), "api/AGENTS.md") // absolute target inside
	os.WriteFile(filepath.Join(outside, "AGENTS.md"), []byte("# Outside\n"), 0o644)
	ln(filepath.Join(outside, "AGENTS.md"), "ext/AGENTS.md")
	ln("missing.md", "gone/AGENTS.md")
	ln("AGENTS.md", "loop/CLAUDE.md")
	os.Remove(filepath.Join(root, "loop", "CLAUDE.md"))
	ln("AGENTS.md", "loop/CLAUDE.md.tmp")
	os.Rename(filepath.Join(root, "loop", "CLAUDE.md.tmp"), filepath.Join(root, "loop", "AGENTS.md"))
	ln("AGENTS.md", "loop/CLAUDE.md") // loop/CLAUDE.md -> loop/AGENTS.md -> loop/AGENTS.md …
	ln("..", "web/up")                // a directory loop
	write("shared/rules/go.mdc", "---\ndescription: Go rules\nglobs: \"**/*.go\"\n---\n")
	ln("../shared/rules", ".cursor/rules")

	r := NewReader(osfs.New(root, osfs.WithBoundOS()))
	r.SetRoots([]string{root})
	s, err := r.Read("")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*entry.Entry{}
	for _, e := range s.Entries() {
		got[e.File] = e
	}
	root1 := got["AGENTS.md"]
	if root1 == nil || root1.Title != "Repo rules" || !eq(root1.Paths, "**") {
		t.Fatalf("root AGENTS.md link: %+v", root1)
	}
	if got["CLAUDE.md"] != nil || got[".agents/AGENTS.md"] != nil {
		t.Errorf("a link and its target are one entry; got %v", keys(got))
	}
	// The link decides the entry's place; its target's own directory is
	// added to the paths (the target was found by the same source).
	if e := got["api/AGENTS.md"]; e == nil || e.Title != "Web rules" || !eq(e.Paths, "api/**", "web/**") || e.Extra["link_target"] != "web/AGENTS.md" {
		t.Errorf("absolute link inside the repo: %+v", e)
	}
	if got["web/AGENTS.md"] != nil {
		t.Errorf("web/AGENTS.md is the target of api/AGENTS.md: one entry")
	}
	if e := got[".cursor/rules/go.mdc"]; e == nil || e.Title != "Go rules" {
		t.Errorf("linked rules dir: %v", keys(got))
	}
	codes := map[string]string{}
	for _, d := range s.Diagnostics {
		codes[d.File] = d.Code
	}
	for file, code := range map[string]string{"ext/AGENTS.md": "symlink_outside", "gone/AGENTS.md": "symlink_dangling", "loop/CLAUDE.md": "symlink_loop", "web/up": "symlink_loop"} {
		if codes[file] != code {
			t.Errorf("%s: code %q, want %q (all: %v)", file, codes[file], code, codes)
		}
	}
	if got["ext/AGENTS.md"] != nil {
		t.Error("a link leaving the repository was read")
	}
	// An unchanged tree with links reuses the snapshot; retargeting a
	// link changes the answer.
	if again, err := r.Read(""); err != nil || again != s {
		t.Errorf("an unchanged tree gave a new snapshot (%v)", err)
	}
	write("docs/AGENTS.md", "# Docs rules\n")
	os.Remove(filepath.Join(root, "api", "AGENTS.md"))
	ln("../docs/AGENTS.md", "api/AGENTS.md")
	s2, err := r.Read("")
	if err != nil {
		t.Fatal(err)
	}
	title := ""
	for _, e := range s2.Entries() {
		if e.File == "api/AGENTS.md" {
			title = e.Title
		}
	}
	if title != "Docs rules" {
		t.Errorf("retargeted link: title %q, want Docs rules", title)
	}
}

func eq(got []string, want ...string) bool { return strings.Join(got, ",") == strings.Join(want, ",") }

func keys(m map[string]*entry.Entry) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
