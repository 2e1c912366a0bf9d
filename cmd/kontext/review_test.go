package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"github.com/kontext/kontext/internal/bundle"
	"github.com/kontext/kontext/internal/review"
	"github.com/kontext/kontext/internal/testrepo"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// bundleDoc is the part of kontext.bundle/v1 the command tests look at.
type bundleDoc struct {
	Schema     string `json:"schema"`
	Repository struct {
		Head       *string `json:"head"`
		Base       *string `json:"base"`
		BaseSource string  `json:"base_source"`
	} `json:"repository"`
	Files   map[string]string         `json:"files"`
	History map[string]map[string]any `json:"history"`
	Drift   []struct {
		ID string `json:"id"`
	} `json:"drift"`
}

func parseBundle(t *testing.T, data []byte) *bundleDoc {
	t.Helper()
	var b bundleDoc
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatalf("not a bundle: %v\n%.300s", err, data)
	}
	if b.Schema != "kontext.bundle/v1" || len(b.Files) == 0 || len(b.History) == 0 || b.Repository.Head == nil {
		t.Fatalf("bundle: schema %q, %d files, %d history", b.Schema, len(b.Files), len(b.History))
	}
	drifted := false
	for _, d := range b.Drift {
		drifted = drifted || d.ID == "2026-04-14-nightly-export-is-a-cronjob"
	}
	if !drifted {
		t.Errorf("drift lacks the demo's drifted entry: %+v", b.Drift)
	}
	return &b
}

