// Package drafts holds kontext's write operations: staging new entries,
// amends, supersedes, retirements, confirmations, verify runs, the local
// inbox and setup. Each operation plans its file changes on a fresh read
// taken under the write lock; transaction.go owns the one sequence every
// write follows (receipt → lock → plan → write → stage → receipt).
//
// The engine never imports this package: a native opener passes
// Operations() to engine.New, so a build that does not import drafts (the
// WASM engine) links no write code at all.
package drafts

import (
	"context"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/drafts/inbox"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

// draft is the engine seen from a write operation.
type draft struct{ *engine.Engine }

// row builds the dispatch row of a write operation.
func row[I, O any](name string, run func(ctx context.Context, e *draft, in *I) (O, error)) engine.Operation {
	return engine.Op(name, engine.NeedsWriter, func(ctx context.Context, e *engine.Engine, in *I) (O, error) {
		return run(ctx, &draft{e}, in)
	}).Checked(jsonin.CheckText)
}

// Operations are the write rows of the dispatch table.
func Operations() []engine.Operation {
	return append([]engine.Operation{
		row("setup", runSetup),
		row("drafts.stage", runStage).Returning(&api.StageResult{}, &api.AmendResult{}),
		row("drafts.confirm", runConfirm).Returning(&api.Confirmation{}, &api.ConfirmManyResult{}, &api.RepairResult{}, &api.MigrateResult{}),
		row("drafts.retire", runRetire).Returning(&api.StageResult{}),
		row("drafts.set_verify", runSetVerify).Returning(&api.StageResult{}),
		row("drafts.set_status", runSetStatus).Returning(&api.StageResult{}),
		row("drafts.set_paths", runSetPaths).Returning(&api.SetPathsResult{}),
		row("drafts.verify", runVerify),
		row("drafts.extend", runExtend),
		row("operations.get", runOperationsGet),
	}, inbox.Operations(func(e *engine.Engine) inbox.Tx { return &draft{e} })...)
}

// The transaction as the inbox sees it (inbox.Tx).

func (e *draft) Writer() (engine.Writer, error) { return e.writer() }
func (e *draft) Locally(ctx context.Context, change func(w engine.Writer) error) error {
	return e.locally(ctx, change)
}
func (e *draft) Receipted(ctx context.Context, w engine.Writer, op, operationID, fp string, write func(w engine.Writer) (any, error)) (any, error) {
	return e.receipted(ctx, w, op, operationID, fp, func(pw engine.Writer, _ *plan) (any, error) { return write(pw) })
}
func (e *draft) Fingerprint(v any) string { return fingerprint(v) }

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Typed functions of the write operations for Go callers (the CLI, MCP):
// the same rows and checks as a request, without JSON. Operations that may
// answer a stored result (a retry) return it as any.

func call[I, O any](ctx context.Context, e *engine.Engine, name string, run func(context.Context, *draft, *I) (O, error), in *I) (O, error) {
	return engine.Invoke(ctx, e, name, func(ctx context.Context, e *engine.Engine, in *I) (O, error) {
		return run(ctx, &draft{e}, in)
	}, in)
}

// Setup runs setup.
func Setup(ctx context.Context, e *engine.Engine, in *api.SetupInput) (*api.SetupResult, error) {
	return call(ctx, e, "setup", runSetup, in)
}

// Stage runs drafts.stage (*api.StageResult, *api.AmendResult or a replay).
func Stage(ctx context.Context, e *engine.Engine, in *api.StageInput) (any, error) {
	return call(ctx, e, "drafts.stage", runStage, in)
}

// Confirm runs drafts.confirm.
func Confirm(ctx context.Context, e *engine.Engine, in *api.ConfirmInput) (any, error) {
	return call(ctx, e, "drafts.confirm", runConfirm, in)
}

// Retire runs drafts.retire.
func Retire(ctx context.Context, e *engine.Engine, in *api.RetireInput) (any, error) {
	return call(ctx, e, "drafts.retire", runRetire, in)
}

// SetStatus runs drafts.set_status (*api.StageResult or a replay).
func SetStatus(ctx context.Context, e *engine.Engine, in *api.SetStatusInput) (any, error) {
	return call(ctx, e, "drafts.set_status", runSetStatus, in)
}

// SetPaths runs drafts.set_paths (*api.SetPathsResult or a replay).
func SetPaths(ctx context.Context, e *engine.Engine, in *api.SetPathsInput) (any, error) {
	return call(ctx, e, "drafts.set_paths", runSetPaths, in)
}

// Verify runs drafts.verify.
func Verify(ctx context.Context, e *engine.Engine, in *api.VerifyInput) (*api.VerifyResult, error) {
	return call(ctx, e, "drafts.verify", runVerify, in)
}

// Capture runs drafts.capture.
func Capture(ctx context.Context, e *engine.Engine, in *api.CaptureInput) (any, error) {
	return inbox.Capture(ctx, e, &draft{e}, in)
}

// InboxList runs inbox.list.
func InboxList(ctx context.Context, e *engine.Engine, in *api.InboxListInput) (*api.InboxListResult, error) {
	return inbox.List(ctx, e, &draft{e}, in)
}

// InboxDrop runs inbox.drop.
func InboxDrop(ctx context.Context, e *engine.Engine, in *api.InboxDropInput) (*api.InboxCandidate, error) {
	return inbox.Drop(ctx, e, &draft{e}, in)
}

// Challenge runs inbox.challenge.
func Challenge(ctx context.Context, e *engine.Engine, in *api.InboxChallengeInput) (*api.CaptureResult, error) {
	return inbox.Challenge(ctx, e, &draft{e}, in)
}

// OperationsGet runs operations.get (the stored result of a finished
// write, or the error of an unfinished or unknown one).
func OperationsGet(ctx context.Context, e *engine.Engine, in *api.OperationsGetInput) (any, error) {
	return call(ctx, e, "operations.get", runOperationsGet, in)
}
