package review

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// fakeWasm is not a real module; the server only moves bytes.
var fakeWasm = []byte("\x00asm\x01\x00\x00\x00 fake engine")

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func testAssets(t *testing.T) fstest.MapFS {
	return fstest.MapFS{
		"web/index.html": {Data: []byte(`<!doctype html>
<html><head><meta charset="utf-8"><title>kontext review</title>
<link rel="stylesheet" href="./style.css">
<script id="kontext-early">
(function () { window.__KONTEXT_EARLY__ = { engine: fetch("./engine/kontext.wasm") }; })();
</script>
</head><body><main id="app"></main>
<script type="module" src="./app.js"></script>
</body></html>
`)},
		"web/style.css":          {Data: []byte("body { color: black }\n")},
		"web/app.js":             {Data: []byte("// the console and the engine, bundled\n(() => { globalThis.Go = class { }; const s = \"</SCRIPT>\"; })();\nasync function loadEngine(options = {}) { return null; }\nconst html = \"</script><!-- x\";\nconst engine = await loadEngine({});\n")},
		"engine/kontext.wasm.gz": {Data: gz(t, fakeWasm)},
	}
}

const bundleDoc = `{"schema":"kontext.bundle/v1","files":{".ai/decisions/x.md":"\u003c/script\u003e"}}`

func testServer(t *testing.T, assets fstest.MapFS) *httptest.Server {
	srv := &Server{Assets: assets, Bundle: func(context.Context) ([]byte, error) { return []byte(bundleDoc), nil }}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}

func get(t *testing.T, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

func TestServerRoutes(t *testing.T) {
	ts := testServer(t, testAssets(t))
	for _, c := range []struct{ path, ctype, contains string }{
		{"/", "text/html; charset=utf-8", "<main id=\"app\">"},
		{"/app.js", "text/javascript; charset=utf-8", "loadEngine"},
		{"/style.css", "text/css; charset=utf-8", "color"},
		{"/bundle.json", "application/json", "kontext.bundle/v1"},
	} {
		res, body := get(t, ts.URL+c.path, nil)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != c.ctype || !strings.Contains(string(body), c.contains) {
			t.Errorf("GET %s: %d %q %.80q", c.path, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
	// The engine: gzip as stored for clients that take it, else inflated.
	res, body := get(t, ts.URL+"/engine/kontext.wasm", map[string]string{"Accept-Encoding": "gzip, br"})
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/wasm" || res.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("wasm (gzip): %d %v", res.StatusCode, res.Header)
	}
	if zr, err := gzip.NewReader(bytes.NewReader(body)); err != nil {
		t.Error(err)
	} else if raw, _ := io.ReadAll(zr); !bytes.Equal(raw, fakeWasm) {
		t.Error("gzip wasm differs")
	}
	res, body = get(t, ts.URL+"/engine/kontext.wasm", nil)
	if res.Header.Get("Content-Encoding") != "" || res.Header.Get("Content-Type") != "application/wasm" || !bytes.Equal(body, fakeWasm) {
		t.Errorf("wasm (identity): %v %q", res.Header, body)
	}
	// As its gzip file, which the console inflates in the page.
	for p, want := range map[string][]byte{"/engine/kontext.wasm.gz": fakeWasm} {
		res, body = get(t, ts.URL+p, map[string]string{"Accept-Encoding": "gzip"})
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/gzip" || res.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: %d %v", p, res.StatusCode, res.Header)
		}
		if zr, err := gzip.NewReader(bytes.NewReader(body)); err != nil {
			t.Errorf("%s: %v", p, err)
		} else if raw, _ := io.ReadAll(zr); !bytes.Equal(raw, want) {
			t.Errorf("%s: inflated, it is not the engine", p)
		}
	}
	for _, p := range []string{"/nope.js", "/engine/kontext.wasm.gzip", "/../go.mod", "/engine/other.js", "/engine/index.js", "/engine/kontext-reader.wasm"} {
		if res, _ := get(t, ts.URL+p, nil); res.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, res.StatusCode)
		}
	}
	if res, _ := get(t, ts.URL+"/bundle.json", map[string]string{"Host": "evil.example:80"}); res.StatusCode != 403 {
		t.Errorf("foreign Host: %d, want 403", res.StatusCode)
	}
	if res, err := http.Post(ts.URL+"/bundle.json", "text/plain", nil); err != nil || res.StatusCode != 405 {
		t.Errorf("POST: %v %v", res, err)
	}
}

