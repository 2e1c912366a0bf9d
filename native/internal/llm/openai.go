package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
)

// attempts is how often one question is sent when the server answers 429
// or 5xx (other failures are not retried).
const attempts = 3

// openaiModel asks an OpenAI-compatible chat-completions server.
type openaiModel struct {
	baseURL, model, key string
	timeout, retryDelay time.Duration
}

// plainEndpoints are the servers (base URLs) that refused a JSON-schema
// response format in this process: later questions to them, from any
// model value, ask for plain JSON with the schema in the prompt at once.
var plainEndpoints sync.Map // base URL → true

func (m *openaiModel) Use() api.ModelUse { return api.ModelUse{Adapter: OpenAI, Model: m.model} }

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string         `json:"model"`
	Messages       []chatMessage  `json:"messages"`
	Temperature    float64        `json:"temperature"`
	ResponseFormat map[string]any `json:"response_format,omitempty"`
}

var schemaName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]`) })

func (m *openaiModel) Ask(ctx context.Context, req engine.ModelRequest) (json.RawMessage, error) {
	schema, err := json.Marshal(req.Schema)
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "encoding the answer schema")
	}
	if _, plain := plainEndpoints.Load(m.baseURL); !plain {
		out, refused, err := m.ask(ctx, req, schema, true)
		if !refused {
			return out, err
		}
		plainEndpoints.Store(m.baseURL, true)
	}
	out, _, err := m.ask(ctx, req, schema, false)
	return out, err
}

// ask sends one question (with retries on 429/5xx). refused reports a 400
// that names the response format: the caller asks again for plain JSON.
func (m *openaiModel) ask(ctx context.Context, req engine.ModelRequest, schema []byte, structured bool) (json.RawMessage, bool, error) {
	body := chatRequest{Model: m.model, Temperature: 0, Messages: []chatMessage{
		{Role: "system", Content: "You are a careful assistant for a team's project knowledge. Answer with exactly one JSON object, no prose, that satisfies this JSON Schema:\n" + string(schema)},
		{Role: "user", Content: req.Prompt},
	}}
	if structured {
		body.ResponseFormat = map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": schemaName().ReplaceAllString(req.Task, "_"), "schema": req.Schema, "strict": false}}
	}
	// Otherwise plain JSON: no response_format at all (a server that
	// refused json_schema often refuses json_object too); the system
	// message carries the schema and answerObject finds the object.
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, false, apierr.Wrap(apierr.OperationFailed, err, "encoding the model request")
	}
	delay := m.retryDelay
	var last error
	for try := 1; try <= attempts; try++ {
		status, data, retryAfter, err := m.post(ctx, payload)
		switch {
		case err != nil && ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, false, apierr.Wrap(apierr.OperationFailed, ctx.Err(), "the model call was cancelled")
		case err != nil:
			return nil, false, err
		case status == http.StatusOK:
			out, err := chatAnswer(data)
			return out, false, err
		case status == http.StatusTooManyRequests || status >= 500:
			last = apierr.New(apierr.ModelUnavailable, "the model server at %s answered %d %s after %d attempts%s", m.baseURL, status, http.StatusText(status), try, excerpt(data))
			if try == attempts {
				return nil, false, last
			}
			wait := delay
			if retryAfter > 0 && retryAfter < 30*time.Second {
				wait = retryAfter
			}
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return nil, false, apierr.Wrap(apierr.OperationFailed, ctx.Err(), "the model call was cancelled")
			}
			delay *= 2
		case status == http.StatusBadRequest && structured && mentionsFormat(data):
			return nil, true, nil
		default:
			return nil, false, apierr.New(apierr.ModelUnavailable, "the model server at %s answered %d %s%s", m.baseURL, status, http.StatusText(status), excerpt(data))
		}
	}
	return nil, false, last
}

// post sends one request under the timeout. The key goes only into the
// Authorization header, never into a message.
func (m *openaiModel) post(ctx context.Context, payload []byte) (int, []byte, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, m.baseURL+"/chat/completions", bytes.NewReader(payload))
	if err != nil {
		return 0, nil, 0, apierr.New(apierr.ModelUnavailable, "[llm.openai] base_url %q cannot be used: %v", m.baseURL, err)
	}
	r.Header.Set("Content-Type", "application/json")
	if m.key != "" {
		r.Header.Set("Authorization", "Bearer "+m.key)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return 0, nil, 0, apierr.New(apierr.ModelUnavailable, "the model server at %s did not answer within %s (timeout_secs in [llm])", m.baseURL, m.timeout)
		}
		var ue interface{ Unwrap() error }
		msg := err.Error()
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			msg = ue.Unwrap().Error()
		}
		return 0, nil, 0, apierr.New(apierr.ModelUnavailable, "the model server at %s cannot be reached: %s", m.baseURL, msg)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return 0, nil, 0, apierr.New(apierr.ModelUnavailable, "the model server at %s did not answer within %s (timeout_secs in [llm])", m.baseURL, m.timeout)
		}
		return 0, nil, 0, apierr.New(apierr.ModelUnavailable, "reading the answer of %s failed: %v", m.baseURL, err)
	}
	var ra time.Duration
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		ra = time.Duration(s) * time.Second
	}
	return resp.StatusCode, data, ra, nil
}

func mentionsFormat(data []byte) bool {
	s := strings.ToLower(string(data))
	return strings.Contains(s, "response_format") || strings.Contains(s, "json_schema")
}

// chatAnswer is the JSON object in the first choice's message.
func chatAnswer(data []byte) (json.RawMessage, error) {
	var resp struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
				Refusal string `json:"refusal"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, apierr.New(apierr.InvalidModelOutput, "the model server's reply is not a chat completion: %v", err)
	}
	if len(resp.Choices) == 0 {
		return nil, apierr.New(apierr.InvalidModelOutput, "the model server's reply has no choices")
	}
	msg := resp.Choices[0].Message
	if msg.Content == "" && msg.Refusal != "" {
		return nil, apierr.New(apierr.InvalidModelOutput, "the model refused: %s", excerpt([]byte(msg.Refusal)))
	}
	return answerObject([]byte(msg.Content))
}

// excerpt is a short, redacted part of a server reply for messages.
func excerpt(data []byte) string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(data), "?"))
	if s == "" {
		return ""
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	s = engine.Redact(s)
	return fmt.Sprintf(": %s", s)
}
