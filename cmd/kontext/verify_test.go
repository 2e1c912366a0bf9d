package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

func verifyCLIRepo(t *testing.T) string {
	t.Helper()
	testrepo.Env(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	testrepo.Git(t, dir, "init", "-q", "-b", "main")
	testrepo.Write(t, dir, map[string]string{
		".ai/conventions/v.md": "---\nstatus: active\nverify: sh ./check.sh\n---\n# V\n\nBody.\n",
		"check.sh":             "echo checked\nexit 4\n",
	})
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

func TestTrustRefusesWithoutTerminal(t *testing.T) {
	dir := verifyCLIRepo(t)
	var stdout, stderr bytes.Buffer
	code := runCommand(context.Background(), &factory{dir: dir, io: Streams(strings.NewReader("y\n"), &stdout, &stderr)}, "trust", []string{"--verify", "v"})
	if code != exitUsage || !strings.Contains(stderr.String(), "terminal") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "kontext", "trust.toml")); err == nil {
		t.Fatal("trust.toml was written without a terminal")
	}
	// Unpinned, verify runs nothing and says how to pin.
	stdout.Reset()
	stderr.Reset()
	code = runCommand(context.Background(), &factory{dir: dir, io: Streams(nil, &stdout, &stderr)}, "verify", []string{"v"})
	if code == exitOK || !strings.Contains(stderr.String(), "sh ./check.sh") || !strings.Contains(stderr.String(), "kontext trust --verify v") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

func TestTrustAndVerifyFromATerminal(t *testing.T) {
	dir := verifyCLIRepo(t)
	old := stdinTerminal
	stdinTerminal = func(io.Reader) bool { return true }
	defer func() { stdinTerminal = old }()
	var stdout, stderr bytes.Buffer
	// "n" pins nothing.
	code := runCommand(context.Background(), &factory{dir: dir, io: Streams(strings.NewReader("n\n"), &stdout, &stderr)}, "trust", []string{"--verify", "v"})
	trust := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "kontext", "trust.toml")
	if _, err := os.Stat(trust); code != exitOK || err == nil {
		t.Fatalf("exit %d, stderr %q, pinned on n", code, stderr.String())
	}
	code = runCommand(context.Background(), &factory{dir: dir, io: Streams(strings.NewReader("y\n"), &stdout, &stderr)}, "trust", []string{"--verify", "v"})
	if code != exitOK || !strings.Contains(stdout.String(), "sh ./check.sh") || !strings.Contains(stdout.String(), "Pin this command for v in ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(trust)
	if err != nil || !strings.Contains(string(data), "[[verify]]") || !strings.Contains(string(data), "sh ./check.sh") {
		t.Fatalf("trust.toml %q %v", data, err)
	}
	stdout.Reset()
	code = runCommand(context.Background(), &factory{dir: dir, io: Streams(nil, &stdout, &stderr)}, "verify", []string{"v"})
	if code != exitVerifyFailed || !strings.Contains(stdout.String(), "exit code 4") || !strings.Contains(stdout.String(), "checked") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	code = runCommand(context.Background(), &factory{dir: dir, json: true, io: Streams(nil, &stdout, &stderr)}, "verify", []string{"v"})
	var res map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || code != exitVerifyFailed || res["exit_code"] != 4.0 || res["ran"] != true {
		t.Fatalf("exit %d, json %s", code, stdout.String())
	}
}
