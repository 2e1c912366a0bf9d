package kb

import (
	"sort"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"
)

// TestInputs: a recording read lists every path it consumed — the
// configuration candidates (found or absent), each directory it listed,
// each entry file, the ledger and the overlay — and only for the
// snapshot it answered; a link kontext reports makes it unusable.
func TestInputs(t *testing.T) {
	fs := memfs.New()
	for n, txt := range map[string]string{
		".kontext.toml":                          adrConfig,
		"docs/adr/0007-use-postgres.md":          "# 7. Use PostgreSQL\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n",
		".ai/decisions/2026-01-10-use-cron.md":   "---\nstatus: accepted\npaths: [\"src/**\"]\n---\n# Use cron\n",
		".ai/decisions/sub/2026-01-11-nested.md": "---\nstatus: accepted\n---\n# Nested\n",
	} {
		if err := util.WriteFile(fs, n, []byte(txt), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(fs)
	s, err := r.Read("")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := r.Inputs(s); ok {
		t.Fatal("a read without Record has inputs")
	}
	r.Record(true)
	if s, err = r.Read(""); err != nil {
		t.Fatal(err)
	}
	in, start, ok := r.Inputs(s)
	if !ok || start.IsZero() {
		t.Fatal("no inputs recorded")
	}
	got := map[string]bool{} // path → present
	for _, x := range in {
		got[x.Path] = x.Info != nil
	}
	want := map[string]bool{
		".kontext.toml": true, // the first candidate found: the others are not read
		".ai/decisions": true, ".ai/decisions/sub": true, "docs/adr": true, ".ai/learnings": false,
		".ai/decisions/2026-01-10-use-cron.md": true, ".ai/decisions/sub/2026-01-11-nested.md": true,
		"docs/adr/0007-use-postgres.md": true,
		".ai/confirmations.log":         false, ".ai/paths.toml": false,
	}
	for p, present := range want {
		if g, seen := got[p]; !seen || g != present {
			var paths []string
			for p := range got {
				paths = append(paths, p)
			}
			sort.Strings(paths)
			t.Fatalf("%s: recorded %v (present %v), want present %v; recorded %v", p, seen, g, present, paths)
		}
	}
	if _, _, ok := r.Inputs(&Snapshot{}); ok {
		t.Fatal("inputs of another snapshot")
	}
	// a link: the link itself and what it resolves to are inputs
	if err := fs.Symlink("sub/2026-01-11-nested.md", ".ai/decisions/link.md"); err != nil {
		t.Fatal(err)
	}
	if s, err = r.Read(""); err != nil {
		t.Fatal(err)
	}
	if in, _, ok = r.Inputs(s); !ok {
		t.Fatal("a listing with a link inside the repository has no usable inputs")
	}
	got = map[string]bool{}
	for _, x := range in {
		got[x.Path] = x.Info != nil
	}
	if !got[".ai/decisions/link.md"] || !got[".ai/decisions/sub/2026-01-11-nested.md"] {
		t.Fatalf("the link or its target is not recorded: %v", got)
	}
	// a link kontext reports (dangling): not usable
	if err := fs.Symlink("missing.md", ".ai/decisions/dangling.md"); err != nil {
		t.Fatal(err)
	}
	if s, err = r.Read(""); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := r.Inputs(s); ok {
		t.Fatal("a listing with a dangling link has usable inputs")
	}
}
