package llm

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

var req = engine.ModelRequest{Task: "formalize", Prompt: "word this", Schema: map[string]any{"type": "object"}}

func clearEnv(t *testing.T) {
	for _, k := range []string{"KONTEXT_LLM", "KONTEXT_LLM_COMMAND", "KONTEXT_LLM_BASE_URL", "KONTEXT_LLM_MODEL", "KONTEXT_LLM_API_KEY_ENV", "KONTEXT_LLM_TIMEOUT_SECS"} {
		t.Setenv(k, "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

// stub is a local OpenAI-compatible server on 127.0.0.1 whose answers a
// test scripts; it records every request.
type stub struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	headers  []http.Header
	answer   func(n int, body map[string]any, w http.ResponseWriter, r *http.Request)
}

func newStub(t *testing.T, answer func(n int, body map[string]any, w http.ResponseWriter, r *http.Request)) *stub {
	s := &stub{answer: answer}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(data, &body)
		s.mu.Lock()
		s.requests = append(s.requests, body)
		s.headers = append(s.headers, r.Header.Clone())
		n := len(s.requests)
		s.mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		s.answer(n, body, w, r)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Listener = l
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func chat(w http.ResponseWriter, content string) {
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
}

func openaiSelection(t *testing.T, url string) *Selection {
	clearEnv(t)
	t.Setenv("KONTEXT_LLM", "openai")
	t.Setenv("KONTEXT_LLM_BASE_URL", url+"/v1")
	t.Setenv("KONTEXT_LLM_MODEL", "stub-7b")
	s := Select("")
	s.RetryDelay = time.Millisecond
	return s
}

func mustAsk(t *testing.T, s *Selection) (json.RawMessage, error) {
	m, err := s.Pick("")
	if err != nil {
		t.Fatal(err)
	}
	return m.Ask(context.Background(), req)
}

func code(err error) string { return apierr.As(err).Code }

func TestOpenAISchemaFormatAndKey(t *testing.T) {
	srv := newStub(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		chat(w, `{"title":"x"}`)
	})
	s := openaiSelection(t, srv.URL)
	t.Setenv("KONTEXT_LLM_API_KEY_ENV", "STUB_KEY")
	t.Setenv("STUB_KEY", "sk-test-secret-1234")
	s = Select("")
	got, err := mustAsk(t, s)
	if err != nil || string(got) != `{"title":"x"}` {
		t.Fatalf("answer %s, %v", got, err)
	}
	rf := srv.requests[0]["response_format"].(map[string]any)
	if rf["type"] != "json_schema" || rf["json_schema"].(map[string]any)["name"] != "formalize" {
		t.Fatalf("response_format = %v", rf)
	}
	if srv.requests[0]["model"] != "stub-7b" {
		t.Fatalf("model = %v", srv.requests[0]["model"])
	}
	if h := srv.headers[0].Get("Authorization"); h != "Bearer sk-test-secret-1234" {
		t.Fatalf("Authorization = %q", h)
	}
	st := s.Status()
	if !st.Selected || !st.Available || *st.Adapter != "openai" || *st.Model != "stub-7b" {
		t.Fatalf("status = %+v", st)
	}
}

func TestOpenAIMissingKey(t *testing.T) {
	srv := newStub(t, func(int, map[string]any, http.ResponseWriter, *http.Request) { t.Error("the model was called") })
	s := openaiSelection(t, srv.URL)
	t.Setenv("KONTEXT_LLM_API_KEY_ENV", "STUB_KEY_UNSET")
	s = Select("")
	st := s.Status()
	if st.Available || !strings.Contains(*st.Reason, "STUB_KEY_UNSET") {
		t.Fatalf("status = %+v", st)
	}
	if _, err := s.Pick(""); code(err) != apierr.ModelUnavailable {
		t.Fatalf("Pick: %v", err)
	}
}

func TestOpenAISchemaRefused(t *testing.T) {
	srv := newStub(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
		if rf, _ := body["response_format"].(map[string]any); rf["type"] == "json_schema" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"response_format json_schema is not supported"}}`)
			return
		}
		chat(w, "Sure! ```json\n{\"title\":\"plain\"}\n```")
	})
	s := openaiSelection(t, srv.URL)
	for i := 0; i < 2; i++ {
		// A new pick each time, as every CLI or MCP call makes.
		m, _ := s.Pick("")
		got, err := m.Ask(context.Background(), req)
		if err != nil || string(got) != `{"title":"plain"}` {
			t.Fatalf("answer %s, %v", got, err)
		}
	}
	// The refusal is remembered for the endpoint: the second question goes
	// plain at once.
	if len(srv.requests) != 3 {
		t.Fatalf("%d requests, want 3 (schema refused, plain, plain)", len(srv.requests))
	}
	// Plain means plain: no response_format (json_object is a format the
	// server may refuse as well).
	for i, r := range srv.requests[1:] {
		if rf, ok := r["response_format"]; ok {
			t.Errorf("plain request %d carries response_format %v", i+1, rf)
		}
	}
	if !strings.Contains(srv.requests[1]["messages"].([]any)[0].(map[string]any)["content"].(string), `"type":"object"`) {
		t.Fatal("the plain request does not carry the schema in its system message")
	}
}

