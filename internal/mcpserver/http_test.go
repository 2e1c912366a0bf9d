package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext/kontext/internal/benchcorpus"
	"github.com/kontext/kontext/internal/httpserver"
	"github.com/kontext/kontext/internal/testrepo"
)

// hangGuard bounds a wait that must end; it is not a timing assertion.
const hangGuard = 2 * time.Minute

// served is an HTTP MCP server of the tests: the real handler on a
// loopback listener, through httpserver.Run (as `kontext mcp --http`).
type served struct {
	url, host string
	stop      context.CancelFunc
	done      chan error
}

// serveHTTP serves NewHTTPHandler(dir, o) on 127.0.0.1:0 until the test ends;
// o.Loopback is set from the listener unless notLoopback.
func serveHTTP(t *testing.T, dir string, o HTTPOptions, notLoopback bool) *served {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o.Loopback = IsLoopback(ln) && !notLoopback
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{url: "http://" + ln.Addr().String() + Path, host: ln.Addr().String(), stop: cancel, done: make(chan error, 1)}
	go func() { s.done <- httpserver.Run(ctx, ln, NewHTTPHandler(dir, o), hangGuard) }()
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	return s
}

const (
	initializeLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	pingLine        = `{"jsonrpc":"2.0","id":7,"method":"ping"}`
)

func governingCall(id int, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "ctx_governing", "arguments": args}})
	return string(b)
}

