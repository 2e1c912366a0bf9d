package edge

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

func TestFindWorkerd(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir()) // nothing on PATH
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }

	// None anywhere: the error names the npm package.
	_, err := FindWorkerd(deep, getenv)
	if err == nil || !strings.Contains(err.Error(), "npm install --save-dev workerd") {
		t.Fatalf("no workerd: %v", err)
	}

	// node_modules/.bin/workerd in a directory above.
	bin := filepath.Join(root, "node_modules", ".bin", "workerd")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	if got, err := FindWorkerd(deep, getenv); err != nil || got != bin {
		t.Fatalf("upwards: %q %v", got, err)
	}

	// KONTEXT_WORKERD wins, and must exist.
	own := filepath.Join(t.TempDir(), "workerd")
	os.WriteFile(own, []byte("#!/bin/sh\n"), 0o755)
	env["KONTEXT_WORKERD"] = own
	if got, err := FindWorkerd(deep, getenv); err != nil || got != own {
		t.Fatalf("KONTEXT_WORKERD: %q %v", got, err)
	}
	env["KONTEXT_WORKERD"] = own + ".missing"
	if _, err := FindWorkerd(deep, getenv); err == nil || !strings.Contains(err.Error(), "npm install --save-dev workerd") {
		t.Fatalf("missing KONTEXT_WORKERD: %v", err)
	}
}

func TestReadReposNames(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	named := write("a.json", `{"schema":"kontext.bundle/v1","repository":{"name":"app"},"files":{}}`)
	unnamed := write("infra-kb.json", `{"schema":"kontext.bundle/v1","repository":{"name":"has space"},"files":{}}`)
	repos, err := ReadRepos([]string{named, unnamed, "x=" + named})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range repos {
		got = append(got, r.Name)
	}
	if strings.Join(got, ",") != "app,infra-kb,x" {
		t.Fatalf("names %v: want the bundle's repository name, else the file stem, else NAME=", got)
	}
	if _, err := ReadRepos([]string{write("v9.json", `{"schema":"kontext.bundle/v9","files":{}}`)}); apierr.CodeOf(err) != "unsupported_bundle" {
		t.Fatalf("newer major: %v", err)
	}
}

func TestBuildRefusesAndKeeps(t *testing.T) {
	assets := fstest.MapFS{
		"engine/index.js":         {Data: []byte("export {}")},
		"engine/wasm_exec.js":     {Data: []byte("")},
		"engine/worker/worker.js": {Data: []byte("export {}")},
		"engine/kontext.wasm":     {Data: []byte("\x00asm")},
	}
	out := filepath.Join(t.TempDir(), "edge")
	repos := []Repo{{Name: "app", Bundle: []byte(`{}`)}}
	res, err := Build(Options{Out: out, Repos: repos, Assets: assets})
	if err != nil {
		t.Fatal(err)
	}
	if res.Gzip == 0 || len(res.Files) != 7 {
		t.Fatalf("result %+v", res)
	}
	// Missing engine assets: an error, and the earlier build stays whole.
	_, err = Build(Options{Out: out, Repos: repos, Assets: fstest.MapFS{}})
	if err == nil || !strings.Contains(err.Error(), "make assets") {
		t.Fatalf("no assets: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "main.js")); err != nil {
		t.Fatalf("the earlier build was touched: %v", err)
	}
	cfg := Config(res.Files, 8787, map[string]string{"KONTEXT_TOKEN": `a"b\c`}, "")
	for _, want := range []string{`address = "127.0.0.1:8787"`, `(name = "kontext.wasm", wasm = embed "kontext.wasm")`, `(name = "repos/app.json", text = embed "repos/app.json")`, `(name = "KONTEXT_TOKEN", text = "a\"b\\c")`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %s:\n%s", want, cfg)
		}
	}
}

func TestWorkerdExitNamesTheLastMessage(t *testing.T) {
	tail := &tailBuffer{max: 120}
	tail.Write([]byte("some early output that the tail drops\n*** Fatal: bind: Address already in use\nstack: /x/workerd@51f7db6 /x/workerd@51f7b89\n"))
	err := workerdExit(nil, tail)
	if got := err.Error(); got != "workerd stopped: *** Fatal: bind: Address already in use" {
		t.Fatalf("got %q", got)
	}
}

