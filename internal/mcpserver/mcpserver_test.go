package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/kontext/kontext/internal/testrepo"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext/kontext/native"
)

var update = flag.Bool("update", false, "rewrite testdata/mcp/tools.json (the frozen tool surface)")

const testNow = "2026-11-30T12:00:00Z"

// inMemory connects an SDK client to New(dir) over in-memory transports.
func inMemory(t *testing.T, dir string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(dir).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// textTools answer with a text reading in the text block (errors stay JSON).
var textTools = map[string]bool{"ctx_governing": true, "ctx_brief": true}

// call calls a tool and checks the result conventions: one text block that
// is the answer's JSON (a text reading for textTools), structuredContent
// equal to it, isError == !ok. It returns the text and the decoded answer.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	checkOutput(t, name, res)
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T, want text", name, res.Content[0])
	}
	var env map[string]any
	if textTools[name] && !res.IsError {
		// A text reading of the answer, not a second copy of its JSON.
		if json.Valid([]byte(tc.Text)) {
			t.Fatalf("%s: the text block is JSON, want a text reading:\n%s", name, tc.Text)
		}
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		if env["schema_version"] != float64(1) || env["ok"] != true {
			t.Fatalf("%s: structuredContent %s", name, b)
		}
		return tc.Text, env
	}
	if err := json.Unmarshal([]byte(tc.Text), &env); err != nil {
		t.Fatalf("%s: text block is not JSON: %v\n%s", name, err, tc.Text)
	}
	if !reflect.DeepEqual(res.StructuredContent, any(env)) {
		t.Fatalf("%s: structuredContent differs from the text block:\n%#v\n%s", name, res.StructuredContent, tc.Text)
	}
	if env["schema_version"] != float64(1) {
		t.Fatalf("%s: schema_version = %v", name, env["schema_version"])
	}
	if res.IsError != (env["ok"] != true) {
		t.Fatalf("%s: isError = %v with ok = %v", name, res.IsError, env["ok"])
	}
	return tc.Text, env
}

// sameJSON reports whether the decoded answer equals the JSON want.
func sameJSON(t *testing.T, got map[string]any, want []byte) bool {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(got, w)
}

