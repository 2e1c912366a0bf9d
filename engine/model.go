package engine

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/kontext/kontext/engine/api"
)

// ModelRequest is one question to a model: the task name, the prompt (its
// texts already redacted) and the self-contained JSON Schema the answer
// must satisfy.
type ModelRequest struct {
	Task   string         `json:"task"`
	Prompt string         `json:"prompt"`
	Schema map[string]any `json:"schema"`
}

// Model is one usable model adapter. Ask returns the answer's JSON object;
// a failure is an apierr error (model_unavailable or invalid_model_output).
type Model interface {
	Ask(ctx context.Context, req ModelRequest) (json.RawMessage, error)
	// Use names the adapter and model for results (asked and cached are
	// filled by the caller).
	Use() api.ModelUse
}

// Models is the local model selection a native opener passes in. The
// engine never picks an adapter itself: a committed configuration cannot
// select one.
type Models interface {
	// Status is status.llm, found without calling a model.
	Status() api.LLMStatus
	// Pick returns the selected adapter (name "") or the named one, or a
	// model_unavailable error saying why there is none.
	Pick(name string) (Model, error)
}

// RelatedModel adds a model's relations to an entries.related result; a
// native opener passes it in (the in-memory engine has none).
type RelatedModel func(ctx context.Context, e *Engine, in *api.RelatedInput, res *api.RelatedResult) error

// DraftRelated is the related_entries of drafts.capture, drafts.stage and
// drafts.formalize: entries.related without a model, plus the model's
// relations when an answer for the same text and compared entries is
// cached. The model is never asked here: a draft operation must not cost
// a model call nobody requested.
func (e *Engine) DraftRelated(ctx context.Context, in *api.RelatedInput) (*api.RelatedResult, error) {
	q := *in
	q.LLM = nil
	res, err := e.Related(ctx, &q)
	if err != nil || e.opts.RelatedCache == nil || e.opts.Models == nil {
		return res, err
	}
	// A cache that cannot be read leaves the model-free answer.
	_ = e.opts.RelatedCache(ctx, e, &q, res)
	return res, nil
}

// DraftText is the text a draft is compared by: its title, summary and
// body, one per line, empty ones left out. entries.related {llm} with this
// text and the draft's paths is the question whose cached answer
// DraftRelated reuses.
func DraftText(title, summary, body string) string {
	var parts []string
	for _, p := range []string{title, summary, body} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n")
}

// Models is the engine's model selection (nil without one).
func (e *Engine) Models() Models { return e.opts.Models }
