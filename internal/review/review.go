// Package review serves the review console of one change: the console page
// (web/), the WASM engine (wasm/) and a knowledge bundle, on a loopback
// listener, or writes all of them into one self-contained HTML file.
//
// The assets are embedded from internal/review/assets/, which holds only a
// placeholder README in git; `make assets` (part of `make build`) copies
// the built console (web/index.html, web/style.css and web/app.js, the one
// ES module build/webbundle bundles from web/src/ and the engine's JS) into
// assets/web/ and wasm/kontext.wasm.gz into assets/engine/.
// KONTEXT_ASSETS=<checkout> serves a checkout's web/ and wasm/ from disk
// instead (development; run make web after editing web/src/).
package review

import (
	"bytes"
	"compress/gzip"
	"context"
	"embed"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

	"github.com/kontext/kontext/engine"
)

//go:embed assets
var embedded embed.FS

// Assets returns the console and engine files: web/<file> (index.html,
// app.js, style.css) and engine/<file> (kontext.wasm.gz or kontext.wasm). With KONTEXT_ASSETS set they are read
// from that checkout's web/ and wasm/ directories.
func Assets() fs.FS {
	if root := os.Getenv("KONTEXT_ASSETS"); root != "" {
		return DiskAssets(root)
	}
	sub, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err) // the directory is always embedded
	}
	return sub
}

// DiskAssets maps web/ and engine/ to a checkout's web/ and wasm/.
func DiskAssets(root string) fs.FS { return diskAssets{os.DirFS(root)} }

type diskAssets struct{ root fs.FS }

func (d diskAssets) Open(name string) (fs.File, error) {
	if rest, ok := strings.CutPrefix(name, "engine/"); ok {
		name = "wasm/" + rest
	} else if !strings.HasPrefix(name, "web/") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return d.root.Open(name)
}

// Missing lists the assets a console needs that assets lacks.
func Missing(assets fs.FS) []string {
	var out []string
	for _, n := range []string{"web/index.html", "web/app.js", "web/style.css"} {
		if _, err := fs.Stat(assets, n); err != nil {
			out = append(out, n)
		}
	}
	if _, err := wasmGz(assets); err != nil {
		out = append(out, "engine/kontext.wasm.gz")
	}
	return out
}

// wasmGz returns the gzip-compressed engine: kontext.wasm.gz, or
// kontext.wasm compressed now.
func wasmGz(assets fs.FS) ([]byte, error) {
	if data, err := fs.ReadFile(assets, "engine/kontext.wasm.gz"); err == nil {
		return data, nil
	}
	raw, err := fs.ReadFile(assets, "engine/kontext.wasm")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Server serves one review console.
type Server struct {
	Assets fs.FS
	// Bundle returns the bundle JSON; it is called for every request of
	// /bundle.json, so the console always sees the current working tree.
	Bundle func(ctx context.Context) ([]byte, error)
}

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".wasm": "application/wasm",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".ico":  "image/x-icon",
	".md":   "text/plain; charset=utf-8",
}

// ServeHTTP answers GET and HEAD of /, /<web file>, /engine/kontext.wasm
// and /bundle.json, for loopback Host headers only (a DNS-rebinding guard).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		http.Error(w, "kontext review answers only on 127.0.0.1 / localhost", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	p := r.URL.Path
	switch {
	case p == "/bundle.json":
		data, err := s.Bundle(r.Context())
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write(engine.ErrorEnvelope(err))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(data)
	case p == "/engine/kontext.wasm":
		s.serveWasm(w, r)
	case p == "/" || p == "/index.html":
		if missing := Missing(s.Assets); len(missing) > 0 {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, missingPage(missing))
			return
		}
		s.serveFile(w, r, "web/index.html")
	default:
		name := strings.TrimPrefix(p, "/")
		if !fs.ValidPath(name) || strings.HasPrefix(name, "engine/") {
			http.NotFound(w, r)
			return
		}
		s.serveFile(w, r, "web/"+name)
	}
}

func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, name string) {
	data, err := fs.ReadFile(s.Assets, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	ct := contentTypes[path.Ext(name)]
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

// serveWasm serves the engine from its gzip copy: as it is with
// Content-Encoding: gzip to clients that accept it, else decompressed.
func (s *Server) serveWasm(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/wasm")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Vary", "Accept-Encoding")
	if raw, err := fs.ReadFile(s.Assets, "engine/kontext.wasm"); err == nil {
		w.Write(raw)
		return
	}
	gz, err := fs.ReadFile(s.Assets, "engine/kontext.wasm.gz")
	if err != nil {
		http.Error(w, "kontext.wasm is not built into this binary: run make build", http.StatusNotFound)
		return
	}
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gz)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		http.Error(w, "kontext.wasm.gz is corrupt", http.StatusInternalServerError)
		return
	}
	io.Copy(w, zr)
}

func acceptsGzip(h string) bool {
	for _, part := range strings.Split(h, ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

func loopbackHost(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func missingPage(missing []string) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>kontext review: console not built</title></head><body>
<h1>The review console is not built into this binary</h1>
<p>This kontext binary was built without the console assets. Missing:</p><ul>`)
	for _, m := range missing {
		b.WriteString("<li><code>" + htmlEscape(m) + "</code></li>")
	}
	b.WriteString(`</ul>
<p>Build it with <code>make build</code> (it builds the WASM engine, bundles the console and copies both into <code>internal/review/assets/</code>), or run from a checkout with <code>KONTEXT_ASSETS=/path/to/kontext</code>.</p>
<p>The bundle is available at <a href="bundle.json">bundle.json</a>.</p>
</body></html>
`)
	return b.String()
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// Serve answers h on ln until ctx is done, then shuts down (waiting at
// most 2 s for open requests).
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
