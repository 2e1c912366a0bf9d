package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

func TestRepoPathNative(t *testing.T) {
	e := engine.New(engine.Options{FS: memfs.New(), Surface: engine.Native, Root: "/home/u/repo", RootAliases: []string{"/data/repo"}})
	for in, want := range map[string]string{
		"src/a.go": "src/a.go", "./src/a.go": "src/a.go", "src/../lib/b.go": "lib/b.go", "src/": "src/",
		"/home/u/repo/src/a.go": "src/a.go", "/data/repo/src/a.go": "src/a.go", "/home/u/repo/web/": "web/",
	} {
		got, err := e.RepoPath(in)
		if err != nil || got != want {
			t.Errorf("RepoPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"/etc/passwd":          "outside the repository (root /home/u/repo)",
		"/home/u/repository/x": "outside the repository",
		"../x":                 "escapes the repository (root /home/u/repo)",
		"src/../../x":          "escapes the repository",
		"/home/u/repo":         "is the repository root",
	} {
		_, err := e.RepoPath(in)
		if apierr.CodeOf(err) != apierr.InvalidInput || !strings.Contains(err.Error(), msg) {
			t.Errorf("RepoPath(%q): %v, want invalid_input with %q", in, err, msg)
		}
	}
}

func TestRepoPathSnapshotRejectsAbsolute(t *testing.T) {
	e, _ := memEngine(t, map[string]string{".ai/conventions/a.md": "---\npaths: [\"src/**\"]\n---\n# A\n"})
	env := decode(t, e.Request(context.Background(), "entries.governing", []byte(`{"paths":["/src/a.go"]}`)))
	er, _ := env["error"].(map[string]any)
	if er["code"] != apierr.InvalidInput || !strings.Contains(er["message"].(string), "no disk root") {
		t.Fatalf("absolute path in the in-memory engine: %v", env)
	}
	env = decode(t, e.Request(context.Background(), "entries.governing", []byte(`{"paths":["src/a.go"]}`)))
	if r := env["result"].(map[string]any); len(r["entries"].([]any)) != 1 {
		t.Fatalf("relative path: %v", env)
	}
	env = decode(t, e.Request(context.Background(), "entries.suggest_paths", []byte(`{"all":true}`)))
	if er, _ := env["error"].(map[string]any); er["code"] != apierr.UnsupportedOperation {
		t.Fatalf("suggest_paths in the in-memory engine: %v", env)
	}
}
