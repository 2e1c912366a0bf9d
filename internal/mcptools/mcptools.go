// Package mcptools owns kontext's MCP tool surface, apart from any
// transport: the tools (names, titles, descriptions, annotations, input
// and output schemas), how a call's arguments become one dispatcher
// request, and how an answer reads as text. The CLI's server
// (internal/mcpserver, on the official Go SDK) registers these tools; the
// WASM engine (cmd/wasm) answers the edge worker's MCP requests with Serve,
// a stateless JSON-RPC method table that writes what the SDK writes. It
// imports no SDK and nothing native, so it builds under js/wasm.
package mcptools

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/kontext/kontext/engine"
)

// List returns the tools in the server's order.
func List() []Tool { return tools() }

// Name is the tool's name (ctx_governing, …).
func (t Tool) Name() string { return t.name }

// Title is the tool's human title.
func (t Tool) Title() string { return t.title }

// Description is the tool's description.
func (t Tool) Description() string { return t.description }

// Annotations are the tool's hints.
func (t Tool) Annotations() *Annotations { return t.annotations }

// ResultOp is the operation whose result the tool answers; "" for ctx_api.
func (t Tool) ResultOp() string { return t.resultOp }

// InputSchema is the tool's input JSON Schema, derived from its fields.
func (t Tool) InputSchema() map[string]any { return t.inputSchema() }

// OutputSchema is the tool's output JSON Schema: the API envelope with the
// result typed by the tool's operation.
func (t Tool) OutputSchema() map[string]any { return t.outputSchema() }

// Decode checks the call's arguments against the tool's fields and returns
// them by name (invalid_input naming the field).
func (t Tool) Decode(raw json.RawMessage) (map[string]json.RawMessage, error) {
	return t.decode(raw)
}

// Request turns decoded arguments into one dispatcher request.
func (t Tool) Request(args map[string]json.RawMessage) (op string, input []byte, err error) {
	return t.request(args)
}

// Answer is how the tool answers env (the API envelope) to a call with
// args: the envelope its structuredContent carries (a successful result as
// the tool renders it: ctx_governing's short page) and its text block (the
// tool's text reading of a successful answer, text.go; else the answer's
// JSON as the dispatcher produced it). ok is the answer's ok.
func (t Tool) Answer(env []byte, args map[string]json.RawMessage) (out []byte, text string, ok bool) {
	var probe struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(env, &probe)
	out, text = env, string(env)
	if probe.OK && t.answer != nil {
		var result json.RawMessage
		result, text = t.answer(probe.Result, args)
		if !bytes.Equal(result, probe.Result) {
			out = engine.ResultEnvelope(result)
		}
	}
	return out, text, probe.OK
}

// Call runs one tools/call of t: decode, one request through run, and the
// answer as a CallResult (an argument error is the answer's error).
func (t Tool) Call(raw json.RawMessage, run func(op string, input []byte) []byte) *CallResult {
	var env []byte
	args, err := t.Decode(raw)
	if err == nil {
		asked := map[string]json.RawMessage{}
		for k, v := range args {
			asked[k] = v
		}
		var op string
		var input []byte
		if op, input, err = t.Request(args); err == nil {
			env = run(op, input)
		}
		args = asked
	}
	if err != nil {
		env = engine.ErrorEnvelope(err)
	}
	out, text, ok := t.Answer(env, args)
	return &CallResult{Content: []TextContent{{Type: "text", Text: text}}, StructuredContent: json.RawMessage(out), IsError: !ok}
}

// The wire shapes below are the SDK's (mcp.Tool, mcp.CallToolResult,
// mcp.InitializeResult): the same fields in the same order, so the edge's
// answers are byte for byte the CLI's (mcptools_test.go checks it against
// the SDK).

// Definition is a tool as tools/list sends it.
type Definition struct {
	Annotations  *Annotations `json:"annotations,omitempty"`
	Description  string       `json:"description,omitempty"`
	InputSchema  any          `json:"inputSchema"`
	Name         string       `json:"name"`
	OutputSchema any          `json:"outputSchema,omitempty"`
	Title        string       `json:"title,omitempty"`
}

// Definition is the tool's tools/list entry.
func (t Tool) Definition() Definition {
	return Definition{Annotations: t.annotations, Description: t.description, InputSchema: t.inputSchema(),
		Name: t.name, OutputSchema: t.outputSchema(), Title: t.title}
}