func TestBundleCmd(t *testing.T) {
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:00:00Z")
	dir := testrepo.Demo(t)
	var stdout, stderr bytes.Buffer
	g := &factory{dir: dir, io: Streams(nil, &stdout, &stderr)}
	out := filepath.Join(t.TempDir(), "bundle.json")
	if code := runCommand(context.Background(), g, "bundle", []string{"-o", out}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	parseBundle(t, data)
	if !strings.Contains(stderr.String(), "wrote "+out) || stdout.Len() != 0 {
		t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*.tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temp files left: %v", leftovers)
	}

	stdout.Reset()
	if code := runCommand(context.Background(), g, "bundle", []string{"--head", "HEAD", "-o", "-"}); code != exitOK {
		t.Fatalf("-o - exit %d: %s", code, stderr.String())
	}
	b := parseBundle(t, stdout.Bytes())
	if b.Repository.Base == nil || b.Repository.BaseSource != "origin-head" {
		t.Errorf("--head HEAD: %+v", b.Repository)
	}

	stderr.Reset()
	if code := runCommand(context.Background(), g, "bundle", nil); code != exitUsage || !strings.Contains(stderr.String(), "-o") {
		t.Errorf("without -o: exit %d %q", code, stderr.String())
	}
	if code := runCommand(context.Background(), g, "bundle", []string{"--base", "nope", "-o", "-"}); code != exitUsage {
		t.Errorf("unknown base: exit %d", code)
	}
}

// fakeAssets writes a console and engine checkout (web/, wasm/) for
// KONTEXT_ASSETS, with a fake wasm module.
func fakeAssets(t *testing.T) (string, []byte) {
	t.Helper()
	root := t.TempDir()
	wasm := []byte("\x00asm\x01\x00\x00\x00fake")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(wasm)
	zw.Close()
	files := map[string][]byte{
		"web/index.html":       []byte("<!doctype html><html><head><link rel=\"stylesheet\" href=\"./style.css\"></head><body><div id=\"app\"></div><script type=\"module\" src=\"./app.js\"></script></body></html>\n"),
		"web/style.css":        []byte("main { display: grid }\n"),
		"web/app.js":           []byte("async function loadEngine() {}\nconst bundle = window.__KONTEXT_BUNDLE__;\n"),
		"wasm/index.js":        []byte("import \"./wasm_exec.js\"; // Go's runtime glue: defines globalThis.Go\nexport async function loadEngine() {}\n"),
		"wasm/wasm_exec.js":    []byte("globalThis.Go = class {};\n"),
		"wasm/kontext.wasm.gz": gz.Bytes(),
	}
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, wasm
}

var scriptTag = regexp.MustCompile(`(?is)<script([^>]*)>(.*?)</script>`)

// checkReviewHTML checks a one-file console: the bundle and the engine
// inlined, no `</script` inside inlined data, and a module script without
// import lines.
func checkReviewHTML(t *testing.T, page []byte, wantWasm []byte) {
	t.Helper()
	s := string(page)
	scripts := scriptTag.FindAllStringSubmatch(s, -1)
	if len(scripts) != 2 || strings.Count(strings.ToLower(s), "</script") != 2 {
		t.Fatalf("%d scripts, %d </script: want 2 and 2 (data, console module)", len(scripts), strings.Count(strings.ToLower(s), "</script"))
	}
	data := scripts[0][2]
	i := strings.Index(data, "window.__KONTEXT_BUNDLE__ = ")
	j := strings.Index(data, ";\nwindow.__KONTEXT_WASM_GZ_B64__")
	if i < 0 || j < i {
		t.Fatal("bundle not inlined")
	}
	parseBundle(t, []byte(data[i+len("window.__KONTEXT_BUNDLE__ = "):j]))
	m := regexp.MustCompile(`window\.__KONTEXT_WASM_GZ_B64__ = "([A-Za-z0-9+/=]+)";`).FindStringSubmatch(data)
	if m == nil {
		t.Fatal("wasm not inlined")
	}
	gz, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(zr)
	if len(raw) == 0 || (wantWasm != nil && !bytes.Equal(raw, wantWasm)) {
		t.Errorf("inlined wasm: %d bytes", len(raw))
	}
	mod := scripts[1]
	if !strings.Contains(mod[1], `type="module"`) || regexp.MustCompile(`(?m)^\s*import\s`).MatchString(mod[2]) || !strings.Contains(mod[2], "loadEngine") {
		t.Errorf("module script %q keeps imports or lacks the engine:\n%.300s", mod[1], mod[2])
	}
	if strings.Contains(s, "src=") || strings.Contains(s, `href="./style.css"`) && !strings.Contains(s, "<style>") {
		t.Error("the page still loads files")
	}
}

func TestReviewOut(t *testing.T) {
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:00:00Z")
	dir := testrepo.Demo(t)
	root, wasm := fakeAssets(t)
	t.Setenv("KONTEXT_ASSETS", root)
	out := filepath.Join(t.TempDir(), "review.html")
	var stdout, stderr bytes.Buffer
	if code := runCommand(context.Background(), &factory{dir: dir, io: Streams(nil, &stdout, &stderr)}, "review", []string{"--out", out}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	checkReviewHTML(t, page, wasm)
	if !regexp.MustCompile(`^wrote .*review\.html \(\d+ bytes\)\n$`).MatchString(stdout.String()) {
		t.Errorf("stdout %q", stdout.String())
	}

	// The real console and engine, when this checkout has built them.
	repo := testrepo.Root()
	for _, f := range []string{"web/index.html", "web/app.js", "web/style.css", "wasm/index.js", "wasm/wasm_exec.js", "wasm/kontext.wasm.gz"} {
		if _, err := os.Stat(filepath.Join(repo, f)); err != nil {
			t.Logf("real assets: %s missing (make wasm; web/ is the console's), skipped", f)
			return
		}
	}
	t.Setenv("KONTEXT_ASSETS", repo)
	stdout.Reset()
	if code := runCommand(context.Background(), &factory{dir: dir, io: Streams(nil, &stdout, &stderr)}, "review", []string{"--out", out}); code != exitOK {
		t.Fatalf("real assets: exit %d: %s", code, stderr.String())
	}
	page, _ = os.ReadFile(out)
	checkReviewHTML(t, page, nil)
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestReviewServe(t *testing.T) {
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:00:00Z")
	dir := testrepo.Demo(t)
	root, _ := fakeAssets(t)
	t.Setenv("KONTEXT_ASSETS", root)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runCommand(ctx, &factory{dir: dir, io: Streams(nil, &stdout, &stderr)}, "review", []string{"--port", "0", "--no-open"})
	}()
	urlRE := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)
	var url string
	for deadline := time.Now().Add(30 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		url = urlRE.FindString(stdout.String())
		select {
		case code := <-done:
			t.Fatalf("exited %d: %s", code, stderr.String())
		default:
		}
	}
	if url == "" {
		t.Fatalf("no URL printed: %q", stdout.String())
	}
	fetch := func(path string) (*http.Response, []byte) {
		res, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, body
	}
	if res, body := fetch(""); res.StatusCode != 200 || !strings.Contains(string(body), `<div id="app">`) {
		t.Errorf("GET /: %d %.200s", res.StatusCode, body)
	}
	for i := 0; i < 2; i++ { // the prebuilt bundle, then a fresh one
		res, body := fetch("bundle.json")
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("bundle.json: %d %s", res.StatusCode, body)
		}
		parseBundle(t, body)
	}
	if res, _ := fetch("engine/kontext.wasm"); res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/wasm" {
		t.Errorf("kontext.wasm: %d %v", res.StatusCode, res.Header)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("review did not stop when its context ended")
	}
}