func TestOpenAIRetries(t *testing.T) {
	for _, status := range []int{http.StatusInternalServerError, http.StatusTooManyRequests} {
		srv := newStub(t, func(n int, body map[string]any, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				w.WriteHeader(status)
				return
			}
			chat(w, `{"ok":true}`)
		})
		if got, err := mustAsk(t, openaiSelection(t, srv.URL)); err != nil || string(got) != `{"ok":true}` {
			t.Fatalf("%d then success: %s, %v", status, got, err)
		}
		if len(srv.requests) != 2 {
			t.Fatalf("%d: %d requests", status, len(srv.requests))
		}
	}
	// Always 503: given up after the attempts, model_unavailable.
	srv := newStub(t, func(n int, _ map[string]any, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) })
	if _, err := mustAsk(t, openaiSelection(t, srv.URL)); code(err) != apierr.ModelUnavailable || len(srv.requests) != attempts {
		t.Fatalf("503: %v after %d requests", err, len(srv.requests))
	}
	// A 401 is not retried.
	srv = newStub(t, func(n int, _ map[string]any, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(401) })
	if _, err := mustAsk(t, openaiSelection(t, srv.URL)); code(err) != apierr.ModelUnavailable || len(srv.requests) != 1 {
		t.Fatalf("401: %v after %d requests", err, len(srv.requests))
	}
}

func TestOpenAIBrokenAnswers(t *testing.T) {
	for name, reply := range map[string]string{"not chat": `{"id":1`, "no object": "no json here"} {
		srv := newStub(t, func(n int, _ map[string]any, w http.ResponseWriter, _ *http.Request) {
			if name == "not chat" {
				io.WriteString(w, reply)
				return
			}
			chat(w, reply)
		})
		if _, err := mustAsk(t, openaiSelection(t, srv.URL)); code(err) != apierr.InvalidModelOutput {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func TestOpenAITimeout(t *testing.T) {
	release := make(chan struct{})
	srv := newStub(t, func(n int, _ map[string]any, w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	s := openaiSelection(t, srv.URL)
	t.Setenv("KONTEXT_LLM_TIMEOUT_SECS", "1")
	s = Select("")
	_, err := mustAsk(t, s)
	if code(err) != apierr.ModelUnavailable || !strings.Contains(err.Error(), "did not answer within 1s") {
		t.Fatalf("slow server: %v", err)
	}
}

func TestCommandAdapter(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "model.sh")
	// Echoes the task back in a JSON object, reading the request from stdin.
	os.WriteFile(script, []byte("#!/bin/sh\nread -r line\ncase \"$line\" in *'\"task\":\"formalize\"'*) echo 'thinking…'; echo '{\"title\":\"t\"}';; *) exit 9;; esac\n"), 0o755)
	t.Setenv("KONTEXT_LLM", "command")
	t.Setenv("KONTEXT_LLM_COMMAND", script)
	got, err := mustAsk(t, Select(""))
	if err != nil || string(got) != `{"title":"t"}` {
		t.Fatalf("answer %s, %v", got, err)
	}
	st := Select("").Status()
	if !st.Available || *st.Model != script {
		t.Fatalf("status %+v", st)
	}
	t.Setenv("KONTEXT_LLM_COMMAND", "no-such-model-binary-xyz")
	if st := Select("").Status(); st.Available || !strings.Contains(*st.Reason, "not found on PATH") {
		t.Fatalf("missing binary: %+v", st)
	}
}

func TestCommandFailureAndTimeout(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	fail := filepath.Join(dir, "fail.sh")
	os.WriteFile(fail, []byte("#!/bin/sh\necho 'token=abc user bob@example.com broke' >&2\nexit 7\n"), 0o755)
	t.Setenv("KONTEXT_LLM", "command")
	t.Setenv("KONTEXT_LLM_COMMAND", fail)
	_, err := mustAsk(t, Select(""))
	if code(err) != apierr.ModelUnavailable || !strings.Contains(err.Error(), "exit code 7") || !strings.Contains(err.Error(), "[redacted:email]") {
		t.Fatalf("failing command: %v", err)
	}
	// A slow command and the child it started are killed (process group).
	pidFile := filepath.Join(dir, "child.pid")
	slow := filepath.Join(dir, "slow.sh")
	os.WriteFile(slow, []byte("#!/bin/sh\nsleep 300 &\necho $! > "+pidFile+"\nwait\n"), 0o755)
	t.Setenv("KONTEXT_LLM_COMMAND", slow)
	t.Setenv("KONTEXT_LLM_TIMEOUT_SECS", "1")
	_, err = mustAsk(t, Select(""))
	if code(err) != apierr.ModelUnavailable || !strings.Contains(err.Error(), "did not answer within 1s") {
		t.Fatalf("slow command: %v", err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// The child was killed with its group; reap-free check: signal 0 fails
	// once it is gone (it may linger as a zombie of init briefly).
	for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the model command's child %d survived the timeout", pid)
	}
}

func TestLocalConfigSelection(t *testing.T) {
	clearEnv(t)
	gitDir := t.TempDir()
	os.MkdirAll(filepath.Join(gitDir, "kontext"), 0o755)
	os.WriteFile(filepath.Join(gitDir, "kontext", "config.toml"), []byte("[llm]\nadapter = \"openai\"\ntimeout_secs = 5\n[llm.openai]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"qwen2.5:7b\"\n"), 0o644)
	st := Select(gitDir).Status()
	if !st.Selected || !st.Available || *st.Model != "qwen2.5:7b" || !strings.Contains(*st.Reason, "config.toml") {
		t.Fatalf("status %+v", st)
	}
	// KONTEXT_LLM wins over the file.
	t.Setenv("KONTEXT_LLM", "none")
	if st := Select(gitDir).Status(); st.Selected || st.Available {
		t.Fatalf("none: %+v", st)
	}
	// A broken local file is reported, never half-read.
	t.Setenv("KONTEXT_LLM", "")
	os.WriteFile(filepath.Join(gitDir, "kontext", "config.toml"), []byte("[llm]\nadaptr = \"openai\"\n"), 0o644)
	if st := Select(gitDir).Status(); st.Available || !strings.Contains(*st.Reason, "cannot be read") {
		t.Fatalf("broken: %+v", st)
	}
}