func TestServerMissingAssets(t *testing.T) {
	ts := testServer(t, fstest.MapFS{"README.md": {Data: []byte("placeholder")}})
	res, body := get(t, ts.URL+"/", nil)
	if res.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(body), "make build") || !strings.Contains(string(body), "web/index.html") {
		t.Errorf("GET / without assets: %d %q", res.StatusCode, body)
	}
	if res, _ := get(t, ts.URL+"/bundle.json", nil); res.StatusCode != 200 {
		t.Errorf("bundle without assets: %d", res.StatusCode)
	}
	if res, _ := get(t, ts.URL+"/engine/kontext.wasm", nil); res.StatusCode != 404 {
		t.Errorf("wasm without assets: %d", res.StatusCode)
	}
	// A raw engine only (a checkout before make wasm): the .gz route
	// answers 404, which the page falls back from; the .wasm one serves it.
	ts = testServer(t, fstest.MapFS{"engine/kontext.wasm": {Data: []byte("\x00asm raw")}})
	if res, _ := get(t, ts.URL+"/engine/kontext.wasm.gz", nil); res.StatusCode != 404 {
		t.Errorf(".gz without its gzip file: %d, want 404", res.StatusCode)
	}
	if res, body := get(t, ts.URL+"/engine/kontext.wasm", nil); res.StatusCode != 200 || string(body) != "\x00asm raw" {
		t.Errorf("raw engine: %d %q", res.StatusCode, body)
	}
}

func TestServerBundleError(t *testing.T) {
	srv := &Server{Assets: testAssets(t), Bundle: func(context.Context) ([]byte, error) { return nil, errors.New("boom") }}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	res, body := get(t, ts.URL+"/bundle.json", nil)
	var env struct {
		OK bool `json:"ok"`
	}
	if res.StatusCode != 500 || json.Unmarshal(body, &env) != nil || env.OK {
		t.Errorf("bundle error: %d %s", res.StatusCode, body)
	}
}

// TestEmbeddedAssets: a fresh clone embeds only the placeholder; a built
// tree embeds the whole console. Either way the FS opens.
func TestEmbeddedAssets(t *testing.T) {
	t.Setenv("KONTEXT_ASSETS", "")
	a := Assets()
	if _, err := a.Open("README.md"); err != nil {
		t.Fatalf("placeholder README not embedded: %v", err)
	}
	if m := Missing(a); len(m) > 0 {
		t.Logf("console not built into the test binary (missing %v): make build copies it", m)
	}
}

