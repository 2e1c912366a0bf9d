package mcptools

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

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
	// schema is the argument's whole JSON Schema when it is more than its
	// kind says (an object's properties, an integer's bounds); nil: the kind's.
	schema map[string]any
	// opSchema is the operation's schema of the field (apiFields).
	opSchema map[string]any
}

// typed gives fields their operation's whole schema (bounds, enums,
// defaults). The tools that existed before it keep their frozen schemas.
func typed(fs []field) []field {
	for i := range fs {
		if fs[i].opSchema != nil {
			fs[i].schema = fs[i].opSchema
		}
	}
	return fs
}

// Tool is one MCP tool: its arguments, how they become one dispatcher
// request (operation name and input document), and how its answer reads
// as text.
type Tool struct {
	name        string
	title       string
	description string
	annotations *Annotations
	fields      []field
	// resultOp is the operation whose result the tool answers (its
	// outputSchema's result); "" for ctx_api, which answers any operation's.
	resultOp string
	request  func(args map[string]json.RawMessage) (op string, input []byte, err error)
	// answer renders a successful result as the tool answers it: the
	// result its structuredContent carries and its text block (nil: the
	// operation's result, and its answer's JSON as text). text.go.
	answer func(result json.RawMessage, args map[string]json.RawMessage) (json.RawMessage, string)
}

const dirDescription = "Another worktree or repository to read, relative to the server's directory (kontext -C) or absolute."

// Annotations are a tool's hints: the fields and JSON of the SDK's
// mcp.ToolAnnotations (the CLI's server converts them; the edge marshals
// them as they are).
type Annotations struct {
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	Title           string `json:"title,omitempty"`
}

// Annotation values (the SDK takes pointers for hints whose default is true).
var (
	no  = new(bool)
	yes = func() *bool { b := true; return &b }()
)

// readOnly annotates a tool that changes nothing.
func readOnly(title string) *Annotations {
	return &Annotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: no, OpenWorldHint: no}
}

// DefaultPage is the page size of the list answers (ctx_governing, and
// entries.list and entries.search through ctx_api).
const DefaultPage = 10

