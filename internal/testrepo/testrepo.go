// Package testrepo owns the test fixtures shared by kontext's test suites:
// a hermetic git environment, real temporary repositories, the demo
// repository, and golden-file comparison. Only tests import it.
package testrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Now is the fixed clock (KONTEXT_NOW) of every golden file.
const Now = "2026-11-30T12:00:00Z"

// Root is the repository root of kontext itself.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Env makes git hermetic and deterministic for the test: no global or
// system config, a fixed identity and date, and the fixed kontext clock.
func Env(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "Test Author", "GIT_AUTHOR_EMAIL": "author@example.com",
		"GIT_COMMITTER_NAME": "Test Author", "GIT_COMMITTER_EMAIL": "author@example.com",
		"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
		"KONTEXT_NOW": Now,
	} {
		t.Setenv(k, v)
	}
}

// Git runs git in dir and returns its trimmed output; a failure ends the
// test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Demo builds the demo repository (build/demo-repo.sh: fixed history, so
// fixed commit ids) in a fresh temporary directory, with Env applied. In a
// package whose TestMain runs its tests through M, the repository is built
// once and each call gets a copy of it.
func Demo(t testing.TB) string {
	t.Helper()
	Env(t)
	dir := filepath.Join(t.TempDir(), "demo")
	if err := DemoAt(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// DemoAt writes the demo repository at dir, which must not exist yet: a
// copy of the one built for the test binary under M, else a fresh build.
func DemoAt(dir string) error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.on {
		return buildDemo(dir)
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the demo repository needs a new or empty directory: %w", err)
	}
	if shared.demo == "" {
		tmp, err := sharedTemp()
		if err != nil {
			return err
		}
		if err := buildDemo(filepath.Join(tmp, "demo")); err != nil {
			return err
		}
		shared.demo = filepath.Join(tmp, "demo")
	}
	if out, err := exec.Command("cp", "-a", shared.demo, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("copying the demo repository: %v\n%s", err, out)
	}
	return nil
}

func buildDemo(dir string) error {
	cmd := exec.Command("bash", filepath.Join(Root(), "build", "demo-repo.sh"), dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("demo-repo.sh: %v\n%s", err, out)
	}
	return nil
}

// SharedDir returns a new empty directory for a fixture that the tests of
// the package build once and share (they must not change it): under M it
// outlives the test and is removed after the package's tests, else it is
// the test's own t.TempDir().
func SharedDir(t testing.TB) string {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.on {
		return t.TempDir()
	}
	tmp, err := sharedTemp()
	if err == nil {
		var dir string
		if dir, err = os.MkdirTemp(tmp, "fixture-"); err == nil {
			return dir
		}
	}
	t.Fatal(err)
	return ""
}

// sharedTemp is the directory M removes; shared.mu is held.
func sharedTemp() (string, error) {
	if shared.tmp == "" {
		tmp, err := os.MkdirTemp("", "kontext-test-")
		if err != nil {
			return "", err
		}
		shared.tmp = tmp
	}
	return shared.tmp, nil
}

// shared is what the tests of one binary share under M.
var shared struct {
	mu   sync.Mutex
	on   bool   // M is running the tests
	tmp  string // removed when the tests are done
	demo string // the demo repository built once
}

// TestingM is *testing.M (and what testscript.Main takes).
type TestingM interface{ Run() int }

// M wraps a package's *testing.M for its TestMain — os.Exit(M(m).Run()),
// or testscript.Main(M(m), …) — so the fixtures built once per test
// binary (the demo repository) are shared by its tests and removed after
// them.
func M(m TestingM) TestingM { return sharedM{m} }

type sharedM struct{ m TestingM }

func (s sharedM) Run() int {
	shared.mu.Lock()
	shared.on = true
	shared.mu.Unlock()
	code := s.m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.tmp != "" {
		os.RemoveAll(shared.tmp)
	}
	shared.on, shared.tmp, shared.demo = false, "", ""
	return code
}

// Golden compares got with the golden file at path (relative to Root), or
// rewrites it when update is set. The failure names the first differing
// line and how to regenerate.
func Golden(t testing.TB, path string, got []byte, update bool, regenerate string) {
	t.Helper()
	file := filepath.Join(Root(), path)
	if update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run %s)", err, regenerate)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (rerun %s if the change is intended):\n%s", path, regenerate, FirstDiff(string(want), string(got)))
	}
}

// FirstDiff describes the first line where want and got differ.
func FirstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "first difference at line " + strconv.Itoa(i+1) + ":\n- " + a + "\n+ " + b
		}
	}
	return ""
}

// Write writes files (repo-relative path → content) below dir, creating
// directories as needed.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