// The worker answers from a bundle's compiled snapshot only: a bundle
// whose snapshot it cannot read is refused at build, not deployed to parse
// every file per isolate.
func TestReadReposChecksTheSnapshot(t *testing.T) {
	files := map[string]string{".ai/conventions/x.md": "---\npaths: [\"src/**\"]\n---\n# X\n\nBody.\n"}
	snap, err := engine.CompileSnapshot(context.Background(), files, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	old := bytes.Clone(snap)
	old[len("KONTEXTSNAP\x00")]-- // the format before this one
	dir := t.TempDir()
	bundle := func(name string, snapshot []byte) string {
		doc := map[string]any{"schema": "kontext.bundle/v1", "repository": map[string]string{"name": "app"}, "files": files}
		if snapshot != nil {
			doc["snapshot"] = base64.StdEncoding.EncodeToString(snapshot)
		}
		data, _ := json.Marshal(doc)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := ReadRepos([]string{bundle("ok.json", snap)}); err != nil {
		t.Fatalf("a bundle with its snapshot: %v", err)
	}
	for name, s := range map[string][]byte{"none.json": nil, "old.json": old, "garbage.json": []byte("not a snapshot")} {
		_, err := ReadRepos([]string{bundle(name, s)})
		if apierr.CodeOf(err) != apierr.UnsupportedOperation || !strings.Contains(err.Error(), "kontext bundle") {
			t.Errorf("%s: %v, want unsupported_operation naming kontext bundle", name, err)
		}
	}
}

// TestBuildKeepsUserFiles: a rebuild rewrites only what the earlier build
// recorded in .kontext-build.json (paths and sha256): the user's files stay,
// an edited wrangler.toml is kept and the new one written beside it, a
// repository no longer built is removed; a non-empty directory without the
// manifest is refused unless Force, and so is a file in the way.
func TestBuildKeepsUserFiles(t *testing.T) {
	assets := fstest.MapFS{
		"engine/index.js":         {Data: []byte("export {}")},
		"engine/wasm_exec.js":     {Data: []byte("")},
		"engine/worker/worker.js": {Data: []byte("export {}")},
		"engine/kontext.wasm":     {Data: []byte("\x00asm")},
	}
	out := filepath.Join(t.TempDir(), "edge")
	write := func(rel, text string) {
		p := filepath.Join(out, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	two := []Repo{{Name: "app", Bundle: []byte(`{"v":1}`)}, {Name: "infra", Bundle: []byte(`{}`)}}
	if _, err := Build(Options{Out: out, Repos: two, Assets: assets}); err != nil {
		t.Fatal(err)
	}
	m, ok, err := ReadManifest(out)
	if err != nil || !ok || len(m.Files) != 8 || m.Files["repos/app.json"] != sha([]byte(`{"v":1}`)) {
		t.Fatalf("manifest %+v, %v %v", m, ok, err)
	}
	// The user's files, and an edit of wrangler.toml.
	write(".gitignore", "node_modules\n")
	write("sub/precious.txt", "mine")
	edited := read("wrangler.toml") + "\n[vars]\nKONTEXT_CORS_ORIGINS = \"*\"\n"
	write("wrangler.toml", edited)

	one := []Repo{{Name: "app", Bundle: []byte(`{"v":2}`)}}
	res, err := Build(Options{Out: out, Repos: one, Assets: assets})
	if err != nil {
		t.Fatal(err)
	}
	if read(".gitignore") != "node_modules\n" || read("sub/precious.txt") != "mine" {
		t.Errorf("the user's files changed")
	}
	if read("wrangler.toml") != edited || !res.WranglerNew || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "wrangler.toml.new") {
		t.Errorf("edited wrangler.toml: %v, notes %q", read("wrangler.toml") == edited, res.Notes)
	}
	if !strings.HasPrefix(read("wrangler.toml.new"), "# Generated by kontext edge build") {
		t.Errorf("no wrangler.toml.new")
	}
	if read("repos/app.json") != `{"v":2}` || read("repos/infra.json") != "<missing>" {
		t.Errorf("repos: app %q, infra %q", read("repos/app.json"), read("repos/infra.json"))
	}
	// A third build: still the user's wrangler.toml.
	if res, err := Build(Options{Out: out, Repos: one, Assets: assets}); err != nil || read("wrangler.toml") != edited || !res.WranglerNew {
		t.Errorf("third build: %v, wrangler kept %v", err, read("wrangler.toml") == edited)
	}
	// The user merges and deletes the .new: later builds rewrite wrangler.toml again
	// only when it is what the manifest recorded.
	os.Remove(filepath.Join(out, "wrangler.toml"))
	os.Remove(filepath.Join(out, "wrangler.toml.new"))
	if res, err := Build(Options{Out: out, Repos: one, Assets: assets}); err != nil || res.WranglerNew || !strings.HasPrefix(read("wrangler.toml"), "# Generated") {
		t.Errorf("after removing wrangler.toml: %v %+v", err, res)
	}
	if res, err := Build(Options{Out: out, Repos: one, Assets: assets, Name: "renamed"}); err != nil || res.WranglerNew || !strings.Contains(read("wrangler.toml"), `name = "renamed"`) {
		t.Errorf("an unedited wrangler.toml is rewritten: %v %+v", err, res)
	}

	// A directory without the manifest: refused, untouched; --force adds
	// kontext's files and keeps the others (a wrangler.toml of the user's
	// included).
	foreign := filepath.Join(t.TempDir(), "site")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "keep.txt"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(foreign, "wrangler.toml"), []byte("name = \"theirs\"\n"), 0o644)
	_, err = Build(Options{Out: foreign, Repos: one, Assets: assets})
	if apierr.CodeOf(err) != apierr.InvalidInput || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("foreign directory: %v", err)
	}
	if ents, _ := os.ReadDir(foreign); len(ents) != 2 {
		t.Errorf("a refused build wrote %d entries", len(ents))
	}
	if res, err := Build(Options{Out: foreign, Repos: one, Assets: assets, Force: true}); err != nil || !res.WranglerNew {
		t.Fatalf("--force: %v %+v", err, res)
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "wrangler.toml")); string(b) != "name = \"theirs\"\n" {
		t.Errorf("--force replaced the user's wrangler.toml")
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "keep.txt")); string(b) != "mine" {
		t.Errorf("--force touched keep.txt")
	}

	// A file in the way that no build wrote: refused without --force.
	os.Remove(filepath.Join(out, "repos", "app.json"))
	write("repos/new.json", "the user's")
	_, err = Build(Options{Out: out, Repos: []Repo{{Name: "new", Bundle: []byte(`{}`)}}, Assets: assets})
	if apierr.CodeOf(err) != apierr.InvalidInput || !strings.Contains(err.Error(), "new.json exists and kontext edge build did not write it") {
		t.Errorf("a file in the way: %v", err)
	}
	if read("repos/new.json") != "the user's" {
		t.Errorf("the file in the way was replaced")
	}
}
