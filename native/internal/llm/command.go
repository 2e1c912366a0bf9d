package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"time"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native/internal/procgroup"
)

// maxAnswer bounds what kontext reads of one answer.
const maxAnswer = 4 << 20

// commandModel runs a local program per question: the request JSON
// {task, prompt, schema} on stdin, one JSON answer on stdout.
type commandModel struct {
	argv    []string
	timeout time.Duration
}

func (m *commandModel) Use() api.ModelUse {
	return api.ModelUse{Adapter: Command, Model: strings.Join(m.argv, " ")}
}

func (m *commandModel) Ask(ctx context.Context, req engine.ModelRequest) (json.RawMessage, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "encoding the model request")
	}
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	cmd := exec.Command(m.argv[0], m.argv[1:]...)
	cmd.Stdin = bytes.NewReader(in)
	var out limited
	var errTail tail
	out.max = maxAnswer
	cmd.Stdout, cmd.Stderr = &out, &errTail
	// Its own process group, so a timeout kills everything it started.
	procgroup.Set(cmd)
	if err := cmd.Start(); err != nil {
		return nil, apierr.Wrap(apierr.ModelUnavailable, err, "the model command %q cannot start", m.argv[0])
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = procgroup.Kill(cmd.Process)
		<-done
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, apierr.New(apierr.ModelUnavailable, "the model command %q did not answer within %s (timeout_secs in [llm]); it was stopped%s", m.argv[0], m.timeout, errTail.String())
		}
		return nil, apierr.Wrap(apierr.OperationFailed, ctx.Err(), "the model call was cancelled")
	}
	if err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return nil, apierr.New(apierr.ModelUnavailable, "the model command %q failed (exit code %d)%s", m.argv[0], code, errTail.String())
	}
	if out.over {
		return nil, apierr.New(apierr.InvalidModelOutput, "the model command %q wrote more than %d bytes", m.argv[0], maxAnswer)
	}
	return answerObject(out.buf.Bytes())
}

// answerObject finds the one JSON object of an answer: the whole text, or
// the first {…} in text around it.
func answerObject(text []byte) (json.RawMessage, error) {
	t := bytes.TrimSpace(text)
	if json.Valid(t) && len(t) > 0 && t[0] == '{' {
		return t, nil
	}
	if i := bytes.IndexByte(t, '{'); i >= 0 {
		dec := json.NewDecoder(bytes.NewReader(t[i:]))
		var raw json.RawMessage
		if dec.Decode(&raw) == nil {
			return raw, nil
		}
	}
	excerpt := string(t)
	if len(excerpt) > 120 {
		excerpt = excerpt[:120] + "…"
	}
	excerpt = engine.Redact(excerpt)
	return nil, apierr.New(apierr.InvalidModelOutput, "the model's answer is not a JSON object: %q", excerpt)
}

// limited keeps at most max bytes.
type limited struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if l.buf.Len()+len(p) > l.max {
		l.over = true
		p = p[:max(0, l.max-l.buf.Len())]
	}
	l.buf.Write(p)
	return len(p), nil
}

// tail keeps the last 2 KiB of stderr, for error messages.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(p), nil
}

// String is ": stderr: <tail>" (redacted), or "" when nothing was written.
func (t *tail) String() string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(t.b), "?"))
	if s == "" {
		return ""
	}
	s = engine.Redact(s)
	return "; stderr: " + s
}
