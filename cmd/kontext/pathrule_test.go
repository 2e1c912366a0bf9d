package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/internal/mcpserver"
	"github.com/kontext/kontext/internal/testrepo"
	"github.com/kontext/kontext/native"
)

// TestOnePathRule: every native surface normalises a requested path by
// the one rule (engine/internal/repopath). A relative path, its
// "./"-prefixed and uncleaned spellings and its absolute path inside the
// root give byte-identical answers, and a path that climbs out with ".."
// or lies outside the root is refused with the same error.code, on
// `kontext api`, `kontext governing` (arguments), the engine's Do and the
// MCP server's ctx_governing; and on the three doors of context.brief,
// which echoes the paths it was given. (The in-memory engine of the WASM
// and edge surfaces: engine's TestPathRuleInMemory.)
func TestOnePathRule(t *testing.T) {
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:00:00Z")
	demo := testrepo.Demo(t)
	ctx := context.Background()

	cli := func(args ...string) (string, string) {
		var out, errb bytes.Buffer
		run(ctx, append([]string{"-C", demo}, args...), Streams(strings.NewReader(""), &out, &errb))
		return out.String(), errb.String()
	}
	e, err := native.OpenWith(demo, native.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(demo).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()

	tool := func(name, p string) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"paths": []string{p}}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		return res.Content[0].(*mcp.TextContent).Text + "\n" + string(b)
	}
	input := func(p string) string {
		b, _ := json.Marshal(map[string]any{"paths": []string{p}})
		return string(b)
	}
	surfaces := []struct {
		name string
		ask  func(p string) string // the answer's bytes (an error: its envelope)
	}{
		{"kontext api", func(p string) string { out, _ := cli("api", "entries.governing", input(p)); return out }},
		{"kontext governing", func(p string) string {
			out, errb := cli("governing", "--json", p)
			return out + errb
		}},
		{"engine Do", func(p string) string {
			res, err := e.Do(ctx, "entries.governing", []byte(input(p)))
			if err != nil {
				return string(engine.ErrorEnvelope(err))
			}
			return string(engine.ResultEnvelope(res))
		}},
		{"MCP ctx_governing", func(p string) string { return tool("ctx_governing", p) }},
		// context.brief echoes the paths it was given: normalised too.
		{"kontext api context.brief", func(p string) string { out, _ := cli("api", "context.brief", input(p)); return out }},
		{"kontext brief", func(p string) string {
			out, errb := cli("brief", "--json", p)
			return out + errb
		}},
		{"MCP ctx_brief", func(p string) string { return tool("ctx_brief", p) }},
	}
	code := func(answer string) string {
		var env struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		// The envelope is the answer's last line (MCP: the structured content).
		lines := strings.Split(strings.TrimSpace(answer), "\n")
		_ = json.Unmarshal([]byte(lines[len(lines)-1]), &env)
		return env.Error.Code
	}
	// The JSON surfaces answer the same bytes as each other too.
	if api, do := surfaces[0].ask("./src/billing/tax/vat.go"), surfaces[2].ask("src/billing/tax/vat.go"); api != do+"\n" {
		t.Errorf("kontext api and the engine's Do differ:\n%s\n%s", api, do)
	}
	for _, s := range surfaces {
		want := s.ask("src/billing/tax/vat.go")
		if code(want) != "" || !strings.Contains(want, "vat") {
			t.Fatalf("%s: src/billing/tax/vat.go: %s", s.name, want)
		}
		// Absolute paths inside the root resolve on the native surfaces.
		for _, p := range []string{"./src/billing/tax/vat.go", "src//billing/./tax/vat.go", "./src/../src/billing/tax/vat.go", filepath.Join(demo, "src", "billing", "tax", "vat.go")} {
			if got := s.ask(p); got != want {
				t.Errorf("%s: %q answered other bytes than the relative path:\n%s\nwant\n%s", s.name, p, got, want)
			}
		}
		for _, p := range []string{"../x.go", "src/../../x.go", "./../../etc/passwd", "/etc/passwd"} {
			if got := s.ask(p); code(got) != "invalid_input" {
				t.Errorf("%s: %q: error.code %q, want invalid_input:\n%s", s.name, p, code(got), got)
			}
		}
	}
}
