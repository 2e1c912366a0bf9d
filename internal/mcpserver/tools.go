package mcpserver

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

// kind is the JSON type of a tool argument.
type kind string

const (
	kString  kind = "string"
	kObject  kind = "object"
	kInteger kind = "integer"
	kStrings kind = "string[]"
	kBool    kind = "boolean"
)

// field is one argument of a tool. The input schema and the argument
// check are both derived from the field list, so they cannot disagree.
type field struct {
	name        string
	kind        kind
	required    bool
	description string
}

// tool is one MCP tool: its arguments and how they become one dispatcher
// request (operation name and input document).
type tool struct {
	name        string
	description string
	fields      []field
	request     func(args map[string]json.RawMessage) (op string, input []byte, err error)
}

const dirDescription = "Another worktree or repository to read, relative to the server's directory (kontext -C) or absolute."

// tools is the frozen tool surface (testdata/mcp/tools.json): tools and
// optional fields may be added, never removed or changed in type.
var tools = []tool{
	{
		name: "ctx_api",
		description: "Call the kontext application API (the same dispatcher as `kontext api`). " +
			"The result is the API envelope {schema_version, ok, result|error}; api.describe lists the input schemas, " +
			"status.capabilities the operations.",
		fields: []field{
			{"operation", kString, true, "API operation, e.g. status, api.describe, entries.list, entries.get, entries.search, entries.governing, entries.related, entries.drift, entries.changed."},
			{"input", kObject, false, "The operation's input object (default {}); api.describe gives its JSON Schema."},
			{"dir", kString, false, dirDescription + " Overrides input.dir."},
		},
		request: func(args map[string]json.RawMessage) (string, []byte, error) {
			var op string
			if err := json.Unmarshal(args["operation"], &op); err != nil {
				return "", nil, apierr.Invalid("ctx_api: operation must be a string")
			}
			input := []byte("{}")
			if in, ok := args["input"]; ok {
				input = in
			}
			if d, ok := args["dir"]; ok {
				var obj map[string]json.RawMessage
				if err := json.Unmarshal(input, &obj); err != nil {
					return "", nil, apierr.Invalid("ctx_api: input must be an object: %v", err)
				}
				if obj == nil {
					obj = map[string]json.RawMessage{}
				}
				obj["dir"] = d
				input = mustJSON(obj)
			}
			return op, input, nil
		},
	},
	{
		name: "ctx_governing",
		description: "Which knowledge entries govern these files, and why (rule, specificity; narrow rules first). " +
			"A convenience over the API operation entries.governing; the result is its envelope.",
		fields:  append(apiFields("entries.governing", nil, "paths", "min_specificity"), dirField),
		request: forward("entries.governing"),
	},
	{
		name: "ctx_challenge",
		description: "Challenge an entry: record in this worktree's inbox that it may be wrong and why (API operation inbox.challenge). " +
			"A challenge is never staged; retiring or superseding the entry resolves it.",
		fields:  append(apiFields("inbox.challenge", nil, "id", "because"), dirField),
		request: forward("inbox.challenge"),
	},
	{
		name: "ctx_prepare_commit",
		description: "Stage a captured inbox candidate as a new entry for the next commit (API operation drafts.stage with candidate_id); " +
			"kontext never commits. Retrying with the same operation_id replays the first result. " +
			"With formalize: true and a locally selected model, the candidate is worded by drafts.formalize first and staged with that wording.",
		// The tool stages a candidate only: candidate_id is required here.
		fields: append(apiFields("drafts.stage", []string{"candidate_id"}, "candidate_id", "operation_id"), dirField,
			field{"formalize", kBool, false, "Word the candidate with the locally selected model (drafts.formalize) before staging; without a selected model it is staged as captured."}),
		request: func(args map[string]json.RawMessage) (string, []byte, error) {
			delete(args, "formalize") // handled by the server (prepareCommit)
			return "drafts.stage", mustJSON(args), nil
		},
	},
}

// dirField is the dir argument of the convenience tools (resolved against
// the server's directory, unlike the API's dir).
var dirField = field{"dir", kString, false, dirDescription}