// governingPage is the ctx_governing answer a compact entries.governing
// envelope makes: total, next_cursor, boundaries, and per item id, kind,
// title, status, rule, specificity (paths, review_due when set).
func governingPage(t *testing.T, compact []byte) []byte {
	t.Helper()
	var env struct {
		SchemaVersion int                        `json:"schema_version"`
		OK            bool                       `json:"ok"`
		Result        map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(compact, &env); err != nil || !env.OK {
		t.Fatalf("not a compact answer: %s", compact)
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(env.Result["items"], &items); err != nil {
		t.Fatal(err)
	}
	page := map[string]any{"total": env.Result["total"]}
	for _, k := range []string{"next_cursor", "boundaries"} {
		if v, ok := env.Result[k]; ok {
			page[k] = v
		}
	}
	out := []map[string]json.RawMessage{}
	for _, it := range items {
		short := map[string]json.RawMessage{}
		for _, k := range []string{"id", "kind", "title", "status", "rule", "specificity", "paths", "review_due"} {
			if v, ok := it[k]; ok {
				short[k] = v
			}
		}
		out = append(out, short)
	}
	page["items"] = out
	return mustJSON(map[string]any{"schema_version": env.SchemaVersion, "ok": true, "result": page})
}

func errCode(env map[string]any) string {
	e, _ := env["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// exercise runs the shared contract checks against a connected client.
func exercise(t *testing.T, cs *mcp.ClientSession, demo string) {
	ctx := context.Background()

	// The tool surface is frozen.
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, lt.Tools)

	// ctx_api status.
	_, env := call(t, cs, "ctx_api", map[string]any{"operation": "status"})
	if env["ok"] != true {
		t.Fatalf("status: %v", env)
	}

	// ctx_api entries.governing is native.Request byte for byte.
	input := `{"paths":["src/billing/tax/vat.go"]}`
	want := string(native.Request(ctx, demo, "entries.governing", []byte(input)))
	text, env := call(t, cs, "ctx_api", map[string]any{"operation": "entries.governing", "input": json.RawMessage(input)})
	if text != want {
		t.Fatalf("ctx_api entries.governing:\n got %s\nwant %s", text, want)
	}
	if env["ok"] != true || !strings.Contains(text, "2026-01-14-vat-is-rounded-per-line") {
		t.Fatalf("entries.governing: %s", text)
	}

	// ctx_api rules.lint: the same answer as the API's.
	wantLint := string(native.Request(ctx, demo, "rules.lint", []byte(`{"client":"cursor"}`)))
	if text, env := call(t, cs, "ctx_api", map[string]any{"operation": "rules.lint", "input": map[string]any{"client": "cursor"}}); text != wantLint || env["ok"] != true {
		t.Fatalf("ctx_api rules.lint:\n got %s\nwant %s", text, wantLint)
	}

	// ctx_governing is the dispatcher's compact, paged answer, each entry
	// as the page's short record (api.GoverningPage).
	wantGov := governingPage(t, native.Request(ctx, demo, "entries.governing", []byte(`{"paths":["src/billing/tax/vat.go"],"view":"compact","limit":10}`)))
	if _, env := call(t, cs, "ctx_governing", map[string]any{"paths": []string{"src/billing/tax/vat.go"}}); !sameJSON(t, env, wantGov) {
		t.Fatalf("ctx_governing:\n got %v\nwant %s", env, wantGov)
	}
	wantMin := native.Request(ctx, demo, "entries.governing", []byte(`{"paths":["src/billing/tax/vat.go"],"min_specificity":3,"view":"full","limit":10}`))
	if _, env := call(t, cs, "ctx_governing", map[string]any{"paths": []string{"src/billing/tax/vat.go"}, "min_specificity": 3, "detail": true}); !sameJSON(t, env, wantMin) {
		t.Fatalf("ctx_governing min_specificity detail:\n got %v\nwant %s", env, wantMin)
	}

	// The dir beside operation wins over input.dir.
	_, env = call(t, cs, "ctx_api", map[string]any{"operation": "status", "input": map[string]any{"dir": "/no/such/dir"}, "dir": demo})
	if env["ok"] != true {
		t.Fatalf("dir override: %v", env)
	}
	_, env = call(t, cs, "ctx_api", map[string]any{"operation": "status", "input": map[string]any{"dir": "/no/such/dir"}})
	if errCode(env) != "invalid_input" {
		t.Fatalf("input.dir: %v", env)
	}

	// The write tools: a challenge lands in the inbox; a captured candidate
	// is staged by ctx_prepare_commit.
	_, env = call(t, cs, "ctx_challenge", map[string]any{"id": "2026-01-14-vat-is-rounded-per-line", "because": "the ERP rounds on the total now"})
	if env["ok"] != true || env["result"].(map[string]any)["candidate"].(map[string]any)["kind"] != "challenge" {
		t.Fatalf("ctx_challenge: %v", env)
	}
	_, env = call(t, cs, "ctx_api", map[string]any{"operation": "drafts.capture", "input": map[string]any{
		"entry": map[string]any{"kind": "learning", "title": "Exports need the lock", "body": "Nightly export takes an advisory lock.", "paths": []string{"src/export/**"}}}})
	if env["ok"] != true {
		t.Fatalf("capture: %v", env)
	}
	cand := env["result"].(map[string]any)["candidate"].(map[string]any)["id"].(string)
	_, env = call(t, cs, "ctx_prepare_commit", map[string]any{"candidate_id": cand, "operation_id": "op-stage-1"})
	if env["ok"] != true || env["result"].(map[string]any)["staged"] != true {
		t.Fatalf("ctx_prepare_commit: %v", env)
	}

	// drafts.set_paths reaches MCP through ctx_api and the one dispatcher.
	_, env = call(t, cs, "ctx_api", map[string]any{"operation": "api.describe", "input": map[string]any{"operation": "drafts.set_paths"}})
	if env["ok"] != true {
		t.Fatalf("api.describe drafts.set_paths: %v", env)
	}
	_, env = call(t, cs, "ctx_api", map[string]any{"operation": "drafts.set_paths", "input": map[string]any{
		"operation_id": "op-paths-1", "entry_id": "docs/adr/0001-record-architecture-decisions.md", "add": []string{"docs/**"}}})
	if r, _ := env["result"].(map[string]any); env["ok"] != true || r["staged"] != true || !strings.HasSuffix(r["path"].(string), "paths.toml") {
		t.Fatalf("ctx_api drafts.set_paths: %v", env)
	}

	// Errors are envelopes with isError.
	for _, c := range []struct {
		tool string
		args any
		code string
	}{
		{"ctx_api", map[string]any{"operation": "no.such.operation"}, "unsupported_operation"},
		{"ctx_api", map[string]any{"operation": "entries.governing", "input": map[string]any{"paths": 5}}, "invalid_input"},
		{"ctx_api", map[string]any{"operation": "entries.list", "input": map[string]any{"bogus": true}}, "invalid_input"},
		{"ctx_api", map[string]any{"input": map[string]any{}}, "invalid_input"},
		{"ctx_api", map[string]any{"operation": "status", "extra": 1}, "invalid_input"},
		{"ctx_api", map[string]any{"operation": 7}, "invalid_input"},
		{"ctx_governing", map[string]any{}, "invalid_input"},
		{"ctx_governing", map[string]any{"paths": "src/a.go"}, "invalid_input"},
		{"ctx_governing", map[string]any{"paths": []string{"a"}, "min_specificity": "2"}, "invalid_input"},
		{"ctx_prepare_commit", map[string]any{"candidate_id": "cand-000000000000", "operation_id": "op-1"}, "not_found"},
		{"ctx_challenge", map[string]any{"id": "no-such-entry", "because": "x"}, "not_found"},
		{"ctx_challenge", map[string]any{"id": "x"}, "invalid_input"},
	} {
		_, env := call(t, cs, c.tool, c.args)
		if env["ok"] != false || errCode(env) != c.code {
			t.Errorf("%s %v: got %v, want error %s", c.tool, c.args, env, c.code)
		}
	}
}

// checkGolden compares the tool surface with testdata/mcp/tools.json.
func checkGolden(t *testing.T, list []*mcp.Tool) {
	t.Helper()
	type entry struct {
		Name         string               `json:"name"`
		Title        string               `json:"title"`
		Annotations  *mcp.ToolAnnotations `json:"annotations"`
		InputSchema  any                  `json:"inputSchema"`
		OutputSchema any                  `json:"outputSchema"`
	}
	var got []entry
	for _, tl := range list {
		if tl.Title == "" || tl.Annotations == nil || tl.Annotations.Title != tl.Title {
			t.Errorf("%s: title %q, annotations %+v: every tool has a title and annotations", tl.Name, tl.Title, tl.Annotations)
		}
		for _, jargon := range []string{"envelope", ".md"} {
			if strings.Contains(tl.Description, jargon) {
				t.Errorf("%s: the description says %q: plain words for a model", tl.Name, jargon)
			}
		}
		got = append(got, entry{tl.Name, tl.Title, tl.Annotations, tl.InputSchema, tl.OutputSchema})
	}
	// Normalise through JSON so local (typed) and remote (decoded) lists compare alike.
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var norm []map[string]any
	if err := json.Unmarshal(b, &norm); err != nil {
		t.Fatal(err)
	}
	// Tool order is by name.
	for i := 1; i < len(norm); i++ {
		if norm[i-1]["name"].(string) >= norm[i]["name"].(string) {
			t.Fatalf("tools are not sorted by name: %v then %v", norm[i-1]["name"], norm[i]["name"])
		}
	}
	out, err := json.MarshalIndent(norm, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, '\n')
	testrepo.Golden(t, filepath.Join("testdata", "mcp", "tools.json"), out, *update,
		"go test ./internal/mcpserver -update after an intended addition (tools and optional fields may be added, never removed or changed in type)")
}

func TestInMemory(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	exercise(t, inMemory(t, demo), demo)
}

// TestEditChangesAnswer proves a connection never serves a stale answer:
// an edit between two calls changes the answer.
func TestEditChangesAnswer(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	cs := inMemory(t, demo)
	ctx := context.Background()
	const id = "2026-01-14-vat-is-rounded-per-line"
	file := filepath.Join(demo, ".ai", "decisions", id+".md")
	args := map[string]any{"operation": "entries.get", "input": map[string]any{"id": id}}

	before, _ := call(t, cs, "ctx_api", args)
	gov1, _ := call(t, cs, "ctx_governing", map[string]any{"paths": []string{"src/billing/tax/vat.go"}})
	if !strings.Contains(before, "VAT is rounded per line") {
		t.Fatalf("before: %s", before)
	}
	if again, _ := call(t, cs, "ctx_api", args); again != before {
		t.Fatalf("an unchanged repository answered differently:\n%s\n%s", before, again)
	}

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Same size on purpose (the parse cache must not rely on size alone),
	// and the modification time is moved so a coarse clock cannot hide it.
	edited := bytes.Replace(data, []byte("# VAT is rounded per line"), []byte("# VAT is ROUNDED per line"), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("the title line was not found")
	}
	if err := os.WriteFile(file, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}

	after, _ := call(t, cs, "ctx_api", args)
	if after == before || !strings.Contains(after, "VAT is ROUNDED per line") {
		t.Fatalf("the edit did not change the answer:\n%s", after)
	}
	if want := string(native.Request(ctx, demo, "entries.get", []byte(`{"id":"`+id+`"}`))); after != want {
		t.Fatalf("after the edit:\n got %s\nwant %s", after, want)
	}
	gov2, _ := call(t, cs, "ctx_governing", map[string]any{"paths": []string{"src/billing/tax/vat.go"}})
	if gov1 == gov2 {
		t.Fatalf("governing answer (snapshot) did not change after the edit: %s", gov2)
	}
}

// built is the kontext binary the tests built (once for the package).
var built string

// kontextBin builds the kontext binary (KONTEXT_MCP_BIN names an already built one instead).
func kontextBin(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("KONTEXT_MCP_BIN"); bin != "" {
		return bin
	}
	if built == "" {
		bin := filepath.Join(testrepo.SharedDir(t), "kontext")
		build := exec.Command("go", "build", "-o", bin, "./cmd/kontext")
		build.Dir = testrepo.Root()
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		built = bin
	}
	return built
}

// startKontext starts the built binary with args (KONTEXT_NOW set, no MCP
// token) and pipes to its stdin and stdout; its stderr is collected.
func startKontext(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, io.Reader, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(kontextBin(t), args...)
	cmd.Env = append(os.Environ(), "KONTEXT_NOW="+testNow, "KONTEXT_MCP_TOKEN=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, stdin, stdout, stderr
}

// TestStdioMalformedFrames drives the built binary with a raw line client: every malformed
// frame is answered (-32700 for a line that is not JSON, -32600 for JSON that is not one
// JSON-RPC 2.0 message, id null) and the server keeps serving the next request.
func TestStdioMalformedFrames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the kontext binary")
	}
	demo := testrepo.Demo(t)
	cmd, stdin, stdout, stderr := startKontext(t, "-C", demo, "mcp")
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(sent string) map[string]any {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("after %q the server closed stdout; stderr: %s", sent, stderr.String())
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("after %q: not JSON: %s", sent, l)
			}
			return m
		case <-time.After(2 * time.Minute): // a hang guard, not a timing assertion
			t.Fatalf("after %q: no answer; stderr: %s", sent, stderr.String())
		}
		return nil
	}
	send := func(l string) { io.WriteString(stdin, l+"\n") }
	ping := func(id int) {
		t.Helper()
		l := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)
		send(l)
		if m := next(l); m["id"] != float64(id) || m["error"] != nil {
			t.Fatalf("ping %d: %v", id, m)
		}
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	send(init)
	if m := next(init); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range []struct {
		line string
		code float64
	}{
		{`{not json`, -32700},
		{`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600},
		{`[]`, -32600},
		{`null`, -32600},
		{`42`, -32600},
		{`{"id":6,"method":"ping"}`, -32600},
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":8,"method":7}`, -32600},
		{`{"jsonrpc":"2.0","result":{}}`, -32600},
		{"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"", -32700},
	} {
		send(c.line)
		m := next(c.line)
		e, _ := m["error"].(map[string]any)
		if id, has := m["id"]; !has || id != nil || e == nil || e["code"] != c.code || m["jsonrpc"] != "2.0" {
			t.Errorf("%q: got %v, want error %v with id null", c.line, m, c.code)
		}
		ping(100 + i) // still serving
	}
	// A tool call still answers after all that.
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ctx_governing","arguments":{"paths":["src/billing/tax/vat.go"]}}}`
	send(call)
	if m := next(call); m["id"] != float64(2) || !strings.Contains(fmt.Sprint(m["result"]), "vat-is-rounded-per-line") {
		t.Fatalf("tools/call: %v", m)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v; stderr: %s", err, stderr.String())
	}
}

// TestStdio drives the built binary (`kontext -C demo mcp`) with the SDK's
// client over stdio.
func TestStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the kontext binary")
	}
	demo := testrepo.Demo(t)
	bin := kontextBin(t)
	env := append(os.Environ(), "KONTEXT_NOW="+testNow)
	t.Setenv("KONTEXT_NOW", testNow)

	// Probe: with stdin closed at once, the server exits 0; a binary whose
	// command table lacks the row says "unknown command".
	probe := exec.Command(bin, "-C", demo, "mcp")
	probe.Env = env
	var stderr bytes.Buffer
	probe.Stderr = &stderr
	if err := probe.Run(); err != nil {
		if strings.Contains(stderr.String(), `unknown command "mcp"`) {
			t.Skip(`cmd/kontext has no "mcp" row in its command table yet (add {"mcp", "", …, runMCPCmd} to main.go)`)
		}
		t.Fatalf("kontext mcp with closed stdin: %v\n%s", err, stderr.String())
	}

	cmd := exec.Command(bin, "-C", demo, "mcp")
	cmd.Env = env
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := cs.InitializeResult(); r == nil || r.ServerInfo == nil || r.ServerInfo.Name != "kontext" {
		t.Fatalf("initialize: %+v", r)
	}
	exercise(t, cs, demo)
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v\nstderr: %s", err, stderr.String())
	}
	if s := stderr.String(); s != "" {
		t.Errorf("the server wrote to stderr: %s", s)
	}
}

