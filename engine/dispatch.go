package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/kb"
)

// Operation is one row of the dispatch table: a name, a typed run
// function, and what the operation needs. Build rows with Op.
type Operation struct {
	name  string
	needs Needs
	// input and results are the Go types of the input and of the result
	// shapes, for the generators of schemas and TypeScript declarations.
	input   reflect.Type
	results []reflect.Type
	// newInput returns a pointer to a fresh input value (decoding, schemas).
	newInput func() any
	// run runs the operation on a decoded input from newInput.
	run func(ctx context.Context, e *Engine, in any) (any, error)
	// check vets a decoded input before run (Checked); nil for none.
	check func(in any) error
}

// Needs says what an operation needs from the engine it runs on.
type Needs uint8

const (
	// Subset marks an operation the Snapshot (WASM) surface serves too.
	Subset Needs = 1 << iota
	// NeedsHistory marks an operation that needs git history (native only).
	NeedsHistory
	// NeedsWriter marks an operation that writes (native only, with a Writer).
	NeedsWriter
	// Paged marks a read answered in pages: it takes view and cursor
	// (capabilities <op>.view and <op>.cursor).
	Paged
)

// Op builds the row of operation name from its typed run function. The
// dispatcher decodes the JSON input strictly into a fresh I and hands run a
// pointer to it; typed Go callers use Call with the same row.
func Op[I, O any](name string, needs Needs, run func(ctx context.Context, e *Engine, in *I) (O, error)) Operation {
	return Operation{
		name:     name,
		needs:    needs,
		input:    reflect.TypeFor[I](),
		results:  []reflect.Type{reflect.TypeFor[O]()},
		newInput: func() any { return new(I) },
		run: func(ctx context.Context, e *Engine, in any) (any, error) {
			// The only assertion: newInput above made in a *I.
			return run(ctx, e, in.(*I))
		},
	}
}

// Checked returns the row with check run on every decoded input before
// the operation (and before a typed call's run): the write rows refuse
// control characters in their text this way. A function value, not a
// flag, so the WASM engine, which has no write rows, links no checker.
func (o Operation) Checked(check func(in any) error) Operation {
	o.check = check
	return o
}

// IsChecked reports whether the row checks its input (Checked).
func (o Operation) IsChecked() bool { return o.check != nil }

// Name is the operation's name in the API.
func (o Operation) Name() string { return o.name }

// Needs says what the operation needs.
func (o Operation) Needs() Needs { return o.needs }

// Input is the Go type of the operation's input.
func (o Operation) Input() reflect.Type { return o.input }

// Results are the Go types of the operation's result shapes.
func (o Operation) Results() []reflect.Type { return o.results }

// Returning documents the result shapes of a row whose run function
// returns any (several shapes, or a stored result a retry replays).
func (o Operation) Returning(shapes ...any) Operation {
	o.results = nil
	for _, s := range shapes {
		o.results = append(o.results, reflect.TypeOf(s))
	}
	return o
}

// Table is the whole dispatch table of an engine opened with rows as
// Options.Operations, in order.
func Table(rows ...Operation) []Operation { return append(readOperations(), rows...) }

// readOperations are the rows the engine itself implements: the reads,
// served on every surface that has what they need. The write rows
// (engine/drafts) and the native worktree's reads (engine/worktree) come
// through Options.Operations (a native opener passes them), so a build
// that never imports those packages (the WASM) links none of their code.
func readOperations() []Operation {
	rows := []Operation{
		Op("status", Subset, runStatus),
		Op("api.describe", Subset, runDescribe).Returning(&api.DescribeResult{}, &api.DescribeOneResult{}),
		Op("entries.list", Subset|Paged, runList),
		Op("entries.get", Subset, runGet),
		Op("entries.search", Subset|Paged, runSearch),
		Op("entries.governing", Subset|Paged, runGoverning),
		Op("entries.related", Subset, runRelated),
		Op("context.brief", Subset, runBrief),
		Op("context.cost", Subset, runCost),
		Op("rules.lint", Subset, runLint),
	}
	// The history reads: the WASM engine serves none of them (no Subset),
	// and leaving the rows out drops their code from it; isPlanned still
	// knows the names, so asking for one answers the same unsupported error.
	if nativeBuild {
		rows = append(rows,
			Op("entries.drift", NeedsHistory, runDrift),
			Op("entries.changed", NeedsHistory, runChanged),
			Op("entries.export", NeedsHistory, runExport),
		)
	}
	return rows
}

// planned are operations of the API that this version does not implement
// yet; they answer unsupported_operation with a message saying so.
var planned = []string{
	"drafts.verify",
	"drafts.revise", "drafts.extend", "drafts.extract", "drafts.formalize",
	"guidance.propose",
}

func (e *Engine) lookupOp(name string) (*Operation, bool) {
	for i := range e.ops {
		if e.ops[i].name == name {
			return &e.ops[i], true
		}
	}
	return nil, false
}

// InputTypes returns a fresh input value of every operation of rows plus
// the engine's own, by name (for schema generation and documentation).
func InputTypes(rows ...Operation) map[string]any {
	out := map[string]any{}
	for _, op := range Table(rows...) {
		out[op.name] = op.newInput()
	}
	return out
}

// serves reports whether this engine's surface serves op.
func (e *Engine) serves(op *Operation) bool { return e.opts.Surface == Native || op.needs&Subset != 0 }

// Capabilities is status.capabilities, without reading the knowledge base.
func (e *Engine) Capabilities() []string { return e.capabilities() }