func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ln, &Server{Assets: testAssets(t), Bundle: func(context.Context) ([]byte, error) { return []byte(bundleDoc), nil }})
	}()
	res, body := get(t, "http://"+ln.Addr().String()+"/", nil)
	if res.StatusCode != 200 || !strings.Contains(string(body), "<html") {
		t.Errorf("GET /: %d", res.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestSingleFile(t *testing.T) {
	page, err := SingleFile(testAssets(t), []byte(bundleDoc+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	CheckSingleFile(t, page, fakeWasm)
	s := string(page)
	if strings.Contains(s, `src="app.js"`) || strings.Contains(s, `href="style.css"`) || !strings.Contains(s, "<style>\nbody { color: black }") {
		t.Errorf("assets not inlined:\n%s", s)
	}
	if !strings.Contains(s, `window.__KONTEXT_BUNDLE__ = `+bundleDoc+`;`) {
		t.Error("bundle not inlined as it is")
	}
	// The served page's early downloads are dropped (the page carries both).
	if strings.Contains(s, "kontext-early") || strings.Contains(s, "__KONTEXT_EARLY__") {
		t.Errorf("early script left in the one-file page:\n%s", s)
	}
	a0 := testAssets(t)
	a0["web/index.html"] = &fstest.MapFile{Data: []byte(`<html><head><link rel="stylesheet" href="./style.css"><script id="kontext-early">x()</head><body><script type="module" src="./app.js"></script></body></html>`)}
	a0["web/index.html"].Data = bytes.Replace(a0["web/index.html"].Data, []byte("x()"), []byte("x()<script id=\"kontext-early\">"), 1)
	if _, err := SingleFile(a0, []byte(bundleDoc)); err == nil || !strings.Contains(err.Error(), "kontext-early") {
		t.Errorf("index.html with a repeated early script: %v", err)
	}

	// Without the tags it replaces, index.html is refused, never half-inlined.
	a := testAssets(t)
	a["web/index.html"] = &fstest.MapFile{Data: []byte(`<html><head><link rel="stylesheet" href="style.css"></head><body><script type="module" src="./app.js"></script></body></html>`)}
	if _, err := SingleFile(a, []byte(bundleDoc)); err == nil || !strings.Contains(err.Error(), "style.css") {
		t.Errorf("index.html without the stylesheet tag: %v", err)
	}
	if _, err := SingleFile(fstest.MapFS{}, []byte(bundleDoc)); err == nil || !strings.Contains(err.Error(), "make build") {
		t.Errorf("missing assets: %v", err)
	}
}

var scriptRE = regexp.MustCompile(`(?is)<script([^>]*)>(.*?)</script>`)

// CheckSingleFile checks a one-file console: a data script and the
// console's module (no src, no imports), the bundle and the engine (base64 of a
// gzip of wantWasm; nil skips the comparison) inlined, and no `</script`
// or `<!--` inside any inlined script.
func CheckSingleFile(t *testing.T, page []byte, wantWasm []byte) {
	t.Helper()
	s := string(page)
	scripts := scriptRE.FindAllStringSubmatch(s, -1)
	if n := strings.Count(strings.ToLower(s), "</script"); n != len(scripts) {
		t.Errorf("%d `</script` in the page for %d scripts: inlined data closes a script", n, len(scripts))
	}
	if len(scripts) != 2 {
		t.Fatalf("%d scripts, want 2 (data, module)", len(scripts))
	}
	for i, m := range scripts {
		if strings.Contains(m[1], "src=") {
			t.Errorf("script %d loads %s", i, m[1])
		}
		if strings.Contains(strings.ToLower(m[2]), "<!--") {
			t.Errorf("script %d contains <!--", i)
		}
	}
	data := scripts[0][2]
	if !strings.Contains(data, "window.__KONTEXT_BUNDLE__ = {") || !strings.Contains(data, `"kontext.bundle/v1"`) {
		t.Error("bundle not inlined")
	}
	b64 := regexp.MustCompile(`window\.__KONTEXT_WASM_GZ_B64__ = "([A-Za-z0-9+/=]+)";`).FindStringSubmatch(data)
	if b64 == nil {
		t.Fatal("wasm base64 not inlined")
	}
	gzb, err := base64.StdEncoding.DecodeString(b64[1])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gzb))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil || len(raw) == 0 || (wantWasm != nil && !bytes.Equal(raw, wantWasm)) {
		t.Errorf("inlined wasm: %d bytes, %v", len(raw), err)
	}
	if m := scripts[1]; !strings.Contains(m[1], `type="module"`) || regexp.MustCompile(`(?m)^\s*import\s`).MatchString(m[2]) ||
		!strings.Contains(m[2], "function loadEngine") || !strings.Contains(m[2], "globalThis.Go") {
		t.Errorf("module script: attrs %q, imports left or engine missing:\n%.400s", m[1], m[2])
	}
}

// The console's page keeps exactly one of each tag SingleFile replaces.
func TestIndexHTMLHasTheInlinedTags(t *testing.T) {
	page, err := os.ReadFile("../../web/index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{styleTag, scriptTag, earlyScript} {
		if n := strings.Count(string(page), tag); n != 1 {
			t.Errorf("web/index.html has %d of %s, want 1", n, tag)
		}
	}
}

// WriteSingleFile streams the page SingleFile builds, byte for byte, and
// refuses a bundle that could close its script.
func TestWriteSingleFileEqualsSingleFile(t *testing.T) {
	want, err := SingleFile(testAssets(t), []byte(bundleDoc+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	err = WriteSingleFile(&got, testAssets(t), func(w io.Writer) error {
		for _, part := range []string{bundleDoc[:10], bundleDoc[10:]} { // written in parts, as an encoder does
			if _, err := io.WriteString(w, part); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || !bytes.Equal(got.Bytes(), want) {
		t.Errorf("WriteSingleFile: %v; equal to SingleFile: %v", err, bytes.Equal(got.Bytes(), want))
	}
	err = WriteSingleFile(io.Discard, testAssets(t), func(w io.Writer) error {
		_, err := io.WriteString(w, `{"files":{"x":"</script>"}}`)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "HTML-safe") {
		t.Errorf("a bundle holding </script>: %v", err)
	}
}