// post sends one JSON-RPC body to url with the headers a Streamable HTTP
// client sends, plus extra (a value "" deletes a header).
func post(t *testing.T, c *http.Client, url, body string, extra map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range extra {
		if k == "Host" {
			req.Host = v
		} else if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// rpcResult is the raw "result" of one JSON-RPC answer (nil for an error).
func rpcResult(t *testing.T, msg []byte) json.RawMessage {
	t.Helper()
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatalf("not a JSON-RPC answer: %v\n%s", err, msg)
	}
	if m.Error != nil {
		t.Fatalf("a JSON-RPC error: %s", msg)
	}
	return m.Result
}

// stdioResults sends calls (after the handshake) to the stdio server
// (Serve, as `kontext mcp`) and returns each call's raw result, by id.
func stdioResults(t *testing.T, dir string, calls []string) map[int]json.RawMessage {
	t.Helper()
	in := initializeLine + "\n" + initializedLine + "\n" + strings.Join(calls, "\n") + "\n"
	var out bytes.Buffer
	if err := Serve(context.Background(), dir, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := map[int]json.RawMessage{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		var m struct {
			ID int `json:"id"`
		}
		json.Unmarshal(sc.Bytes(), &m)
		got[m.ID] = rpcResult(t, sc.Bytes())
	}
	return got
}

// TestHTTPSameAsStdio: ctx_governing over HTTP answers byte for byte what
// the stdio server answers, on the demo and on a 1,000-entry repository,
// for a raw HTTP client and for the SDK's Streamable HTTP client.
func TestHTTPSameAsStdio(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	big := filepath.Join(t.TempDir(), "big")
	bigPath, err := benchcorpus.Repo(big, 1000)
	if err != nil {
		t.Fatal(err)
	}
	_, bigPaths := benchcorpus.Governing(1000)
	for _, c := range []struct {
		name, dir string
		args      []map[string]any
	}{
		{"demo", testrepo.Demo(t), []map[string]any{
			{"paths": []string{"src/billing/tax/vat.go"}},
			{"paths": []string{"src/billing/tax/vat.go"}, "detail": true},
			{"paths": []string{"src/billing/invoice.go", "src/api/handlers.go"}, "limit": 2},
			{"paths": []string{"../outside"}}, // an error answer
		}},
		{"1000", big, []map[string]any{
			{"paths": []string{bigPath}},
			{"paths": bigPaths[:20], "detail": true},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls []string
			for i, a := range c.args {
				calls = append(calls, governingCall(10+i, a))
			}
			want := stdioResults(t, c.dir, calls)
			s := serveHTTP(t, c.dir, HTTPOptions{}, false)

			// A raw client: one POST per call, no handshake (sessionless).
			for i, call := range calls {
				resp, body := post(t, http.DefaultClient, s.url, call, nil)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("call %d: %d %s", i, resp.StatusCode, body)
				}
				if got := rpcResult(t, body); !bytes.Equal(got, want[10+i]) {
					t.Fatalf("call %d: HTTP answered\n%s\nstdio answered\n%s", i, got, want[10+i])
				}
			}

			// The SDK's client, over HTTP and over stdio: the same results.
			overHTTP := sdkClient(t, &mcp.StreamableClientTransport{Endpoint: s.url})
			if id := overHTTP.ID(); id != "" {
				t.Errorf("the server set a session id %q; it is sessionless", id)
			}
			overStdio := sdkClient(t, stdioTransport(t, c.dir))
			for i, a := range c.args {
				got, want := sdkCall(t, overHTTP, a), sdkCall(t, overStdio, a)
				if !bytes.Equal(got, want) {
					t.Fatalf("call %d: the SDK client got over HTTP\n%s\nover stdio\n%s", i, got, want)
				}
			}
		})
	}
}

func sdkClient(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// sdkCall is ctx_governing's result as the SDK's client decodes it, encoded.
func sdkCall(t *testing.T, cs *mcp.ClientSession, args map[string]any) []byte {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ctx_governing", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stdioTransport connects a client to Serve (the stdio server of `kontext
// mcp`) over pipes.
func stdioTransport(t *testing.T, dir string) mcp.Transport {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), dir, inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return &mcp.IOTransport{Reader: outR, Writer: inW}
}

// TestHTTPBadInput: each bad request gets its documented status, and the
// server answers a good request right after it.
func TestHTTPBadInput(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	const token = "a-long-random-token-for-the-test"
	s := serveHTTP(t, demo, HTTPOptions{Token: token}, false)
	auth := "Bearer " + token
	c := &http.Client{}
	call := governingCall(3, map[string]any{"paths": []string{"src/billing/tax/vat.go"}})
	_, port, _ := net.SplitHostPort(s.host)
	for _, tc := range []struct {
		name   string
		method string
		body   string
		chunk  bool // send the body without Content-Length
		hdr    map[string]string
		status int
		check  func(t *testing.T, resp *http.Response, body []byte)
	}{
		{name: "foreign Host", body: pingLine, hdr: map[string]string{"Host": "evil.example.com", "Authorization": auth}, status: 403},
		{name: "foreign Host with the port", body: pingLine, hdr: map[string]string{"Host": "evil.example.com:" + port, "Authorization": auth}, status: 403},
		{name: "foreign Origin", body: pingLine, hdr: map[string]string{"Origin": "http://evil.example.com", "Authorization": auth}, status: 403},
		{name: "Origin null", body: pingLine, hdr: map[string]string{"Origin": "null", "Authorization": auth}, status: 403},
		{name: "Origin of a local page", body: pingLine, hdr: map[string]string{"Origin": "http://localhost:6274", "Authorization": auth}, status: 200},
		{name: "Host localhost", body: pingLine, hdr: map[string]string{"Host": "localhost:" + port, "Authorization": auth}, status: 200},
		{name: "no token", body: pingLine, status: 401, check: func(t *testing.T, resp *http.Response, _ []byte) {
			if resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("a 401 without WWW-Authenticate")
			}
		}},
		{name: "wrong token", body: pingLine, hdr: map[string]string{"Authorization": "Bearer not-the-token"}, status: 401},
		{name: "token as Basic", body: pingLine, hdr: map[string]string{"Authorization": "Basic " + token}, status: 401},
		{name: "body over the limit", body: `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"pad":"` + strings.Repeat("x", MaxBody) + `"}}`, hdr: map[string]string{"Authorization": auth}, status: 413},
		{name: "chunked body over the limit", chunk: true, body: `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"pad":"` + strings.Repeat("x", MaxBody) + `"}}`, hdr: map[string]string{"Authorization": auth}, status: 413},
		{name: "malformed JSON", body: `{"jsonrpc":"2.0","id":5,`, hdr: map[string]string{"Authorization": auth}, status: 400},
		{name: "not JSON-RPC 2.0", body: `{"id":5,"method":"ping"}`, hdr: map[string]string{"Authorization": auth}, status: 400},
		{name: "a batch under 2025-06-18", body: "[" + pingLine + "]", hdr: map[string]string{"Authorization": auth, "MCP-Protocol-Version": "2025-06-18"}, status: 400},
		{name: "an MCP-Protocol-Version it does not speak", body: pingLine, hdr: map[string]string{"Authorization": auth, "MCP-Protocol-Version": "1999-01-01"}, status: 400},
		{name: "GET", method: http.MethodGet, hdr: map[string]string{"Authorization": auth}, status: 405},
		{name: "stale session id", body: call, hdr: map[string]string{"Authorization": auth, "Mcp-Session-Id": "stale-session-from-yesterday"}, status: 200,
			check: func(t *testing.T, resp *http.Response, body []byte) {
				if v, ok := resp.Header["Mcp-Session-Id"]; ok {
					t.Errorf("the stale session id was answered with Mcp-Session-Id %q", v)
				}
				if !strings.Contains(string(rpcResult(t, body)), "vat-is-rounded-per-line") {
					t.Errorf("the call was not answered: %s", body)
				}
			}},
		{name: "initialize with a stale session id", body: initializeLine, hdr: map[string]string{"Authorization": auth, "Mcp-Session-Id": "stale"}, status: 200,
			check: func(t *testing.T, resp *http.Response, body []byte) {
				if _, ok := resp.Header["Mcp-Session-Id"]; ok {
					t.Error("initialize set Mcp-Session-Id")
				}
				var r mcp.InitializeResult
				if err := json.Unmarshal(rpcResult(t, body), &r); err != nil || r.ServerInfo == nil || r.ServerInfo.Name != "kontext" {
					t.Errorf("initialize: %s", body)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			var rd io.Reader = strings.NewReader(tc.body)
			if tc.chunk {
				rd = io.MultiReader(rd) // no length known: chunked
			}
			req, err := http.NewRequest(method, s.url, rd)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.hdr {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.chunk && resp.Request.ContentLength > 0 {
				t.Fatal("the body was sent with a length")
			}
			if tc.check != nil {
				tc.check(t, resp, body)
			}
			// Still serving.
			resp, body = post(t, c, s.url, call, map[string]string{"Authorization": auth})
			if resp.StatusCode != 200 || !strings.Contains(string(rpcResult(t, body)), "vat-is-rounded-per-line") {
				t.Fatalf("after %s: %d %s", tc.name, resp.StatusCode, body)
			}
		})
	}
}

// TestHTTPOriginNotLoopback: a server on another address answers only its
// own origin (a loopback page is foreign there).
func TestHTTPOriginNotLoopback(t *testing.T) {
	demo := testrepo.Demo(t)
	s := serveHTTP(t, demo, HTTPOptions{Token: "tok"}, true)
	for origin, want := range map[string]int{
		"":                         200,
		"http://" + s.host:         200,
		"http://localhost:6274":    403,
		"https://evil.example.com": 403,
	} {
		resp, body := post(t, http.DefaultClient, s.url, pingLine, map[string]string{"Authorization": "Bearer tok", "Origin": origin})
		if resp.StatusCode != want {
			t.Errorf("Origin %q: %d, want %d: %s", origin, resp.StatusCode, want, body)
		}
	}
}

// held is a request whose headers are sent and whose handler is reading
// its body (the server said 100 Continue): it holds one of the slots
// until finish sends the rest.
type held struct {
	conn net.Conn
	r    *bufio.Reader
	rest string
}

func holdRequest(t *testing.T, s *served, body string) *held {
	t.Helper()
	conn, err := net.Dial("tcp", s.host)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(hangGuard))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", Path, s.host, len(body))
	r := bufio.NewReader(conn)
	status, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(status, " 100 ") {
		t.Fatalf("want 100 Continue (the handler reads the body), got %q", status)
	}
	if _, err := r.ReadString('\n'); err != nil { // the blank line after 100 Continue
		t.Fatal(err)
	}
	return &held{conn: conn, r: r, rest: body}
}

// finish sends the body and returns the answer's status and body.
func (h *held) finish(t *testing.T) (int, []byte) {
	t.Helper()
	defer h.conn.Close()
	if _, err := io.WriteString(h.conn, h.rest); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(h.r, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestHTTPInFlightLimit: with MaxInFlight requests being served, one more
// is 503 with Retry-After; those requests are then answered, and so is the
// next one.
func TestHTTPInFlightLimit(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	s := serveHTTP(t, demo, HTTPOptions{}, false)
	call := governingCall(3, map[string]any{"paths": []string{"src/billing/tax/vat.go"}})
	var hs []*held
	for i := 0; i < MaxInFlight; i++ {
		hs = append(hs, holdRequest(t, s, call))
	}
	resp, body := post(t, http.DefaultClient, s.url, pingLine, nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("request %d: %d (Retry-After %q), want 503 with Retry-After: %s", MaxInFlight+1, resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	for i, h := range hs {
		if code, b := h.finish(t); code != 200 || !strings.Contains(string(b), "vat-is-rounded-per-line") {
			t.Fatalf("held request %d: %d %s", i, code, b)
		}
	}
	if resp, body := post(t, http.DefaultClient, s.url, call, nil); resp.StatusCode != 200 || !strings.Contains(string(body), "vat-is-rounded-per-line") {
		t.Fatalf("after the limit: %d %s", resp.StatusCode, body)
	}
}

// TestHTTPConcurrent: 1,000 concurrent tool calls are each answered
// (the same answer as a lone call) or refused with 503 and Retry-After,
// and the server answers afterwards.
func TestHTTPConcurrent(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	s := serveHTTP(t, demo, HTTPOptions{}, false)
	call := governingCall(3, map[string]any{"paths": []string{"src/billing/tax/vat.go"}})
	_, lone := post(t, http.DefaultClient, s.url, call, nil)
	want := rpcResult(t, lone)
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1000}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	var bad []string
	for i := 0; i < 1000; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(call))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := c.Do(req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				bad = append(bad, err.Error())
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			counts[resp.StatusCode]++
			switch {
			case resp.StatusCode == 200:
				var m struct {
					Result json.RawMessage `json:"result"`
				}
				if json.Unmarshal(b, &m) != nil || !bytes.Equal(m.Result, want) {
					bad = append(bad, "a different answer: "+string(b))
				}
			case resp.StatusCode == 503 && resp.Header.Get("Retry-After") != "":
			default:
				bad = append(bad, fmt.Sprintf("%d (Retry-After %q): %s", resp.StatusCode, resp.Header.Get("Retry-After"), b))
			}
		}()
	}
	wg.Wait()
	if len(bad) > 0 {
		t.Fatalf("%d of 1000 bad, e.g. %s", len(bad), bad[0])
	}
	if counts[200] == 0 {
		t.Fatalf("no request answered: %v", counts)
	}
	t.Logf("statuses: %v", counts)
	if resp, body := post(t, http.DefaultClient, s.url, call, nil); resp.StatusCode != 200 || !bytes.Equal(rpcResult(t, body), want) {
		t.Fatalf("afterwards: %d %s", resp.StatusCode, body)
	}
}

// TestHTTPDrain: stopping the server (SIGINT/SIGTERM in the CLI) refuses
// new connections and answers the request in flight before returning.
func TestHTTPDrain(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	s := serveHTTP(t, demo, HTTPOptions{}, false)
	h := holdRequest(t, s, governingCall(3, map[string]any{"paths": []string{"src/billing/tax/vat.go"}}))
	s.stop()
	deadline := time.Now().Add(hangGuard)
	for {
		conn, err := net.Dial("tcp", s.host)
		if err != nil {
			break // the listener is closed
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("the listener still accepts after the stop")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-s.done:
		t.Fatalf("httpserver.Run returned (%v) with a request in flight", err)
	default:
	}
	if code, b := h.finish(t); code != 200 || !strings.Contains(string(b), "vat-is-rounded-per-line") {
		t.Fatalf("the request in flight: %d %s", code, b)
	}
	if err := <-s.done; err != nil {
		t.Fatalf("httpserver.Run: %v", err)
	}
	s.done <- nil // for the cleanup
}

// TestHTTPSIGTERM: `kontext mcp --http` on SIGTERM answers the request in
// flight, then exits (130, interrupted).
func TestHTTPSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the kontext binary")
	}
	demo := testrepo.Demo(t)
	cmd, _, stdout, stderr := startKontext(t, "-C", demo, "mcp", "--http", "127.0.0.1:0")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL: %v; stderr: %s", err, stderr.String())
	}
	f := strings.Fields(line) // kontext mcp: http://127.0.0.1:PORT/mcp  (Ctrl-C stops)
	if len(f) < 3 || !strings.HasPrefix(f[2], "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	s := &served{url: f[2], host: strings.TrimSuffix(strings.TrimPrefix(f[2], "http://"), Path)}
	h := holdRequest(t, s, governingCall(3, map[string]any{"paths": []string{"src/billing/tax/vat.go"}}))
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, b := h.finish(t); code != 200 || !strings.Contains(string(b), "vat-is-rounded-per-line") {
		t.Fatalf("the request in flight: %d %s", code, b)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130; stderr: %s", err, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}
