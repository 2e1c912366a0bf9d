package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
	"github.com/kontext/kontext/native/daemon"
	"github.com/kontext/kontext/native/relay"
)

// TestDaemonAnswersReads: with a daemon running for the repository, the
// server's reads are the daemon's answers, equal to its own, also right
// after an edit; writes stay in the server.
func TestDaemonAnswersReads(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, daemon.Config{Dir: demo, Ready: func(relay.Info) { close(ready) }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("daemon: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("daemon: %v", err)
	}
	gitDir := relay.FindGitDir(demo)
	served := func() int64 {
		info, err := daemon.Status(gitDir)
		if err != nil {
			t.Fatal(err)
		}
		return info.Requests
	}
	cs := inMemory(t, demo)
	gov := map[string]any{"paths": []string{"src/billing/tax/vat.go"}}
	get := map[string]any{"operation": "entries.get", "input": map[string]any{"id": "2026-01-14-vat-is-rounded-per-line"}}
	both := func(name string, args any) string {
		t.Helper()
		t.Setenv("KONTEXT_DAEMON", "off")
		local, _ := call(t, cs, name, args)
		t.Setenv("KONTEXT_DAEMON", "")
		before := served()
		via, _ := call(t, cs, name, args)
		if via != local {
			t.Fatalf("%s: the daemon answered\n%s\nthe server\n%s", name, via, local)
		}
		if served() != before+1 {
			t.Fatalf("%s: the daemon did not answer", name)
		}
		return via
	}
	both("ctx_governing", gov)
	both("ctx_api", get)
	file := filepath.Join(demo, ".ai", "decisions", "2026-01-14-vat-is-rounded-per-line.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), "# VAT is rounded per line", "# VAT is rounded per invoice line", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := both("ctx_api", get); !strings.Contains(got, "VAT is rounded per invoice line") {
		t.Fatalf("the edit is not in the answer: %s", got)
	}
	// A write is the server's own.
	before := served()
	stage := map[string]any{"operation": "drafts.stage", "input": map[string]any{"operation_id": "mcp-daemon-1",
		"entry": map[string]any{"kind": "learning", "title": "Staged by MCP", "body": "x", "paths": []string{"src/**"}}}}
	if text, env := call(t, cs, "ctx_api", stage); env["ok"] != true {
		t.Fatalf("stage: %s", text)
	}
	if served() != before {
		t.Fatal("the daemon answered a write")
	}
	list := map[string]any{"operation": "entries.list", "input": map[string]any{"limit": 100}}
	if got := both("ctx_api", list); !strings.Contains(got, "Staged by MCP") {
		t.Fatalf("the staged entry is not listed: %s", got)
	}
}
