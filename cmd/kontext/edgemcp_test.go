package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext/kontext/internal/edge"
	"github.com/kontext/kontext/internal/mcpserver"
	"github.com/kontext/kontext/internal/testrepo"
)

// readyWriter passes the first line that names a URL to ready.
type readyWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan string
}

var urlRE = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/`)

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if u := urlRE.FindString(w.buf.String()); u != "" && w.ready != nil {
		w.ready <- u
		w.ready = nil
	}
	return len(p), nil
}

// TestEdgeMCPGoClient: the MCP Go SDK's client calls ctx_governing and
// ctx_brief on the edge worker's /mcp (kontext edge serve: local workerd
// over the demo's bundle) and on kontext mcp (the SDK server over the
// repository) and gets the same content blocks and structured content,
// byte for byte; ctx_api's search finds the same entries. (The Node
// client's comparison, and the edge's bad input:
// wasm/worker/test/mcp.test.mjs.)
func TestEdgeMCPGoClient(t *testing.T) {
	if _, err := edge.FindWorkerd(".", os.Getenv); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:00:00Z")
	demo := testrepo.Demo(t)
	bundle := filepath.Join(t.TempDir(), "demo.json")
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"-C", demo, "bundle", "-o", bundle}, Streams(strings.NewReader(""), &bytes.Buffer{}, &errb)); code != 0 {
		t.Fatalf("bundle: exit %d: %s", code, errb.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	out := &readyWriter{ready: make(chan string, 1)}
	var serveErr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"edge", "serve", "--port", "0", "--bundle", bundle}, Streams(strings.NewReader(""), out, &serveErr))
	}()
	defer func() {
		cancel()
		<-done
	}()
	var base string
	select {
	case base = <-out.ready:
	case code := <-done:
		t.Fatalf("edge serve stopped (exit %d): %s", code, serveErr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("edge serve printed no URL: %s", serveErr.String())
	}

	call := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	edgeSession, err := client.Connect(call, &mcp.StreamableClientTransport{Endpoint: base + "mcp"}, nil)
	if err != nil {
		t.Fatalf("connecting to the edge's /mcp: %v", err)
	}
	defer edgeSession.Close()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(demo).Connect(call, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cliSession, err := client.Connect(call, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cliSession.Close(); ss.Wait() }()

	answer := func(s *mcp.ClientSession, tool string, args map[string]any) string {
		res, err := s.CallTool(call, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		b, err := json.Marshal(map[string]any{"content": res.Content, "structured": res.StructuredContent, "isError": res.IsError})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"ctx_governing", map[string]any{"paths": []string{"src/billing/tax/vat.go"}}},
		{"ctx_governing", map[string]any{"paths": []string{"src/billing/tax/vat.go", "docs/none.md"}}},
		{"ctx_governing", map[string]any{"paths": []string{"src/billing/tax/vat.go"}, "client": "cursor"}},
	} {
		got, want := answer(edgeSession, tc.tool, tc.args), answer(cliSession, tc.tool, tc.args)
		if got != want {
			t.Errorf("%s %v: the edge answered\n%s\nkontext mcp answered\n%s", tc.tool, tc.args, got, want)
		}
		if !strings.Contains(want, "vat") {
			t.Errorf("%s %v: no answer about vat: %s", tc.tool, tc.args, want)
		}
	}
	// ctx_api answers whole entries: a bundle has no history (publication
	// "snapshot", no since or landed), so the same entries, in the same
	// order, with the same scores.
	ids := func(s *mcp.ClientSession) string {
		res, err := s.CallTool(call, &mcp.CallToolParams{Name: "ctx_api", Arguments: map[string]any{"operation": "entries.search", "input": map[string]any{"query": "vat"}}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var env struct {
			Result struct {
				Entries []struct {
					ID    string  `json:"id"`
					Score float64 `json:"score"`
				} `json:"entries"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(env.Result.Entries)
		return string(out)
	}
	if got, want := ids(edgeSession), ids(cliSession); got != want || !strings.Contains(want, "vat") {
		t.Errorf("ctx_api entries.search: the edge found %s, kontext mcp %s", got, want)
	}
	tools, err := edgeSession.ListTools(call, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) == 0 {
		t.Fatal("the edge lists no tools")
	}
}
