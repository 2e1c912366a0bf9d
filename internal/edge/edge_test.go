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
	if res.Gzip == 0 || len(res.Files) != 8 {
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
