package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/kb"
)

// operation is one row of the dispatch table.
type operation struct {
	name    string
	input   func() any // a pointer to a fresh input struct
	run     func(ctx context.Context, e *Engine, in any) (any, error)
	subset  bool // served by the Snapshot (WASM) surface too
	history bool // needs git history (native only)
	writes  bool // needs a Writer (native only)
}

// operations is the one dispatch table of every surface (filled in init:
// runStatus reads it back through capabilities). Files that own a group of
// operations add their rows with register from their own init.
var operations []operation

// register adds rows to the dispatch table (from init functions).
func register(ops ...operation) { operations = append(operations, ops...) }

func init() {
	register(
		operation{name: "status", input: func() any { return &api.StatusInput{} }, run: runStatus, subset: true},
		operation{name: "setup", input: func() any { return &api.SetupInput{} }, run: runSetup},
		operation{name: "api.describe", input: func() any { return &api.DescribeInput{} }, run: runDescribe, subset: true},
		operation{name: "entries.list", input: func() any { return &api.ListInput{} }, run: runList, subset: true},
		operation{name: "entries.get", input: func() any { return &api.GetInput{} }, run: runGet, subset: true},
		operation{name: "entries.search", input: func() any { return &api.SearchInput{} }, run: runSearch, subset: true},
		operation{name: "entries.governing", input: func() any { return &api.GoverningInput{} }, run: runGoverning, subset: true},
		operation{name: "entries.related", input: func() any { return &api.RelatedInput{} }, run: runRelated, subset: true},
		operation{name: "entries.drift", input: func() any { return &api.DriftInput{} }, run: runDrift, history: true},
		operation{name: "entries.changed", input: func() any { return &api.ChangedInput{} }, run: runChanged, history: true},
		operation{name: "entries.export", input: func() any { return &api.ExportInput{} }, run: runExport, history: true},
	)
}

// planned are operations of the API that this version does not implement
// yet; they answer unsupported_operation with a message saying so.
var planned = []string{
	"drafts.verify",
	"drafts.revise", "drafts.extend", "drafts.extract", "drafts.formalize",
	"guidance.propose",
}

func lookupOp(name string) (*operation, bool) {
	for i := range operations {
		if operations[i].name == name {
			return &operations[i], true
		}
	}
	return nil, false
}

// InputTypes returns a fresh input value of every implemented operation,
// by name (for schema generation and documentation).
func InputTypes() map[string]any {
	out := make(map[string]any, len(operations))
	for _, op := range operations {
		out[op.name] = op.input()
	}
	return out
}

// serves reports whether this engine's surface serves op.
func (e *Engine) serves(op *operation) bool { return e.opts.Surface == Native || op.subset }

// capabilities lists what this surface really supports: its operations,
// plus the history capability strings where git history is at hand.
func (e *Engine) capabilities() []string {
	var caps []string
	for _, op := range operations {
		if e.serves(&op) && (!op.history || e.opts.History != nil) && (!op.writes || e.opts.Writer != nil) {
			caps = append(caps, op.name)
		}
	}
	if e.opts.History != nil {
		caps = append(caps, "verification.last_verified", "drift.ordered")
	}
	if e.opts.Writer != nil {
		caps = append(caps, "drafts.confirm.operation_id", "drafts.stage.extends",
			"drafts.stage.amends", "drafts.stage.amends.additive", "drafts.capture.extends")
		if e.opts.Runner != nil && e.opts.Trust != nil {
			caps = append(caps, "drafts.verify.pinned")
		}
	}
	sort.Strings(caps)
	return caps
}

type envelope struct {
	SchemaVersion int  `json:"schema_version"`
	OK            bool `json:"ok"`
	Result        any  `json:"result,omitempty"`
	Error         any  `json:"error,omitempty"`
}

// Request runs one operation with a JSON input document and returns the
// JSON envelope. It never panics: a panic becomes operation_failed.
func (e *Engine) Request(ctx context.Context, op string, input []byte) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			out = ErrorEnvelope(apierr.New(apierr.OperationFailed, "internal error in %s: %v; please report it with the input", op, r))
		}
	}()
	res, err := e.Do(ctx, op, input)
	if err != nil {
		return ErrorEnvelope(err)
	}
	return ResultEnvelope(res)
}

// Do runs one operation and returns its result value (not yet encoded).
func (e *Engine) Do(ctx context.Context, name string, input []byte) (any, error) {
	o, ok := lookupOp(name)
	if !ok || !e.serves(o) {
		return nil, unsupported(name, ok || isPlanned(name), e.opts.Surface)
	}
	if len(bytes.TrimSpace(input)) == 0 {
		input = []byte("{}")
	}
	in := o.input()
	if err := jsonin.Decode(input, in); err != nil {
		return nil, err
	}
	if d := dirOf(in); d != "" && e.opts.Surface != Native {
		return nil, apierr.Invalid("dir is not available in the in-memory engine; open another knowledge base instead")
	}
	if err := ctx.Err(); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "%s was cancelled", name)
	}
	return o.run(ctx, e, in)
}

// isPlanned reports whether name is an operation of the API that this
// build does not serve: a planned one, or one compiled only natively
// (every API operation has an input schema).
func isPlanned(name string) bool {
	for _, p := range planned {
		if p == name {
			return true
		}
	}
	_, ok := loadSchemas()[name]
	return ok
}

func unsupported(name string, known bool, s Surface) error {
	switch {
	case known && s == Snapshot:
		return apierr.New(apierr.UnsupportedOperation, "%s is not available in the in-memory (WASM) engine; run it with the native CLI: kontext api %s", name, name)
	case known:
		return apierr.New(apierr.UnsupportedOperation, "%s is not implemented in this version of kontext; status.capabilities lists what is", name)
	}
	return apierr.New(apierr.UnsupportedOperation, "unknown operation %q; status.capabilities lists the operations", name)
}

func dirOf(in any) string {
	type dirred interface{ TargetDir() string }
	if d, ok := in.(dirred); ok {
		return d.TargetDir()
	}
	return ""
}

// ResultEnvelope encodes a successful result.
func ResultEnvelope(res any) []byte {
	return encode(envelope{SchemaVersion: 1, OK: true, Result: res})
}

// ErrorEnvelope encodes err as the error envelope.
func ErrorEnvelope(err error) []byte {
	return encode(envelope{SchemaVersion: 1, OK: false, Error: ErrorObject(err)})
}

// ErrorObject is the "error" object of the envelope for err.
func ErrorObject(err error) map[string]any {
	ae := apierr.As(err)
	obj := map[string]any{"code": ae.Code, "message": ae.Message}
	if al := ae.Aliases(); len(al) > 0 {
		obj["aliases"] = al
	}
	for k, v := range ae.Extra {
		if k != "code" && k != "message" && k != "aliases" {
			obj[k] = v
		}
	}
	return obj
}

func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		buf.Reset()
		fmt.Fprintf(&buf, `{"schema_version":1,"ok":false,"error":{"code":"operation_failed","message":%q}}`+"\n", "encoding the result failed: "+err.Error())
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

var blobOf = kb.BlobID

// InputDir returns the "dir" field of an input document ("" when absent or
// when the document is not a valid object; Request reports that).
func InputDir(input []byte) (string, error) {
	var d string
	if len(bytes.TrimSpace(input)) == 0 || jsonin.Check(input) != nil {
		return "", nil
	}
	if err := jsonin.Field(input, "dir", &d); err != nil {
		return "", err
	}
	return d, nil
}
