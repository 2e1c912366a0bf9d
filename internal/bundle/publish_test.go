package bundle

import (
	"bytes"
	"context"
	"encoding/base64"
	"testing"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/internal/testrepo"
)

func entryFile(title, visibility string) string {
	return "---\nstatus: active\ndate: 2026-01-10\nvisibility: " + visibility + "\npaths: [\"src/**\"]\n---\n# " + title + "\n\nBody.\n"
}

// TestBundlePublishingRules: a bundle to publish holds committed,
// team-visible entries at HEAD; --worktree adds uncommitted ones; private
// entries are never in a bundle; before the first commit only --worktree
// answers.
func TestBundlePublishingRules(t *testing.T) {
	testrepo.Env(t)
	dir := t.TempDir()
	testrepo.Git(t, dir, "init", "-q")
	ctx := context.Background()

	testrepo.Write(t, dir, map[string]string{".ai/conventions/2026-01-10-team.md": entryFile("Team rule", "team")})
	if _, err := Build(ctx, Options{Dir: dir}); apierr.CodeOf(err) != apierr.NoCommits {
		t.Errorf("bundle before the first commit: %v, want no_commits", err)
	}
	if b, err := Build(ctx, Options{Dir: dir, Worktree: true}); err != nil || b.Files[".ai/conventions/2026-01-10-team.md"] == "" {
		t.Errorf("worktree bundle before the first commit: %v", err)
	}

	testrepo.Write(t, dir, map[string]string{
		".ai/conventions/2026-01-11-mine.md": entryFile("My private note", "private"),
	})
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-qm", "knowledge")
	// Uncommitted: a new entry and an edit of the committed one.
	testrepo.Write(t, dir, map[string]string{
		".ai/conventions/2026-01-12-draft.md": entryFile("Draft rule", "team"),
		".ai/conventions/2026-01-10-team.md":  entryFile("Team rule, edited", "team"),
	})

	b, err := Build(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if b.FormatVersion != "1.3" || b.Schema != "kontext.bundle/v1" || b.Repository.Worktree || b.Repository.Dirty {
		t.Errorf("publishing bundle: schema %q format %q worktree %v dirty %v", b.Schema, b.FormatVersion, b.Repository.Worktree, b.Repository.Dirty)
	}
	if got := b.Files[".ai/conventions/2026-01-10-team.md"]; got != entryFile("Team rule", "team") {
		t.Errorf("publishing bundle has the team entry as %q, want its committed text", got)
	}
	for _, f := range []string{".ai/conventions/2026-01-12-draft.md", ".ai/conventions/2026-01-11-mine.md"} {
		if _, ok := b.Files[f]; ok {
			t.Errorf("publishing bundle holds %s", f)
		}
	}
	if _, ok := b.History["2026-01-11-mine"]; ok {
		t.Error("publishing bundle has history of the private entry")
	}
	// The compiled snapshot is built from the published files only.
	snap, err := base64.StdEncoding.DecodeString(b.Snapshot)
	if err != nil || len(snap) == 0 {
		t.Fatalf("publishing bundle has no compiled snapshot (%v)", err)
	}
	if bytes.Contains(snap, []byte("My private note")) || bytes.Contains(snap, []byte("2026-01-11-mine")) {
		t.Error("the compiled snapshot holds the private entry")
	}
	// A title is a span of its file there; the entry's file is named.
	if !bytes.Contains(snap, []byte(".ai/conventions/2026-01-10-team.md")) {
		t.Error("the compiled snapshot lacks the team entry")
	}
	if _, ok := b.History["2026-01-10-team"]; !ok {
		t.Error("publishing bundle lacks the team entry's history")
	}

	w, err := Build(ctx, Options{Dir: dir, Worktree: true})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Repository.Worktree || !w.Repository.Dirty {
		t.Errorf("worktree bundle: worktree %v dirty %v", w.Repository.Worktree, w.Repository.Dirty)
	}
	if w.Files[".ai/conventions/2026-01-12-draft.md"] == "" || w.Files[".ai/conventions/2026-01-10-team.md"] != entryFile("Team rule, edited", "team") {
		t.Errorf("worktree bundle lacks the uncommitted files: %v", keys(w.Files))
	}
	if _, ok := w.Files[".ai/conventions/2026-01-11-mine.md"]; ok {
		t.Error("worktree bundle holds the private entry")
	}

	if _, err := Build(ctx, Options{Dir: dir, Worktree: true, Head: "HEAD"}); apierr.CodeOf(err) != apierr.InvalidInput {
		t.Errorf("worktree with head: %v, want invalid_input", err)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
