// Package mcpserver is kontext's MCP server (`kontext mcp`): it serves the
// tool surface of internal/mcptools (names, input schemas, the envelope
// output schema, the text answers) over the SDK and maps every tool call onto the one operation dispatcher (engine.Engine.Request),
// exactly as `kontext api` does. A tool result carries the answer object
// as structuredContent (ctx_governing's result its own short page) and a
// text block (the same JSON, or for ctx_governing and ctx_brief a
// plain-text reading of it: text.go), and
// sets isError when the answer's ok is false. It keeps one engine per resolved
// directory for the life of a Server, so parses and compiled indexes are
// reused while the snapshot is unchanged (the engine revalidates every file
// on each call; an edit is never answered from a stale parse).
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"path/filepath"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/internal/mcptools"
	"github.com/kontext/kontext/native"
)

// Serve runs an MCP server over newline-delimited JSON-RPC on in/out (the
// stdio transport of `kontext mcp`) until the client disconnects or ctx is
// done. dir is the default directory of every call (`kontext -C dir`).
// A malformed line is answered and skipped (frames), never the end of the session.
func Serve(ctx context.Context, dir string, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	stop := make(chan struct{})
	go frames(in, pw, w, stop)
	defer pr.Close() // unblocks frames when the session ends first
	defer close(stop)
	t := &mcp.IOTransport{Reader: pr, Writer: w}
	return New(dir).Run(ctx, t)
}

// New returns the kontext MCP server with every tool registered; dir is the
// default directory of its calls. Connect it to any mcp.Transport.
func New(dir string) *mcp.Server {
	h := &handler{dir: dir, engines: map[string]*engine.Engine{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "kontext", Version: engine.Version}, nil)
	for _, t := range mcptools.List() {
		s.AddTool(&mcp.Tool{
			Name:         t.Name(),
			Title:        t.Title(),
			Annotations:  (*mcp.ToolAnnotations)(t.Annotations()),
			Description:  t.Description(),
			InputSchema:  t.InputSchema(),
			OutputSchema: t.OutputSchema(),
		}, h.tool(t))
	}
	return s
}

// handler holds the per-server state: one engine per resolved directory.
type handler struct {
	dir     string
	mu      sync.Mutex
	engines map[string]*engine.Engine
}

func (h *handler) tool(t mcptools.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var raw json.RawMessage
		if req.Params != nil {
			raw = req.Params.Arguments
		}
		args, err := t.Decode(raw)
		if err != nil {
			return result(t, engine.ErrorEnvelope(err), nil), nil
		}
		formalize := string(bytes.TrimSpace(args["formalize"])) == "true"
		asked := maps.Clone(args)
		op, input, err := t.Request(args)
		if err != nil {
			return result(t, engine.ErrorEnvelope(err), asked), nil
		}
		if formalize && op == "drafts.stage" {
			return result(t, h.prepareFormalized(ctx, input), asked), nil
		}
		return result(t, h.request(ctx, op, input), asked), nil
	}
}

// prepareFormalized is ctx_prepare_commit with formalize: true. When a
// model is selected and available, the candidate's entry is worded by
// drafts.formalize and staged with that wording (drafts.stage
// {candidate_id, entry}); otherwise it is staged as captured. A model
// failure stages nothing.
func (h *handler) prepareFormalized(ctx context.Context, input []byte) []byte {
	e, err := h.engine(input)
	if err != nil {
		return engine.ErrorEnvelope(err)
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(input, &in); err != nil {
		return engine.ErrorEnvelope(apierr.Invalid("ctx_prepare_commit: %v", err))
	}
	st, err := e.Status(ctx)
	if err != nil {
		return engine.ErrorEnvelope(err)
	}
	if !st.LLM.Available {
		return e.Request(ctx, "drafts.stage", input) // no model: staged as captured
	}
	var id string
	_ = json.Unmarshal(in["candidate_id"], &id)
	var list struct {
		Result struct {
			Candidates []struct {
				ID    string          `json:"id"`
				Entry json.RawMessage `json:"entry"`
			} `json:"candidates"`
		} `json:"result"`
	}
	_ = json.Unmarshal(e.Request(ctx, "inbox.list", mustJSON(map[string]any{"dir": in["dir"], "state": "pending"})), &list)
	var cand json.RawMessage
	for _, c := range list.Result.Candidates {
		if c.ID == id {
			cand = c.Entry
		}
	}
	if cand == nil {
		return e.Request(ctx, "drafts.stage", input) // drafts.stage names what is wrong
	}
	var entry map[string]json.RawMessage
	_ = json.Unmarshal(cand, &entry)
	// drafts.formalize takes the wording fields; the candidate keeps the rest.
	words := map[string]json.RawMessage{}
	for _, k := range []string{"kind", "title", "body", "summary", "paths", "tags"} {
		if v, ok := entry[k]; ok {
			words[k] = v
		}
	}
	env := e.Request(ctx, "drafts.formalize", mustJSON(map[string]any{"dir": in["dir"], "entry": words, "llm": true}))
	var f struct {
		OK     bool `json:"ok"`
		Result struct {
			Entry map[string]json.RawMessage `json:"entry"`
		} `json:"result"`
	}
	if err := json.Unmarshal(env, &f); err != nil || !f.OK {
		return env // the model's failure; nothing is staged
	}
	staged := map[string]json.RawMessage{}
	for _, k := range []string{"kind", "title", "summary", "body", "paths"} {
		if v, ok := f.Result.Entry[k]; ok {
			staged[k] = v
		}
	}
	in["entry"] = mustJSON(staged)
	return e.Request(ctx, "drafts.stage", mustJSON(in))
}

// request is native.Request over the server's cached engines: the server
// is the warm process for an agent's session.
func (h *handler) request(ctx context.Context, op string, input []byte) []byte {
	e, err := h.engine(input)
	if err != nil {
		return engine.ErrorEnvelope(err)
	}
	return e.Request(ctx, op, input)
}

// engine returns the engine that input addresses (its "dir" resolved
// against the server's directory, as native.OpenFor does), opening it once.
func (h *handler) engine(input []byte) (*engine.Engine, error) {
	dir, err := native.TargetDir(h.dir, input)
	if err != nil {
		return nil, err
	}
	key, err := filepath.Abs(dir)
	if err != nil {
		return nil, apierr.Invalid("dir %q cannot be resolved: %v", dir, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if e, ok := h.engines[key]; ok {
		return e, nil
	}
	e, err := native.OpenWith(dir, native.Options{Application: "mcp"}) // looks: by application:mcp
	if err != nil {
		return nil, err // not cached: the directory may appear later
	}
	h.engines[key] = e
	return e, nil
}

// result wraps an answer: structuredContent is the answer object (a
// successful result as the tool renders it); the text block is the tool's
// text reading (mcptools.Tool.Answer).
func result(t mcptools.Tool, env []byte, args map[string]json.RawMessage) *mcp.CallToolResult {
	env, text, ok := t.Answer(env, args)
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(env),
		IsError:           !ok,
	}
}

// Tools are the tools the server offers, in its order: name and title
// (kontext --help, its man page and completions list them).
func Tools() (names, titles []string) {
	for _, t := range mcptools.List() {
		names = append(names, t.Name())
		titles = append(titles, t.Title())
	}
	return names, titles
}

// mustJSON marshals maps of valid raw JSON, which always marshal.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
