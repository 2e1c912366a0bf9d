package engine

import (
	"context"

	"github.com/kontext/kontext/engine/api"
)

// Typed methods for Go callers (the CLI, MCP, brief, bundle): the same rows
// and checks as Request, without a JSON round trip and without casts.

// Invoke runs operation name's typed run function for a Go caller: the
// same preamble and spoiled-snapshot retry as Do (the operation served by
// this engine, no dir in the in-memory engine, ctx not done, the row's
// check), without a JSON round trip. Write packages (engine/drafts) build
// their typed functions on it.
func Invoke[I, O any](ctx context.Context, e *Engine, name string, run func(context.Context, *Engine, *I) (O, error), in *I) (O, error) {
	var zero O
	o, err := e.door(name)
	if err != nil {
		return zero, err
	}
	if in == nil {
		in = new(I)
	}
	if err := e.admit(ctx, o, in); err != nil {
		return zero, err
	}
	return answer(e, o, func() (O, error) { return run(ctx, e, in) })
}

// Status answers status.
func (e *Engine) Status(ctx context.Context) (*api.StatusResult, error) {
	return Invoke(ctx, e, "status", runStatus, &api.StatusInput{})
}

// List answers entries.list.
func (e *Engine) List(ctx context.Context, in *api.ListInput) (*api.ListResult, error) {
	return Invoke(ctx, e, "entries.list", runList, in)
}

// Get answers entries.get.
func (e *Engine) Get(ctx context.Context, in *api.GetInput) (*api.Entry, error) {
	return Invoke(ctx, e, "entries.get", runGet, in)
}

// Search answers entries.search.
func (e *Engine) Search(ctx context.Context, in *api.SearchInput) (*api.SearchResult, error) {
	return Invoke(ctx, e, "entries.search", runSearch, in)
}

// Governing answers entries.governing.
func (e *Engine) Governing(ctx context.Context, in *api.GoverningInput) (*api.GoverningResult, error) {
	return Invoke(ctx, e, "entries.governing", runGoverning, in)
}

// Related answers entries.related.
func (e *Engine) Related(ctx context.Context, in *api.RelatedInput) (*api.RelatedResult, error) {
	return Invoke(ctx, e, "entries.related", runRelated, in)
}

// Lint answers rules.lint.
func (e *Engine) Lint(ctx context.Context, in *api.LintInput) (*api.LintResult, error) {
	return Invoke(ctx, e, "rules.lint", runLint, in)
}

// Drift answers entries.drift.
func (e *Engine) Drift(ctx context.Context, in *api.DriftInput) (*api.DriftResult, error) {
	return Invoke(ctx, e, "entries.drift", runDrift, in)
}

// ChangedBetween answers entries.changed.
func (e *Engine) ChangedBetween(ctx context.Context, in *api.ChangedInput) (*api.ChangedResult, error) {
	return Invoke(ctx, e, "entries.changed", runChanged, in)
}

// Export answers entries.export.
func (e *Engine) Export(ctx context.Context, in *api.ExportInput) (*api.ExportResult, error) {
	return Invoke(ctx, e, "entries.export", runExport, in)
}
