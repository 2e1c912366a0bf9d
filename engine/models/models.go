// Package models holds the operations that may ask a model: drafts.extract,
// drafts.formalize, drafts.revise, guidance.propose and the model half of
// entries.related. None of them writes: they return drafts that a person
// stages with drafts.stage. The model itself is an engine.Model the native
// opener selects from local configuration; this package builds the prompts
// (versioned files in prompts/, embedded), redacts every text before it is
// sent, validates every answer against the JSON Schema it sent, and caches
// answers under <git-dir>/kontext/cache/llm/.
//
// The engine never imports this package: native passes Operations() and
// Related, so the WASM engine links none of it.
package models

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
)

//go:embed prompts/*.md
var promptFiles embed.FS

// Operations are the model rows of the dispatch table (native only).
func Operations() []engine.Operation {
	return []engine.Operation{
		engine.Op("drafts.extract", 0, runExtract),
		engine.Op("drafts.formalize", 0, runFormalize),
		engine.Op("drafts.revise", 0, runRevise),
		engine.Op("guidance.propose", 0, runGuidance),
	}
}

// Typed functions for Go callers (the CLI, MCP).

// Extract runs drafts.extract.
func Extract(ctx context.Context, e *engine.Engine, in *api.ExtractInput) (*api.ExtractResult, error) {
	return engine.Invoke(ctx, e, "drafts.extract", runExtract, in)
}

// Formalize runs drafts.formalize.
func Formalize(ctx context.Context, e *engine.Engine, in *api.FormalizeInput) (*api.FormalizeResult, error) {
	return engine.Invoke(ctx, e, "drafts.formalize", runFormalize, in)
}

// Revise runs drafts.revise.
func Revise(ctx context.Context, e *engine.Engine, in *api.ReviseInput) (*api.ReviseResult, error) {
	return engine.Invoke(ctx, e, "drafts.revise", runRevise, in)
}

// Propose runs guidance.propose.
func Propose(ctx context.Context, e *engine.Engine, in *api.GuidanceInput) (*api.GuidanceResult, error) {
	return engine.Invoke(ctx, e, "guidance.propose", runGuidance, in)
}

// prompt is the instruction text of task (the file without its version
// line is still hashed whole: a changed prompt is a new cache key).
func prompt(task string) string {
	data, err := promptFiles.ReadFile("prompts/" + task + ".md")
	if err != nil {
		panic("models: missing prompt " + task) // embedded at build time
	}
	return string(data)
}

// section is one labelled part of a prompt; its text is redacted.
type section struct{ label, text string }

// buildPrompt is the prompt file followed by the sections, each text
// passed through the capture redaction.
func buildPrompt(task string, parts ...section) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(prompt(task)))
	for _, p := range parts {
		b.WriteString("\n\n### ")
		b.WriteString(p.label)
		b.WriteString("\n\n")
		b.WriteString(strings.TrimSpace(engine.Redact(p.text)))
	}
	b.WriteString("\n")
	return b.String()
}

// ask sends one question to the model llm names (true: the selected one)
// and decodes the validated answer into out. A cached answer for the same
// adapter, model, task, prompt and schema is used without asking.
func ask(ctx context.Context, e *engine.Engine, llm json.RawMessage, task, text string, schema map[string]any, out any) (*api.ModelUse, error) {
	_, name, err := engine.WantsModel(llm)
	if err != nil {
		return nil, err
	}
	ms := e.Models()
	if ms == nil {
		return nil, apierr.New(apierr.ModelUnavailable, "%s needs a model, and none is available in this engine; run it with the native CLI and a locally configured model", task)
	}
	m, err := ms.Pick(name)
	if err != nil {
		return nil, err
	}
	req := engine.ModelRequest{Task: task, Prompt: text, Schema: schema}
	if use, ok := cached(e, m, req, out); ok {
		return use, nil
	}
	use := m.Use()
	raw, err := m.Ask(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := decodeAnswer(raw, schema, out); err != nil {
		return nil, err
	}
	use.Asked = true
	if w := e.Options().Writer; w != nil {
		// A cache that cannot be written costs a second call, nothing more.
		_ = w.WriteState("cache/llm/"+cacheKey(use, req)+".json", raw)
	}
	return &use, nil
}

// cached decodes m's stored answer to req into out, without asking; false
// when there is none (or it no longer matches the schema).
func cached(e *engine.Engine, m engine.Model, req engine.ModelRequest, out any) (*api.ModelUse, bool) {
	use := m.Use()
	w := e.Options().Writer
	if w == nil {
		return nil, false
	}
	data, ok, err := w.ReadState("cache/llm/" + cacheKey(use, req) + ".json")
	if err != nil || !ok || decodeAnswer(data, req.Schema, out) != nil {
		return nil, false
	}
	use.Cached = true
	return &use, true
}

// cacheKey hashes what decides an answer: adapter, model, task, the whole
// prompt (prompt file and every compared text) and the schema.
func cacheKey(use api.ModelUse, req engine.ModelRequest) string {
	schema, _ := json.Marshal(req.Schema)
	h := sha256.New()
	for _, s := range []string{use.Adapter, use.Model, req.Task, req.Prompt, string(schema)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// decodeAnswer validates raw against schema, then decodes it into out.
func decodeAnswer(raw []byte, schema map[string]any, out any) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return apierr.New(apierr.InvalidModelOutput, "the model's answer is not JSON: %v", err)
	}
	if err := validate(schema, v, "answer"); err != nil {
		return apierr.New(apierr.InvalidModelOutput, "the model's answer does not match the schema it was given: %v; nothing was used", err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return apierr.New(apierr.InvalidModelOutput, "the model's answer cannot be read: %v", err)
	}
	return nil
}