// The streamed page (review --out) is the page built in memory from the
// marshalled bundle, byte for byte, and its inlined bundle is what
// `kontext bundle --worktree` writes: the same snapshot, entries and files.
func TestReviewOutSameBundle(t *testing.T) {
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:00:00Z")
	dir := testrepo.Demo(t)
	root, _ := fakeAssets(t)
	t.Setenv("KONTEXT_ASSETS", root)
	tmp := t.TempDir()
	page, file := filepath.Join(tmp, "review.html"), filepath.Join(tmp, "bundle.json")
	var stdout, stderr bytes.Buffer
	g := &factory{dir: dir, io: Streams(nil, &stdout, &stderr)}
	if code := runCommand(context.Background(), g, "review", []string{"--out", page}); code != exitOK {
		t.Fatalf("review --out: exit %d: %s", code, stderr.String())
	}
	if code := runCommand(context.Background(), g, "bundle", []string{"--worktree", "-o", file}); code != exitOK {
		t.Fatalf("bundle: exit %d: %s", code, stderr.String())
	}
	got, _ := os.ReadFile(page)
	doc, _ := os.ReadFile(file)

	b, err := bundle.Build(context.Background(), bundle.Options{Dir: dir, Worktree: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := bundle.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, data) {
		t.Errorf("bundle -o differs from Marshal: %s", testrepo.FirstDiff(string(data), string(doc)))
	}
	want, err := review.SingleFile(review.Assets(), data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the streamed page differs from the one built in memory: %s", testrepo.FirstDiff(string(want), string(got)))
	}
	s := string(got)
	i, j := strings.Index(s, "window.__KONTEXT_BUNDLE__ = "), strings.Index(s, ";\nwindow.__KONTEXT_WASM_GZ_B64__")
	if i < 0 || j < i {
		t.Fatal("bundle not inlined")
	}
	var inlined, written struct {
		Snapshot string            `json:"snapshot"`
		Files    map[string]string `json:"files"`
		History  map[string]any    `json:"history"`
	}
	if err := json.Unmarshal([]byte(s[i+len("window.__KONTEXT_BUNDLE__ = "):j]), &inlined); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(doc, &written)
	if inlined.Snapshot == "" || inlined.Snapshot != written.Snapshot || len(inlined.History) == 0 ||
		!reflect.DeepEqual(inlined.History, written.History) || !reflect.DeepEqual(inlined.Files, written.Files) {
		t.Errorf("the page's bundle is not the written one: snapshot %d/%d bytes, %d/%d entries, %d/%d files",
			len(inlined.Snapshot), len(written.Snapshot), len(inlined.History), len(written.History), len(inlined.Files), len(written.Files))
	}
}