// TestAbsolutePaths: agents send absolute paths. One inside the repository
// answers as its repository-relative form (every governing entry, the
// path echoed relative); one outside is invalid_input naming the root.
func TestAbsolutePaths(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	cs := inMemory(t, demo)
	rel, _ := call(t, cs, "ctx_governing", map[string]any{"paths": []string{"src/billing/tax/vat.go"}})
	abs, env := call(t, cs, "ctx_governing", map[string]any{"paths": []string{filepath.Join(demo, "src", "billing", "tax", "vat.go")}})
	if abs != rel {
		t.Fatalf("absolute path answered differently:\n got %s\nwant %s", abs, rel)
	}
	if n := len(env["result"].(map[string]any)["items"].([]any)); n < 5 {
		t.Fatalf("only %d governing entries", n)
	}
	if real, err := filepath.EvalSymlinks(demo); err == nil {
		if viaReal, _ := call(t, cs, "ctx_governing", map[string]any{"paths": []string{filepath.Join(real, "src/billing/tax/vat.go")}}); viaReal != rel {
			t.Fatalf("the root's resolved spelling answered differently: %s", viaReal)
		}
	}
	out, env := call(t, cs, "ctx_governing", map[string]any{"paths": []string{"/etc/passwd"}})
	if errCode(env) != "invalid_input" || !strings.Contains(out, "outside the repository") || !strings.Contains(out, demo) {
		t.Fatalf("outside path: %s", out)
	}
	out, env = call(t, cs, "ctx_api", map[string]any{"operation": "entries.governing", "input": map[string]any{"paths": []string{"src/../../x"}}})
	if errCode(env) != "invalid_input" || !strings.Contains(out, demo) {
		t.Fatalf("climbing out: %s", out)
	}
}