// tools is the frozen tool surface (testdata/mcp/tools.json): tools and
// optional fields may be added, never removed or changed in type. Built at
// first use: the fields come from the operations' schemas, which a CLI call
// that starts no server must not decode.
var tools = sync.OnceValue(func() []Tool {
	return []Tool{
		{
			name:  "ctx_api",
			title: "kontext API",
			description: "Call any kontext operation (the same operations as `kontext api`): reads such as status, entries.list, entries.get, entries.search, entries.governing, " +
				"context.brief, and writes such as drafts.capture, drafts.stage, drafts.retire. " +
				"The answer is {schema_version, ok, result} or {schema_version, ok: false, error: {code, message}}, as JSON in the text block too. " +
				"api.describe gives each operation's input schema; status.capabilities lists the operations. " +
				"entries.list and entries.search answer 10 entries a page here unless input.limit says otherwise: total counts them all, and next_cursor, passed back as input.cursor with the same other inputs, gives the next page " +
				"(stale_cursor: the knowledge changed, ask again without it); input.view \"compact\" sends short records in items instead of whole entries (the answer then has items and no entries key; the default full view has entries, [] when nothing matches).",
			annotations: &Annotations{Title: "kontext API", DestructiveHint: yes, OpenWorldHint: no},
			fields: []field{
				{name: "operation", kind: kString, required: true, description: "Operation name, e.g. status, api.describe, entries.list, entries.get, entries.search, entries.governing, entries.related, entries.drift, entries.changed, context.brief, drafts.capture."},
				{name: "input", kind: kObject, description: "The operation's input object (default {}); api.describe gives its JSON Schema."},
				{name: "dir", kind: kString, description: dirDescription + " Overrides input.dir."},
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
				d, hasDir := args["dir"]
				// The paged reads (the dispatch table marks them) but
				// entries.governing, which ctx_governing pages.
				paged := engine.IsPaged(op) && op != "entries.governing"
				if !hasDir && !paged {
					return op, input, nil
				}
				var obj map[string]json.RawMessage
				if err := json.Unmarshal(input, &obj); err != nil {
					return "", nil, apierr.Invalid("ctx_api: input must be an object: %v", err)
				}
				if obj == nil {
					obj = map[string]json.RawMessage{}
				}
				if hasDir {
					obj["dir"] = d
				}
				// List answers are paged for a model's context: 10 a page unless asked otherwise.
				if _, ok := obj["limit"]; paged && !ok {
					obj["limit"] = mustJSON(DefaultPage)
				}
				return op, mustJSON(obj), nil
			},
		},
		{
			name:  "ctx_brief",
			title: "Brief for paths or a change",
			description: "The rules that govern a set of files, as one document that fits a line budget: decisions first, then conventions, learnings, incidents, " +
				"what is due for review, premises that changed, and under EXCLUDED every item left out with the reason. " +
				"Give paths, or diff (a git revision: the files changed since it plus uncommitted ones), or neither for the uncommitted files. " +
				"The text block is the document; the structured answer has it by section (the changed paths only counted, in repository.path_count). over_budget: true means it is longer than budget_lines with nothing left to drop.",
			annotations: readOnly("Brief for paths or a change"),
			fields:      append(typed(apiFields("context.brief", nil, "paths", "diff", "budget_lines", "architecture")), dirField),
			resultOp:    "context.brief",
			request: func(args map[string]json.RawMessage) (string, []byte, error) {
				args["view"] = mustJSON("compact") // a diff can name thousands of paths: the paths line summarises them
				return "context.brief", mustJSON(args), nil
			},
			answer: briefAnswer,
		},
		{
			name:  "ctx_capture",
			title: "Capture an insight",
			description: "Keep an insight (a decision, convention, learning or incident about some paths) as a candidate in this worktree's local inbox; nothing is staged or committed. " +
				"The answer's candidate.id is what ctx_prepare_commit takes. Related existing entries come back in related_entries: check them before adding a near duplicate. " +
				"Example: {\"entry\": {\"kind\": \"learning\", \"title\": \"Exports need the advisory lock\", \"body\": \"The nightly export takes lock 42 ...\", \"paths\": [\"src/export/**\"]}}.",
			annotations: &Annotations{Title: "Capture an insight", DestructiveHint: no, IdempotentHint: false, OpenWorldHint: no},
			fields:      append(typed(apiFields("drafts.capture", nil, "entry", "source", "operation_id")), dirField),
			resultOp:    "drafts.capture",
			request:     forward("drafts.capture"),
		},
		{
			name:  "ctx_challenge",
			title: "Challenge an entry",
			description: "Record in this worktree's inbox that an entry may be wrong and why. " +
				"A challenge is never staged; retiring or superseding the entry resolves it.",
			annotations: &Annotations{Title: "Challenge an entry", DestructiveHint: no, OpenWorldHint: no},
			fields:      append(apiFields("inbox.challenge", nil, "id", "because"), dirField),
			resultOp:    "inbox.challenge",
			request:     forward("inbox.challenge"),
		},
		{
			name:  "ctx_governing",
			title: "Rules governing files",
			description: "Which knowledge entries (decisions, conventions, learnings, incidents) govern these files, most specific first. " +
				"The answer lists them in items (there is no entries key; items is [] when nothing governs): each as id, kind, title, status, and the rule (glob) that matched with its specificity; the text block says the same, one line per entry. " +
				"Read one in full with ctx_api entries.get {id} (detail: true sends whole entries in entries instead of items). " +
				"At most limit entries (default 10) per answer: total says how many govern, and next_cursor, passed back as cursor with the same paths, gives the next page. " +
				"With client (and cwd, the agent's start directory): what that coding agent puts in its context for the files, in the order it loads them, each item with load and reason.",
			annotations: readOnly("Rules governing files"),
			resultOp:    "entries.governing",
			fields: append(apiFields("entries.governing", nil, "paths", "min_specificity", "client", "cwd"), dirField,
				field{name: "detail", kind: kBool, description: "Send whole entries (body, links, verification, history) instead of the short form."},
				field{name: "limit", kind: kInteger, description: "At most this many entries per answer (default 10).",
					schema: map[string]any{"type": "integer", "minimum": 1, "maximum": engine.MaxGoverningLimit, "default": DefaultPage}},
				field{name: "cursor", kind: kString, description: "next_cursor of the previous answer, for the next page. After the knowledge changed it answers stale_cursor: ask again without it."}),
			request: func(args map[string]json.RawMessage) (string, []byte, error) {
				view := "compact"
				if string(bytes.TrimSpace(args["detail"])) == "true" {
					view = "full"
				}
				delete(args, "detail")
				args["view"] = mustJSON(view)
				if _, ok := args["limit"]; !ok {
					args["limit"] = mustJSON(DefaultPage)
				}
				return "entries.governing", mustJSON(args), nil
			},
			answer: governingAnswer,
		},
		{
			name:  "ctx_prepare_commit",
			title: "Stage a captured candidate",
			description: "Stage a captured candidate (candidate_id from ctx_capture, or from ctx_api inbox.list) as a new entry for the next commit; kontext never commits. " +
				"Retrying with the same operation_id returns the first result. " +
				"With formalize: true and a locally selected model, the candidate is worded by the model first and staged with that wording.",
			annotations: &Annotations{Title: "Stage a captured candidate", DestructiveHint: no, IdempotentHint: true, OpenWorldHint: no},
			resultOp:    "drafts.stage",
			// The tool stages a candidate only: candidate_id is required here.
			fields: append(apiFields("drafts.stage", []string{"candidate_id"}, "candidate_id", "operation_id"), dirField,
				field{name: "formalize", kind: kBool, description: "Word the candidate with the locally selected model before staging; without a selected model it is staged as captured."}),
			request: func(args map[string]json.RawMessage) (string, []byte, error) {
				delete(args, "formalize") // handled by the server (prepareCommit)
				return "drafts.stage", mustJSON(args), nil
			},
		},
	}
})

