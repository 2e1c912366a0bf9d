package mcptools_test

import (
	"bufio"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext/kontext/internal/mcpserver"
	"github.com/kontext/kontext/internal/mcptools"
	"github.com/kontext/kontext/internal/testrepo"
	"github.com/kontext/kontext/native"
)

// TestHandleEqualsTheSDKServer: Handle (the edge's stateless answers)
// writes byte for byte what the CLI's server on the SDK writes for the
// same requests on the same repository: initialize (each protocol
// version), ping, tools/list, tools/call of each tool with good and bad
// arguments, an unknown tool and an unknown method, the empty resource and
// prompt lists, logging/setLevel.
func TestHandleEqualsTheSDKServer(t *testing.T) {
	demo := testrepo.Demo(t)
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:00:00Z")
	frames := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ctx_governing","arguments":{"paths":["src/billing/tax/vat.go"]}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ctx_governing","arguments":{"paths":["src/billing/tax/vat.go","web/app.ts"],"detail":true,"limit":2}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ctx_governing","arguments":{"paths":"x"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ctx_api","arguments":{"operation":"entries.search","input":{"query":"<tax> & vat"}}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ctx_api","arguments":{"operation":"entries.get","input":{"id":"nope"}}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ctx_brief","arguments":{"paths":["src/billing/tax/vat.go"],"budget_lines":40}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":11,"method":"foo/bar"}`,
		`{"jsonrpc":"2.0","id":13,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":14,"method":"resources/templates/list"}`,
		`{"jsonrpc":"2.0","id":15,"method":"prompts/list"}`,
		`{"jsonrpc":"2.0","id":16,"method":"logging/setLevel","params":{"level":"info"}}`,
		`{"jsonrpc":"2.0","id":12,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
	}
	// The SDK's server: one session per frame pair (initialize first, as
	// a client does), so a second initialize is not a duplicate.
	sdk := func(frame string) string {
		in := frames[0] + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
		if !strings.Contains(frame, `"initialize"`) {
			in += frame + "\n"
		} else {
			in = frame + "\n"
		}
		var out strings.Builder
		if err := mcpserver.Serve(context.Background(), demo, strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		lines := []string{}
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		return lines[len(lines)-1]
	}
	e, err := native.OpenWith(demo, native.Options{Application: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	ops := e.Operations()
	serves := func(op string) bool { return slices.Contains(ops, op) }
	run := func(op string, input []byte) []byte { return e.Request(context.Background(), op, input) }
	for _, f := range frames {
		want := sdk(f)
		got := string(mcptools.Handle([]byte(f), serves, run))
		if got != want {
			i := 0
			for i < len(want) && i < len(got) && want[i] == got[i] {
				i++
			}
			from := max(0, i-200)
			t.Errorf("%s: differs at byte %d\n  SDK:    …%.400s\n  Handle: …%.400s", f, i, want[from:], got[from:])
		}
	}
}

// TestHandleFraming: what is not one request: a notification and a
// response have no answer; not JSON is a parse error, a batch or a
// frame without jsonrpc 2.0 or method an invalid request, with id null.
func TestHandleFraming(t *testing.T) {
	never := func(string) bool { return false }
	none := func(string, []byte) []byte { t.Fatal("no request expected"); return nil }
	for frame, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`: "",
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                   "",
		`{"jsonrpc":"2.0","id":1,`:                               `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the body is not one JSON document"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`:             `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: send one JSON-RPC object (batches are not part of MCP)"}}`,
		`{"id":1,"method":"ping"}`:                               `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: jsonrpc must be \"2.0\""}}`,
		`{"jsonrpc":"2.0","id":1}`:                               `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: no method"}}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`:              `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string or a number"}}`,
	} {
		if got := string(mcptools.Handle([]byte(frame), never, none)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", frame, got, want)
		}
	}
}

// TestProtocolVersionsAreTheSDKs: Serve negotiates the revisions the
// CLI's server does.
func TestProtocolVersionsAreTheSDKs(t *testing.T) {
	if got, want := mcptools.ProtocolVersions, mcp.SupportedProtocolVersions(); !slices.Equal(got, want) {
		t.Errorf("ProtocolVersions = %v, the SDK's %v: update mcptools.ProtocolVersions", got, want)
	}
}
