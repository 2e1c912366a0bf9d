package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kontext/kontext/internal/testrepo"
)

// TestAnswersBeforeEOF: requests piped in and then the end of input (as
// `printf '…' | kontext mcp` does) are all answered before the server
// returns, with no error. Serve used to hand the end of input to the SDK
// at once, which ended the session and dropped answers still being
// prepared (modelcontextprotocol/go-sdk#1061); it gave 0 or 1 of the 2.
func TestAnswersBeforeEOF(t *testing.T) {
	demo := testrepo.Demo(t)
	t.Setenv("KONTEXT_NOW", testNow)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ctx_governing","arguments":{"paths":["src/billing/tax/vat.go"]}}}`,
	}, "\n") + "\n"
	for round := 0; round < 10; round++ {
		for _, n := range []int{3, 4} { // initialize, initialized, tools/list [, tools/call]
			lines := strings.SplitAfter(in, "\n")[:n]
			pr, pw := io.Pipe()
			go func() {
				for _, l := range lines {
					io.WriteString(pw, l)
				}
				pw.Close() // stdin closed right after the last request
			}()
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() { done <- Serve(context.Background(), demo, pr, &out) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("round %d: Serve: %v", round, err)
				}
			case <-time.After(2 * time.Minute): // a hang guard, not a timing assertion
				t.Fatalf("round %d: Serve did not return after the end of input", round)
			}
			ids := map[float64]bool{}
			sc := bufio.NewScanner(&out)
			sc.Buffer(nil, 8<<20)
			for sc.Scan() {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatalf("not JSON: %s", sc.Text())
				}
				if m["error"] != nil {
					t.Errorf("round %d: an error answer: %v", round, m)
				}
				id, _ := m["id"].(float64)
				ids[id] = true
			}
			want := map[int][]float64{3: {1, 2}, 4: {1, 2, 3}}[n]
			if len(ids) != len(want) {
				t.Fatalf("round %d, %d messages in: answers to %v, want %v", round, n, ids, want)
			}
			for _, id := range want {
				if !ids[id] {
					t.Fatalf("round %d, %d messages in: no answer to id %v (got %v)", round, n, id, ids)
				}
			}
		}
	}
}