// CallResult is a tools/call result.
type CallResult struct {
	Content           []TextContent   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// MarshalJSON escapes <, > and & as the SDK's call result does.
func (r CallResult) MarshalJSON() ([]byte, error) {
	type wire CallResult
	return json.Marshal(wire(r))
}

// TextContent is a text block.
type TextContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ProtocolVersions are the MCP revisions Serve speaks, newest first (the
// SDK's, which the CLI's server speaks).
var ProtocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// statelessRevision is the first revision without the initialize
// handshake: initialize answers an older one.
const statelessRevision = "2026-07-28"

type initializeResult struct {
	Capabilities    capabilities   `json:"capabilities"`
	ProtocolVersion string         `json:"protocolVersion"`
	ServerInfo      implementation `json:"serverInfo"`
}

type capabilities struct {
	Logging struct{}         `json:"logging"`
	Tools   toolCapabilities `json:"tools"`
}

type toolCapabilities struct {
	ListChanged bool `json:"listChanged"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// JSON-RPC error codes.
const (
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
)

// Error is a JSON-RPC error.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// Serve answers one MCP request statelessly: method and params of a
// JSON-RPC request, the tools whose operation serves reports as served
// (ctx_api always: it answers any operation, and run refuses what its
// engine does not serve), and run, the one dispatcher request. It returns
// the result's JSON or a JSON-RPC error, as the SDK's server answers the
// same request. Notifications are the caller's (they have no answer).
func Serve(method string, params json.RawMessage, serves func(op string) bool, run func(op string, input []byte) []byte) (json.RawMessage, *Error) {
	offered := func() []Tool {
		var out []Tool
		for _, t := range List() {
			if t.resultOp == "" || serves(t.resultOp) {
				out = append(out, t)
			}
		}
		return out
	}
	switch method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if len(params) == 0 || string(params) == "null" {
			return nil, &Error{CodeInvalidParams, `invalid params: "params" must be be provided`}
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &Error{CodeInvalidParams, "invalid params: " + err.Error()}
		}
		// As the SDK negotiates: the client's revision when spoken, else
		// the newest; both below statelessRevision, whose clients do not
		// initialize.
		v := ""
		for _, s := range ProtocolVersions {
			if s < statelessRevision && (v == "" || s == p.ProtocolVersion) {
				v = s
			}
		}
		return marshal(initializeResult{Capabilities: capabilities{Tools: toolCapabilities{ListChanged: true}},
			ProtocolVersion: v, ServerInfo: implementation{Name: "kontext", Version: engine.Version}}), nil
	case "ping", "logging/setLevel":
		return json.RawMessage("{}"), nil
	case "resources/list", "resources/templates/list", "prompts/list":
		// kontext serves no resources or prompts: the SDK's empty lists.
		key := map[string]string{"resources/list": "resources", "resources/templates/list": "resourceTemplates", "prompts/list": "prompts"}[method]
		return json.RawMessage(`{"ttlMs":0,"cacheScope":"public","` + key + `":[]}`), nil
	case "tools/list":
		defs := []Definition{}
		for _, t := range offered() {
			defs = append(defs, t.Definition())
		}
		// ttlMs and cacheScope: the SDK's defaults (immediately stale;
		// public: the list is the same for every caller).
		return marshal(struct {
			TTLMs      int          `json:"ttlMs"`
			CacheScope string       `json:"cacheScope"`
			Tools      []Definition `json:"tools"`
		}{0, "public", defs}), nil
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &Error{CodeInvalidParams, "invalid params: " + err.Error()}
		}
		for _, t := range offered() {
			if t.name == p.Name {
				return marshal(t.Call(p.Arguments, run)), nil
			}
		}
		return nil, &Error{CodeInvalidParams, fmt.Sprintf("unknown tool %q", p.Name)}
	}
	return nil, &Error{CodeMethodNotFound, fmt.Sprintf("method not found: %q", method)}
}

// marshal encodes as the SDK's JSON-RPC layer does: no HTML escaping.
func marshal(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // the shapes above always marshal
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// JSON-RPC framing errors.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
)

// Handle answers one JSON-RPC message (frame) statelessly with Serve and
// returns the whole response, as the SDK writes it ({"jsonrpc":"2.0",
// "id":…,"result"|"error":…}); nil for a notification or a response,
// which have no answer. A frame that is not JSON answers a parse error
// and one that is not a request an invalid-request error, both with a
// null id. Batches are not part of MCP since 2025-06-18: an array is an
// invalid request.
func Handle(frame []byte, serves func(op string) bool, run func(op string, input []byte) []byte) []byte {
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	trimmed := bytes.TrimSpace(frame)
	if !json.Valid(trimmed) {
		return response(nil, nil, &Error{CodeParseError, "parse error: the body is not one JSON document"})
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return response(nil, nil, &Error{CodeInvalidRequest, "invalid request: send one JSON-RPC object (batches are not part of MCP)"})
	}
	if err := json.Unmarshal(trimmed, &msg); err != nil {
		return response(nil, nil, &Error{CodeInvalidRequest, "invalid request: " + err.Error()})
	}
	hasID := len(msg.ID) > 0 && string(msg.ID) != "null"
	if hasID && msg.ID[0] != '"' && (msg.ID[0] < '0' || msg.ID[0] > '9') && msg.ID[0] != '-' {
		return response(nil, nil, &Error{CodeInvalidRequest, "invalid request: id must be a string or a number"})
	}
	switch {
	case msg.JSONRPC != "2.0":
		return response(idOrNil(hasID, msg.ID), nil, &Error{CodeInvalidRequest, `invalid request: jsonrpc must be "2.0"`})
	case msg.Method == nil && (msg.Result != nil || msg.Error != nil):
		return nil // a response to nothing this server asked: dropped
	case msg.Method == nil:
		return response(idOrNil(hasID, msg.ID), nil, &Error{CodeInvalidRequest, "invalid request: no method"})
	case !hasID:
		return nil // a notification
	}
	res, rpcErr := Serve(*msg.Method, msg.Params, serves, run)
	return response(msg.ID, res, rpcErr)
}

func idOrNil(has bool, id json.RawMessage) json.RawMessage {
	if has {
		return id
	}
	return nil
}

// response is the JSON-RPC response; a nil id is null.
func response(id, result json.RawMessage, rpcErr *Error) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	w := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   *Error          `json:"error,omitempty"`
	}{"2.0", id, result, rpcErr}
	return marshal(w)
}
