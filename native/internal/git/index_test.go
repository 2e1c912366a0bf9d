package git_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/gittest"
	"github.com/kontext/kontext/native/internal/git"
)

// TestIndexBlobs reads index versions 2, 3 (an intent-to-add entry sets
// the extended flags) and 4 (prefix-compressed names), with a conflict, and
// compares with git ls-files --stage.
func TestIndexBlobs(t *testing.T) {
	r := gittest.New(t)
	for i := 0; i < 40; i++ {
		r.Write(fmt.Sprintf("dir%d/sub/file-%02d-with-a-longer-name-%s.md", i%4, i, strings.Repeat("x", i)), fmt.Sprint(i))
	}
	r.Write("b.md", "b\n")
	r.Commit("base")
	// A conflict: a.md at stages 1–3, none at 0.
	sha := strings.TrimSpace(string(r.Run([]byte("x\n"), "hash-object", "-w", "--stdin")))
	r.Run([]byte(fmt.Sprintf("100644 %s 1\ta.md\n100644 %s 2\ta.md\n100644 %s 3\ta.md\n", sha, sha, sha)), "update-index", "--index-info")
	r.Write("new.md", "new\n")
	r.Git("add", "-N", "new.md")
	for _, version := range []string{"2", "3", "4"} {
		r.Git("update-index", "--index-version", version)
		want := map[string]string{}
		all := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(r.Git("ls-files", "--stage")), "\n") {
			// <mode> <sha> <stage>\t<path>
			meta, path, _ := strings.Cut(line, "\t")
			f := strings.Fields(meta)
			all[path] = true
			if f[2] == "0" {
				want[path] = f[1]
			}
		}
		got, err := git.IndexBlobs(r.GitDir(), all)
		if err != nil {
			t.Fatalf("version %s: %v", version, err)
		}
		if len(got) != len(want) || len(want) < 41 {
			t.Fatalf("version %s: %d blobs, want %d", version, len(got), len(want))
		}
		for p, sha := range want {
			if got[p] != sha {
				t.Errorf("version %s: %s = %q, want %q", version, p, got[p], sha)
			}
		}
		if _, ok := got["a.md"]; ok {
			t.Errorf("version %s: a conflicted path has a stage-0 blob", version)
		}
	}
	r.Git("update-index", "--split-index")
	if _, err := git.IndexBlobs(r.GitDir(), map[string]bool{"a.md": true}); err != git.ErrIndexUnsupported {
		t.Errorf("split index: %v, want ErrIndexUnsupported (read by the fallback)", err)
	}
}
