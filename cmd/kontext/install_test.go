package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

const modulePath = "github.com/kontext/kontext"

// safeModuleFile is a conservative subset of the file names a module zip
// may hold (module.CheckFilePath is stricter about some characters).
var safeModuleFile = regexp.MustCompile(`^[A-Za-z0-9._+~/-]+$`)

// moduleProxy writes a file module proxy (GOPROXY=file://…) serving this
// checkout as modulePath@version: the files git tracks (or would track) in
// the working tree, without nested modules, zipped as the go command
// expects.
func moduleProxy(t *testing.T, version string) string {
	t.Helper()
	root := testrepo.Root()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var nested []string // directories holding their own go.mod
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	for _, f := range files {
		if strings.HasSuffix(f, "/go.mod") {
			nested = append(nested, strings.TrimSuffix(f, "go.mod"))
		}
	}
	proxy := t.TempDir()
	dir := filepath.Join(proxy, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	zf, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	n := 0
files:
	for _, f := range files {
		if f == "" || !safeModuleFile.MatchString(f) || strings.HasPrefix(f, "node_modules/") {
			continue
		}
		for _, d := range nested {
			if strings.HasPrefix(f, d) {
				continue files
			}
		}
		info, err := os.Lstat(filepath.Join(root, f))
		if err != nil || !info.Mode().IsRegular() { // deleted in the worktree, or a symlink
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		// Stored, not deflated: the go command reads either, and
		// compressing the checkout is most of this test's own work.
		w, err := zw.CreateHeader(&zip.FileHeader{Name: modulePath + "@" + version + "/" + f, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": version, "Time": "2026-12-01T00:00:00Z"})
	for name, data := range map[string][]byte{"list": []byte(version + "\n"), version + ".mod": gomod, version + ".info": info} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("module proxy: %d files in %s@%s", n, modulePath, version)
	return proxy
}

// TestGoInstallOffline installs cmd/kontext the way a user does — `go
// install github.com/kontext/kontext/cmd/kontext@<version>` — from a file
// module proxy (this checkout zipped, dependencies from the module cache),
// with no network, and checks the result is the whole product: the version
// comes from the build info and `review --out` writes a working console.
func TestGoInstallOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kontext from a module proxy")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed")
	}
	const version = "v0.17.0"
	proxy := moduleProxy(t, version)
	modcache := strings.TrimSpace(runProg(t, "", nil, goBin, "env", "GOMODCACHE"))
	tmp := t.TempDir()
	gobin := filepath.Join(tmp, "bin")
	// -trimpath: the fresh module cache's directory is not part of what
	// the compiler is given, so the dependencies' packages compiled by
	// earlier builds (make's, static with -trimpath) are reused from the
	// build cache instead of all being compiled again.
	env := append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(modcache, "cache", "download")),
		"GOFLAGS=-mod=mod -trimpath", "GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=", "GONOPROXY=", "GOTOOLCHAIN=local",
		"GOMODCACHE="+filepath.Join(tmp, "modcache"), "GOBIN="+gobin, "CGO_ENABLED=0",
	)
	runProg(t, tmp, env, goBin, "install", modulePath+"/cmd/kontext@"+version)
	// go makes the fresh module cache read-only; empty it (with this env,
	// so only the temporary cache) before TempDir removes it.
	t.Cleanup(func() {
		c := exec.Command(goBin, "clean", "-modcache")
		c.Env = env
		c.Run()
	})

	bin := filepath.Join(gobin, "kontext")
	var vi versionInfo
	if err := json.Unmarshal([]byte(runProg(t, "", nil, bin, "version", "--json")), &vi); err != nil {
		t.Fatal(err)
	}
	if vi.Version != strings.TrimPrefix(version, "v") || vi.License != License {
		t.Errorf("installed kontext version %q license %q, want %q and %q", vi.Version, vi.License, version[1:], License)
	}

	repo := testrepo.Demo(t)
	out := filepath.Join(tmp, "review.html")
	runProg(t, "", nil, bin, "-C", repo, "review", "--out", out)
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(html) < 1<<20 || strings.Contains(string(html), "not built into this binary") {
		t.Fatalf("review --out from the installed binary is not the console (%d bytes)", len(html))
	}
	for _, want := range []string{"2026-04-14-nightly-export-is-a-cronjob", "kontext.bundle/v", "__KONTEXT_WASM_GZ_B64__", "<script type=\"module\">"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("review.html lacks %q", want)
		}
	}
}

// runProg runs a program and returns its stdout; a failure ends the test.
func runProg(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}
