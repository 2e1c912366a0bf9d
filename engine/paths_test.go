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

// TestPathRuleInMemory: the in-memory engine (WASM, edge) answers a
// relative path and its "./" and uncleaned spellings with the same bytes,
// and refuses climbing, outside and absolute paths as invalid_input.
func TestPathRuleInMemory(t *testing.T) {
	e, _ := memEngine(t, map[string]string{".ai/conventions/a.md": "---\npaths: [\"src/**\"]\n---\n# A\n"})
	ctx := context.Background()
	ask := func(p string) string {
		return string(e.Request(ctx, "entries.governing", []byte(`{"paths":["`+p+`"]}`)))
	}
	want := ask("src/a.go")
	if !strings.Contains(want, `"ok":true`) {
		t.Fatalf("src/a.go: %s", want)
	}
	for _, p := range []string{"./src/a.go", "src//./a.go", "./src/../src/a.go"} {
		if got := ask(p); got != want {
			t.Errorf("%q answered\n%s\nwant\n%s", p, got, want)
		}
	}
	for _, p := range []string{"../x.go", "src/../../x.go", "/etc/passwd", "/src/a.go"} {
		env := decode(t, []byte(ask(p)))
		if er, _ := env["error"].(map[string]any); er["code"] != apierr.InvalidInput {
			t.Errorf("%q: %v, want invalid_input", p, env)
		}
	}
}
