package report_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/internal/bundle"
	"github.com/kontext/kontext/internal/report"
	"github.com/kontext/kontext/internal/testrepo"
)

// nygard is an ADR numbered n.
func nygard(n int, title string) string {
	return fmt.Sprintf("# %d. %s\n\nDate: 2026-01-0%d\n\n## Status\n\nAccepted\n\n## Context\n\nc\n\n## Decision\n\n%s.\n\n## Consequences\n\ne\n", n, title, n, title)
}

// filesEngine opens a file set as the review console's WASM engine does.
func filesEngine(t *testing.T, files map[string]string) *engine.Engine {
	t.Helper()
	fs := memfs.New()
	for p, text := range files {
		if err := util.WriteFile(fs, p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return engine.New(engine.Options{FS: fs, Surface: engine.Snapshot})
}

// TestCommentAndConsoleAgree: on a change whose base has no configuration
// (the adoption commit is in it) and which adds an ADR committed and one
// not, the pull-request comment and the review console (the bundle `kontext
// review` serves, compared as the console compares it) name the same
// entries, count them alike and carry the same warning. Before, the
// console read the base with the head's configuration but without the
// base's ADR files (every ADR "added"), and the comment compared commits
// only (the uncommitted ADR never named).
func TestCommentAndConsoleAgree(t *testing.T) {
	testrepo.Env(t)
	dir := t.TempDir()
	git := func(args ...string) string { return testrepo.Git(t, dir, args...) }
	git("init", "-q", "-b", "main")
	testrepo.Write(t, dir, map[string]string{
		"docs/adr/0001-record-decisions.md": nygard(1, "Record decisions"),
		"docs/adr/0002-use-go.md":           nygard(2, "Use Go"),
		"docs/adr/0003-use-make.md":         nygard(3, "Use make"),
		"src/a.go":                          "package a\n",
		// Private, and removed by the change: named nowhere.
		".ai/conventions/secret-plan.md": "---\nvisibility: private\n---\n# SECRET-PLAN\n\nNever published.\n",
	})
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	git("rm", "-q", ".ai/conventions/secret-plan.md")
	base := git("rev-parse", "HEAD")
	testrepo.Write(t, dir, map[string]string{
		".kontext.toml":            "version = 1\n\n[[kinds.decision.include]]\ndir = \"docs/adr\"\nstyle = \"adr\"\n",
		".ai/conventions/x.md":     "---\npaths: [\"src/**\"]\n---\n# Wrap errors\n\nAlways.\n",
		"docs/adr/0004-use-chi.md": nygard(4, "Use chi"),
		// 3 is revised in the change.
		"docs/adr/0003-use-make.md": strings.Replace(nygard(3, "Use make"), "Use make.", "Use make, and only make.", 1),
	})
	git("add", "-A")
	git("commit", "-q", "-m", "adopt kontext")
	testrepo.Write(t, dir, map[string]string{"docs/adr/0005-use-htmx.md": nygard(5, "Use htmx"), "src/a.go": "package a\n\nfunc A() {}\n"})

	ctx := context.Background()
	r, err := report.Build(ctx, open(t, dir), report.Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	comment := report.Markdown(r, report.LinksFor("", "", "", r.HeadCommit))

	// The console's side: what `kontext review` serves (base..working tree).
	b, err := bundle.Build(ctx, bundle.Options{Dir: dir, Base: base, Worktree: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.BaseFiles[".kontext.toml"]; !ok {
		t.Fatalf("the base files hold no configuration to read them with: %v", slices.Sorted(maps.Keys(b.BaseFiles)))
	}
	headFiles := map[string]string{}
	for p, text := range b.Files {
		headFiles[p] = text
	}
	if b.Config != nil {
		headFiles[b.Config.Path] = b.Config.Text
	}
	console, err := engine.ChangedOf(ctx, filesEngine(t, b.BaseFiles), filesEngine(t, headFiles))
	if err != nil {
		t.Fatal(err)
	}

	got := func(changes []api.Change) string {
		var s []string
		for _, c := range report.SortedChanges(changes) {
			s = append(s, c.ID+":"+c.Change)
		}
		return strings.Join(s, ",")
	}
	const expected = "0004-use-chi:added,0005-use-htmx:added,x:added,0003-use-make:revised"
	if got(r.Changes) != expected {
		t.Errorf("the comment's changes %s, want %s", got(r.Changes), expected)
	}
	if got(console.Changes) != got(r.Changes) {
		t.Errorf("the console's changes %s, the comment's %s", got(console.Changes), got(r.Changes))
	}
	if strings.Contains(comment, "secret-plan") || strings.Contains(comment, "SECRET-PLAN") {
		t.Errorf("the comment names a private entry:\n%s", comment)
	}
	// The comment counts and names every one, with its kind, status and file.
	if !strings.Contains(comment, fmt.Sprintf("#### %d entries changed by this change\n\n%s\n", len(console.Changes), report.ChangeCounts(console.Changes))) {
		t.Errorf("the comment does not count %d changes:\n%s", len(console.Changes), comment)
	}
	for _, c := range console.Changes {
		if !strings.Contains(comment, "| "+c.Change+" | "+c.Kind+" | [") || !strings.Contains(comment, "]("+c.File+") | "+*c.Status+" |") {
			t.Errorf("the comment does not name %s (%s, %s, %s):\n%s", c.ID, c.Change, c.Kind, c.File, comment)
		}
	}
	// One warning, the same on both sides, on one line of the comment.
	w := base[:12] + " has no configuration committed: its entries were read with the configuration of the working tree (.kontext.toml)"
	if len(b.Warnings) != 1 || b.Warnings[0] != w || len(r.Warnings) != 1 || r.Warnings[0] != w {
		t.Errorf("warnings: bundle %q, comment %q, want %q", b.Warnings, r.Warnings, w)
	}
	if !strings.Contains(comment, "\n> **Warning:** "+w+"\n") {
		t.Errorf("the comment has no warning line:\n%s", comment)
	}
}
