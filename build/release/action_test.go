package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// TestActionInstall runs the GitHub Action's install step
// (action/install.sh) offline against a file:// folder laid out like a
// GitHub release (<url>/v<version>/<file>) holding a copy of the shared
// release (this builder's): it downloads the runner's archive and
// SHA256SUMS, checks the sum, unpacks and puts kontext on GITHUB_PATH; a
// tampered archive, a version that is no release tag and a missing archive
// are refused with one clear error.
func TestActionInstall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("install.sh runs under bash on Unix runners here")
	}
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dist := sharedRelease(t)
	releases := t.TempDir()
	if err := os.CopyFS(filepath.Join(releases, "v1.2.3"), os.DirFS(dist)); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(testrepo.Root(), "action", "install.sh")
	install := func(env ...string) (string, string, error) {
		tmp := t.TempDir()
		ghPath := filepath.Join(tmp, "github_path")
		cmd := exec.Command("bash", script)
		cmd.Env = append(os.Environ(), "RUNNER_TEMP="+tmp, "GITHUB_PATH="+ghPath, "KONTEXT_RELEASES=file://"+releases,
			"KONTEXT_VERSION=", "GITHUB_ACTION_PATH=", "RUNNER_OS=", "RUNNER_ARCH=", "KONTEXT_INSTALL_DIR=")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		p, _ := os.ReadFile(ghPath)
		return string(out), strings.TrimSpace(string(p)), err
	}

	for name, env := range map[string][]string{
		"version input":      {"KONTEXT_VERSION=v1.2.3"},
		"the action's tag":   {"GITHUB_ACTION_PATH=/home/runner/work/_actions/kontext/kontext/v1.2.3"},
		"runner OS and arch": {"KONTEXT_VERSION=1.2.3", "RUNNER_OS=" + map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS], "RUNNER_ARCH=" + map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]},
	} {
		out, dir, err := install(env...)
		if err != nil {
			t.Fatalf("%s: install: %v\n%s", name, err, out)
		}
		if dir == "" {
			t.Fatalf("%s: nothing written to GITHUB_PATH\n%s", name, out)
		}
		got, err := exec.Command(filepath.Join(dir, "kontext"), "--version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(got), "kontext 1.2.3 ") {
			t.Errorf("%s: installed kontext --version: %q, %v", name, got, err)
		}
	}

	// A version that is no release tag (uses: ./, a branch).
	if out, _, err := install("GITHUB_ACTION_PATH=/home/runner/work/app/app"); err == nil || !strings.Contains(out, "version input") {
		t.Errorf("no version: %v\n%s", err, out)
	}
	// A release without this version.
	if out, _, err := install("KONTEXT_VERSION=9.9.9"); err == nil || !strings.Contains(out, "could not download") {
		t.Errorf("missing release: %v\n%s", err, out)
	}
	// A tampered archive: the sum does not match, nothing is installed.
	archive := filepath.Join(releases, "v1.2.3", "kontext_1.2.3_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz")
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(archive, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, dir, err := install("KONTEXT_VERSION=1.2.3")
	if err == nil || !strings.Contains(out, "SHA256SUMS says") || dir != "" {
		t.Errorf("tampered archive: %v, GITHUB_PATH %q\n%s", err, dir, out)
	}
}