// dirField is the dir argument of the convenience tools (resolved against
// the server's directory, unlike the API's dir).
var dirField = field{name: "dir", kind: kString, description: dirDescription}

// apiFields are the named fields of op's input as tool arguments: type,
// description and required come from the input schema generated from
// engine/api (api.describe), so a tool cannot drift from its operation.
// require marks more fields required than the operation requires.
func apiFields(op string, require []string, names ...string) []field {
	raw, ok := engine.InputSchema(op)
	if !ok {
		panic("mcptools: no input schema for " + op)
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		panic("mcptools: the input schema of " + op + " is corrupt: " + err.Error())
	}
	var out []field
	for _, n := range names {
		rawp, ok := s.Properties[n]
		if !ok {
			panic("mcptools: " + op + " has no input field " + n)
		}
		var p struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		}
		var full map[string]any
		if json.Unmarshal(rawp, &p) != nil || json.Unmarshal(rawp, &full) != nil {
			panic("mcptools: the input schema of " + op + "." + n + " is corrupt")
		}
		k := map[string]kind{"string": kString, "integer": kInteger, "array": kStrings, "object": kObject, "boolean": kBool}[p.Type]
		if k == "" {
			panic("mcptools: " + op + "." + n + " has an unsupported type " + p.Type)
		}
		f := field{name: n, kind: k, required: slices.Contains(s.Required, n) || slices.Contains(require, n), description: p.Description, opSchema: full}
		if k == kObject {
			f.schema = full
		}
		out = append(out, f)
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
func (t Tool) inputSchema() map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range t.fields {
		var p map[string]any
		switch {
		case f.schema != nil:
			p = maps.Clone(f.schema)
		default:
			p = f.kind.schema()
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

// schema is the JSON Schema of a plain argument of kind k.
func (k kind) schema() map[string]any {
	var p map[string]any
	switch k {
	case kStrings:
		p = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	case kInteger:
		p = map[string]any{"type": "integer", "minimum": 0}
	default:
		p = map[string]any{"type": string(k)}
	}
	return p
}

// resultsJSON holds the result schemas generated from engine/api by go
// generate ./engine (engine/internal/apigen): {"<operation>": <schema>}.
//
//go:embed results.json
var resultsJSON []byte

// resultSchema is the generated JSON Schema of op's result, a fresh copy.
func resultSchema(op string) map[string]any {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(resultsJSON, &all); err != nil {
		panic("mcptools: results.json is corrupt; run go generate ./engine: " + err.Error())
	}
	var s map[string]any
	if err := json.Unmarshal(all[op], &s); err != nil || s == nil {
		panic("mcptools: no result schema for " + op + "; run go generate ./engine")
	}
	return s
}

// outputSchema is the tool's output schema: the API envelope, its result
// typed by the tool's operation (ctx_api: an object, any operation's).
func (t Tool) outputSchema() map[string]any {
	s := envelopeSchema()
	r := map[string]any{"type": "object", "description": "The operation's result (when ok is true): an object of the operation's result shape."}
	if t.resultOp != "" {
		r = resultSchema(t.resultOp)
		r["description"] = "The " + t.resultOp + " result (when ok is true)."
	}
	if t.name == "ctx_governing" {
		// governingAnswer: the page, or with detail the whole entries.
		page := resultSchema(t.name)
		page["description"] = "The governing entries (the default)."
		r["description"] = "With detail: true, the " + t.resultOp + " result."
		r = map[string]any{"type": "object", "anyOf": []any{page, r}, "description": "The answer (when ok is true)."}
	}
	s["properties"].(map[string]any)["result"] = r
	return s
}

// envelopeSchema is the API envelope, its result untyped (outputSchema
// types it).
func envelopeSchema() map[string]any {
	return map[string]any{
		"type":        "object",
		"description": "The answer: ok with result, or ok false with error.",
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
func (t Tool) decode(raw json.RawMessage) (map[string]json.RawMessage, error) {
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
