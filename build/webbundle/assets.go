package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// assetsDir is where internal/review embeds the console from.
const assetsDir = "internal/review/assets"

func goTool() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

func wasmExecJS() (string, error) {
	out, err := exec.Command(goTool(), "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %w", err)
	}
	goroot := strings.TrimSpace(string(out))
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if _, err := os.Stat(filepath.Join(goroot, p)); err == nil {
			return filepath.Join(goroot, p), nil
		}
	}
	return "", fmt.Errorf("wasm_exec.js not found under %s/lib/wasm or misc/wasm", goroot)
}

func writeApp(root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	execJS, err := wasmExecJS()
	if err != nil {
		return err
	}
	app, err := bundle(abs, execJS)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(abs, "web", "app.js"), app, 0o644)
}

// buildWasm builds cmd/wasm the way build/wasm.sh does (-trimpath,
// -buildvcs=false, stripped), so the same sources give the same bytes.
func buildWasm(root string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "kontext-wasm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "kontext.wasm")
	cmd := exec.Command(goTool(), "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", out, "./cmd/wasm")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("building cmd/wasm: %w", err)
	}
	return os.ReadFile(out)
}

func gz(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression) // no name, no time: reproducible
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// buildAssets builds what kontext embeds — web/index.html, web/style.css,
// web/app.js, engine/kontext.wasm.gz (the one engine: the console's and
// the edge worker's) and the edge worker's engine/index.js,
// engine/wasm_exec.js and engine/worker/worker.js — and writes them under
// internal/review/assets/, or with check compares them with the committed
// copies (the engine by its uncompressed bytes). The engine is rewritten
// only when its uncompressed bytes change.
func buildAssets(root string, check bool) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	execJS, err := wasmExecJS()
	if err != nil {
		return err
	}
	app, err := bundle(abs, execJS)
	if err != nil {
		return err
	}
	const engineName = "engine/kontext.wasm.gz"
	engine, err := buildWasm(abs)
	if err != nil {
		return err
	}
	want := map[string][]byte{"web/app.js": app}
	for _, f := range []string{"index.html", "style.css"} {
		data, err := os.ReadFile(filepath.Join(abs, "web", f))
		if err != nil {
			return err
		}
		want["web/"+f] = data
	}
	// The edge worker (kontext edge build) and the engine's JS it imports.
	for name, src := range map[string]string{
		"engine/index.js":         filepath.Join(abs, "wasm", "index.js"),
		"engine/worker/worker.js": filepath.Join(abs, "wasm", "worker", "worker.js"),
		"engine/wasm_exec.js":     execJS,
	} {
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		want[name] = data
	}
	dir := filepath.Join(abs, filepath.FromSlash(assetsDir))
	committed, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(engineName)))
	if err == nil {
		committed, err = gunzip(committed)
	}
	engineFresh := err == nil && bytes.Equal(committed, engine)
	if check {
		var stale []string
		for _, name := range []string{"web/index.html", "web/style.css", "web/app.js", "engine/index.js", "engine/worker/worker.js", "engine/wasm_exec.js"} {
			got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
			if err != nil || !bytes.Equal(got, want[name]) {
				stale = append(stale, name)
			}
		}
		if !engineFresh {
			stale = append(stale, engineName)
		}
		if len(stale) > 0 {
			return fmt.Errorf("%s/ is stale (%s): run make assets and commit the result", assetsDir, strings.Join(stale, ", "))
		}
		return nil
	}
	if !engineFresh {
		if want[engineName], err = gz(engine); err != nil {
			return err
		}
	}
	for name, data := range want {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
