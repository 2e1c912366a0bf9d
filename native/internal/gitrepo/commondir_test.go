package gitrepo

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// TestLinkedWorktreePackedObjects reads packed objects from a linked
// worktree, whose packs live in the main repository's git dir.
func TestLinkedWorktreePackedObjects(t *testing.T) {
	testrepo.Env(t)
	main := filepath.Join(t.TempDir(), "main")
	testrepo.Git(t, filepath.Dir(main), "init", "-q", "-b", "main", main)
	big := strings.Repeat("a line of a file large enough to be stored as a delta or a big object\n", 2000)
	testrepo.Write(t, main, map[string]string{"README.md": "# r\n", "big.txt": big})
	testrepo.Git(t, main, "add", "-A")
	testrepo.Git(t, main, "commit", "-q", "-m", "one")
	testrepo.Git(t, main, "gc", "-q")
	wt := filepath.Join(filepath.Dir(main), "wt")
	testrepo.Git(t, main, "worktree", "add", "-q", wt)
	sha := strings.TrimSpace(testrepo.Git(t, wt, "rev-parse", "HEAD"))

	r, err := Open(wt)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"README.md": "# r\n", "big.txt": big} {
		data, ok, err := r.FileAt(context.Background(), sha, name)
		if err != nil || !ok || string(data) != want {
			t.Fatalf("FileAt(%s) in a linked worktree: ok %v, err %v, %d bytes", name, ok, err, len(data))
		}
	}
}