// Operations are the operations this surface serves, sorted: the
// capabilities that are operations (entries.list.view and the like name
// no operation). Reading them needs no schema.
func (e *Engine) Operations() []string {
	ops := []string{}
	for _, op := range e.ops {
		if e.serves(&op) && (op.needs&NeedsHistory == 0 || e.opts.History != nil) && (op.needs&NeedsWriter == 0 || e.opts.Writer != nil) {
			ops = append(ops, op.name)
		}
	}
	sort.Strings(ops)
	return ops
}

// capabilities lists what this surface really supports: its operations,
// plus the history capability strings where git history is at hand.
func (e *Engine) capabilities() []string {
	caps := e.Operations()
	// The compact view and cursor pages of the paged reads this surface serves.
	for _, op := range e.ops {
		if op.needs&Paged != 0 && e.serves(&op) {
			caps = append(caps, op.name+".view", op.name+".cursor")
		}
	}
	// What each client loads: every surface answers governing with client
	// (engine/clients.go); a cost of a diff needs git history.
	caps = append(caps, "entries.governing.client")
	if e.opts.History != nil {
		caps = append(caps, "verification.last_verified", "drift.ordered", "drift.broad", "context.cost.diff")
		// A revision without a configuration is read with head's, else
		// the working tree's (entries.changed, entries.drift: warnings).
		caps = append(caps, "history.config_per_revision")
	}
	if e.opts.Writer != nil {
		caps = append(caps, "drafts.confirm.operation_id", "drafts.stage.extends",
			"drafts.stage.amends", "drafts.stage.amends.additive", "drafts.capture.extends")
		if e.opts.RelatedCache != nil {
			caps = append(caps, "drafts.related_entries.cached_relations")
		}
		if e.opts.Runner != nil && e.opts.Trust != nil {
			caps = append(caps, "drafts.verify.pinned")
		}
		if e.opts.Nested != nil {
			caps = append(caps, "drafts.routing.nested")
		}
		if e.incomplete != nil {
			caps = append(caps, "status.incomplete_operations")
		}
	}
	if e.boundaries != nil {
		caps = append(caps, "entries.governing.boundaries")
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
// It is the JSON door; Invoke is the typed one. Both take the same
// preamble (door) and the same spoiled-snapshot retry (answer).
func (e *Engine) Do(ctx context.Context, name string, input []byte) (any, error) {
	o, err := e.door(name)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(input)) == 0 {
		input = []byte("{}")
	}
	in := o.newInput()
	if err := jsonin.Decode(input, in); err != nil {
		return nil, err
	}
	if err := e.admit(ctx, o, in); err != nil {
		return nil, err
	}
	return answer(e, o, func() (any, error) { return o.run(ctx, e, in) })
}

// door finds the row of operation name, served by this engine.
func (e *Engine) door(name string) (*Operation, error) {
	o, ok := e.lookupOp(name)
	if !ok || !e.serves(o) {
		return nil, unsupported(name, ok || isPlanned(name), e.opts.Surface)
	}
	return o, nil
}

// admit vets a decoded input of o before it runs: no dir in the
// in-memory engine, ctx not done, and the row's own check.
func (e *Engine) admit(ctx context.Context, o *Operation, in any) error {
	if d := dirOf(in); d != "" && e.opts.Surface != Native {
		return apierr.Invalid("dir is not available in the in-memory engine; open another knowledge base instead")
	}
	if err := ctx.Err(); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "%s was cancelled", o.name)
	}
	if o.check != nil {
		// Writes refuse control characters in their text, for Go callers as for requests.
		if err := o.check(in); err != nil {
			return err
		}
	}
	return nil
}

// answer runs a read once more when an entry of the stored compiled
// snapshot did not decode during it: the reader has dropped the stored
// snapshot, so the second run answers from the files. Writes run once.
func answer[O any](e *Engine, o *Operation, run func() (O, error)) (O, error) {
	if o.needs&NeedsWriter != 0 {
		return run()
	}
	spoiled := e.reader.Spoiled()
	res, err := run()
	if e.reader.Spoiled() != spoiled {
		res, err = run()
	}
	return res, err
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
	// A short name (brief, governing) names the operation it ends; of
	// several (list: entries.list, inbox.list), the first by name.
	if full := endingIn(name); full != "" {
		return apierr.New(apierr.UnsupportedOperation, "unknown operation %q; did you mean %s? status.capabilities lists the operations", name, full)
	}
	return apierr.New(apierr.UnsupportedOperation, "unknown operation %q; status.capabilities lists the operations", name)
}

// endingIn is the first operation of the API, by name, whose name after
// its namespace is short ("" when none).
func endingIn(short string) string {
	best := ""
	try := func(full string) {
		if _, rest, ok := strings.Cut(full, "."); ok && rest == short && (best == "" || full < best) {
			best = full
		}
	}
	for full := range loadSchemas() {
		try(full)
	}
	for _, full := range planned {
		try(full)
	}
	return best
}

// IsPaged reports whether operation name is a read answered in pages
// (view and cursor), as the dispatch table marks it.
func IsPaged(name string) bool { return pagedReads()[name] }

var pagedReads = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, op := range readOperations() {
		if op.needs&Paged != 0 {
			m[op.name] = true
		}
	}
	return m
})

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

// encode is the JSON of v as the API writes it: encoding/json with HTML
// escaping off, without the encoder's trailing newline.
func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return encodeFailed(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// encodeFailed is the envelope of an answer that could not be encoded.
func encodeFailed(err error) []byte {
	return encode(envelope{SchemaVersion: 1, Error: map[string]string{
		"code": string(apierr.OperationFailed), "message": "encoding the result failed: " + err.Error()}})
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