// TestPrepareCommitFormalize: ctx_prepare_commit {formalize: true} words
// the candidate with the selected model before staging it (the candidate
// is promoted); without a model it stages the candidate as captured.
func TestPrepareCommitFormalize(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("KONTEXT_LLM", "")
	capture := func(cs *mcp.ClientSession, title string) string {
		_, env := call(t, cs, "ctx_api", map[string]any{"operation": "drafts.capture", "input": map[string]any{
			"entry": map[string]any{"kind": "learning", "title": title, "body": "excel needs the bom", "paths": []string{"src/export/**"}}}})
		if env["ok"] != true {
			t.Fatalf("capture: %v", env)
		}
		return env["result"].(map[string]any)["candidate"].(map[string]any)["id"].(string)
	}
	// No model selected: staged as captured.
	cs := inMemory(t, testrepo.Demo(t))
	cand := capture(cs, "csv bom")
	_, env := call(t, cs, "ctx_prepare_commit", map[string]any{"candidate_id": cand, "operation_id": "op-f-1", "formalize": true})
	if env["ok"] != true || env["result"].(map[string]any)["entry"].(map[string]any)["title"] != "csv bom" {
		t.Fatalf("without a model: %v", env)
	}

	// A command model words it; the candidate is promoted.
	script := filepath.Join(t.TempDir(), "model.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
cat > /dev/null
echo '{"kind":"learning","title":"Excel needs a BOM in UTF-8 CSV exports","summary":"Write the BOM first.","body":"Excel reads UTF-8 CSV correctly only with a byte order mark.","paths":["src/export/**"]}'
`), 0o755)
	t.Setenv("KONTEXT_LLM", "command")
	t.Setenv("KONTEXT_LLM_COMMAND", script)
	cs = inMemory(t, testrepo.Demo(t))
	cand = capture(cs, "csv bom")
	_, env = call(t, cs, "ctx_prepare_commit", map[string]any{"candidate_id": cand, "operation_id": "op-f-2", "formalize": true})
	if env["ok"] != true {
		t.Fatalf("with a model: %v", env)
	}
	res := env["result"].(map[string]any)
	if en := res["entry"].(map[string]any); en["title"] != "Excel needs a BOM in UTF-8 CSV exports" || !strings.Contains(en["body"].(string), "byte order mark") {
		t.Fatalf("staged entry: %v", en)
	}
	if !strings.Contains(strings.Join(toStrings(res["notes"]), "\n"), "promoted candidate "+cand) {
		t.Fatalf("notes: %v", res["notes"])
	}
	// A bool is required for formalize.
	_, env = call(t, cs, "ctx_prepare_commit", map[string]any{"candidate_id": cand, "operation_id": "op-f-3", "formalize": "yes"})
	if errCode(env) != "invalid_input" {
		t.Fatalf("formalize: \"yes\": %v", env)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