// apiFields are the named fields of op's input as tool arguments: type,
// description and required come from the input schema generated from
// engine/api (api.describe), so a tool cannot drift from its operation.
// require marks more fields required than the operation requires.
func apiFields(op string, require []string, names ...string) []field {
	raw, ok := engine.InputSchema(op)
	if !ok {
		panic("mcpserver: no input schema for " + op)
	}
	var s struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		panic("mcpserver: the input schema of " + op + " is corrupt: " + err.Error())
	}
	var out []field
	for _, n := range names {
		p, ok := s.Properties[n]
		if !ok {
			panic("mcpserver: " + op + " has no input field " + n)
		}
		k := map[string]kind{"string": kString, "integer": kInteger, "array": kStrings, "object": kObject}[p.Type]
		if k == "" {
			panic("mcpserver: " + op + "." + n + " has an unsupported type " + p.Type)
		}
		out = append(out, field{n, k, slices.Contains(s.Required, n) || slices.Contains(require, n), p.Description})
	}
	return out
}

// forward sends the (checked) arguments as the input of op unchanged.
func forward(op string) func(map[string]json.RawMessage) (string, []byte, error) {
	return func(args map[string]json.RawMessage) (string, []byte, error) {
		return op, mustJSON(args), nil
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of valid raw JSON always marshal
	}
	return b
}

// inputSchema is the tool's JSON Schema (draft 2020-12), derived from its
// fields: an object with exactly these properties.
func (t tool) inputSchema() map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range t.fields {
		var p map[string]any
		switch f.kind {
		case kStrings:
			p = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		case kInteger:
			p = map[string]any{"type": "integer", "minimum": 0}
		default:
			p = map[string]any{"type": string(f.kind)}
		}
		p["description"] = f.description
		props[f.name] = p
		if f.required {
			required = append(required, f.name)
		}
	}
	return map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}

// envelopeSchema is the output schema of every tool: the API envelope.
func envelopeSchema() map[string]any {
	return map[string]any{
		"type":        "object",
		"description": "The kontext API envelope: ok with result, or not ok with error.",
		"properties": map[string]any{
			"schema_version": map[string]any{"type": "integer", "const": 1},
			"ok":             map[string]any{"type": "boolean"},
			"result":         map[string]any{"description": "The operation's result (when ok is true)."},
			"error": map[string]any{
				"type":        "object",
				"description": "The error (when ok is false); code is one of the API error codes.",
				"properties": map[string]any{
					"code":    map[string]any{"type": "string"},
					"message": map[string]any{"type": "string"},
				},
				"required": []string{"code", "message"},
			},
		},
		"required": []string{"schema_version", "ok"},
	}
}

// decode checks the call's arguments against the tool's fields (unknown
// field, missing required field, wrong JSON type: invalid_input naming the
// field) and returns them as raw values by name.
func (t tool) decode(raw json.RawMessage) (map[string]json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	if s := bytes.TrimSpace(raw); len(s) > 0 && !bytes.Equal(s, []byte("null")) {
		if s[0] != '{' {
			return nil, apierr.Invalid("%s: the arguments must be a JSON object", t.name)
		}
		if err := json.Unmarshal(s, &args); err != nil {
			return nil, apierr.Invalid("%s: the arguments are not valid JSON: %v", t.name, err)
		}
	}
	known := map[string]field{}
	names := make([]string, 0, len(t.fields))
	for _, f := range t.fields {
		known[f.name] = f
		names = append(names, f.name)
	}
	unknown := []string{}
	for name := range args {
		if _, ok := known[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, apierr.Invalid("%s: unknown field %q; the fields are %s", t.name, unknown[0], strings.Join(names, ", "))
	}
	for _, f := range t.fields {
		v, ok := args[f.name]
		if !ok {
			if f.required {
				return nil, apierr.Invalid("%s: %s is required", t.name, f.name)
			}
			continue
		}
		if !f.kind.matches(v) {
			want := string(f.kind)
			if f.kind == kStrings {
				want = "array of strings"
			}
			return nil, apierr.Invalid("%s: %s must be %s %s", t.name, f.name, article(want), want)
		}
	}
	return args, nil
}

func article(s string) string {
	if strings.ContainsRune("aeiou", rune(s[0])) {
		return "an"
	}
	return "a"
}

// matches reports whether v has the JSON type k (array elements are left
// to the dispatcher, which names the offending element).
func (k kind) matches(v json.RawMessage) bool {
	s := bytes.TrimSpace(v)
	if len(s) == 0 {
		return false
	}
	switch k {
	case kString:
		return s[0] == '"'
	case kObject:
		return s[0] == '{'
	case kStrings:
		return s[0] == '['
	case kBool:
		return string(s) == "true" || string(s) == "false"
	case kInteger:
		if s[0] == '"' {
			return false
		}
		var n json.Number
		if err := json.Unmarshal(s, &n); err != nil {
			return false
		}
		_, err := n.Int64()
		return err == nil
	}
	return false
}
