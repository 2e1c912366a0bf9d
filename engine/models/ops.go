package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/drafts"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

// Input limits.
const (
	maxExtractText  = 100000
	maxExtract      = 20
	defaultExtract  = 5
	maxContext      = 8000
	maxSources      = 20
	maxObjections   = 20
	maxObjection    = 300
	maxReminders    = 50
	maxReminder     = 500
	maxEntryInBody  = 2000 // characters of an entry's body shown to a model
	maxDraftBody    = 20000
	maxTitle        = 200
	maxSummary      = 300
	maxPathsInDraft = 20
)

func title() map[string]any { s := str(maxTitle); s["minLength"] = 1; return s }

func body() map[string]any { s := str(maxDraftBody); s["minLength"] = 1; return s }

func globs() map[string]any { return arr(str(300), maxPathsInDraft) }

func notes() map[string]any { return arr(str(500), 20) }

var kinds = []string{"decision", "convention", "learning", "incident", "architecture"}

// draftOf turns a model's draft into a DraftEntry with cleaned fields.
func draftOf(kind, t, summary, b string, paths, tags []string) api.DraftEntry {
	d := api.DraftEntry{Kind: kind, Title: strings.TrimSpace(t), Summary: strings.TrimSpace(summary), Body: strings.TrimSpace(b),
		Paths: []string{}, Tags: []string{}}
	for _, p := range paths {
		if p = strings.TrimSpace(p); p != "" {
			d.Paths = append(d.Paths, p)
		}
	}
	d.Tags = append(d.Tags, tags...)
	return d
}

// ---- drafts.formalize ----

type formalizeAnswer struct {
	Kind    string   `json:"kind"`
	Title   string   `json:"title"`
	Summary string   `json:"summary"`
	Body    string   `json:"body"`
	Paths   []string `json:"paths"`
	Notes   []string `json:"notes"`
}

func runFormalize(ctx context.Context, e *engine.Engine, in *api.FormalizeInput) (*api.FormalizeResult, error) {
	useModel, _, err := engine.WantsModel(in.LLM)
	if err != nil {
		return nil, err
	}
	se := in.Entry
	switch {
	case se == nil || strings.TrimSpace(se.Title) == "" && strings.TrimSpace(se.Body) == "":
		return nil, jsonin.Errorf("entry", "needs a title or a body: the insight to formalize")
	case len(in.Sources) > maxSources:
		return nil, jsonin.Errorf("sources", "has %d references (at most %d)", len(in.Sources), maxSources)
	case utf8.RuneCountInString(in.Context) > maxContext:
		return nil, jsonin.Errorf("context", "is longer than %d characters", maxContext)
	}
	kind := ""
	if se.Kind != "" {
		k, ok := entry.NormalizeKind(se.Kind)
		if !ok {
			return nil, jsonin.Errorf("entry.kind", "%q is not a kind (%s)", se.Kind, strings.Join(kinds, ", "))
		}
		kind = k
	}
	d := draftOf(kind, se.Title, se.Summary, se.Body, se.Paths, se.Tags)
	d.Status, d.Supersedes = se.Status, se.Supersedes
	res := &api.FormalizeResult{Entry: d, Notes: []string{}}
	for _, s := range in.Sources {
		res.Notes = append(res.Notes, "source: "+s)
	}
	if !useModel {
		res.AsWritten = true
		res.Notes = append(res.Notes, "no model was asked: the insight is kept as written; pass llm: true to have a locally configured model word it")
	} else {
		parts := []section{{"Insight title", se.Title}, {"Insight body", se.Body}}
		if kind != "" {
			parts = append(parts, section{"Kind given", kind})
		}
		if len(se.Paths) > 0 {
			parts = append(parts, section{"Paths given", strings.Join(se.Paths, "\n")})
		}
		if strings.TrimSpace(in.Context) != "" {
			parts = append(parts, section{"Context (not to be copied into the entry)", in.Context})
		}
		schema := obj(map[string]any{"kind": enum(kinds...), "title": title(), "summary": str(maxSummary), "body": body(),
			"paths": globs(), "notes": notes()}, "kind", "title", "summary", "body", "paths")
		var a formalizeAnswer
		use, err := ask(ctx, e, in.LLM, "formalize", buildPrompt("formalize", parts...), schema, &a)
		if err != nil {
			return nil, err
		}
		if kind != "" && a.Kind != kind {
			res.Notes = append(res.Notes, fmt.Sprintf("the model suggested kind %s; the given kind %s is kept", a.Kind, kind))
			a.Kind = kind
		}
		paths := a.Paths
		if se.Paths != nil {
			paths = se.Paths // a person's paths are kept; the model's are only a suggestion
			if extra := missing(a.Paths, se.Paths); len(extra) > 0 {
				res.Notes = append(res.Notes, "the model also suggests the paths "+strings.Join(extra, ", "))
			}
		}
		res.Entry = draftOf(a.Kind, a.Title, a.Summary, a.Body, paths, se.Tags)
		res.Entry.Status, res.Entry.Supersedes = se.Status, se.Supersedes
		res.Notes = append(res.Notes, prefixed("model: ", a.Notes)...)
		res.Model = use
	}
	rel, err := e.DraftRelated(ctx, &api.RelatedInput{Text: engine.DraftText(res.Entry.Title, res.Entry.Summary, res.Entry.Body), Paths: res.Entry.Paths})
	if err != nil && apierr.As(err).Code != apierr.InvalidInput {
		return nil, err
	}
	if rel == nil {
		rel = &api.RelatedResult{Candidates: []api.Candidate{}}
	}
	res.RelatedEntries = rel
	return res, nil
}

func missing(xs, in []string) []string {
	var out []string
	for _, x := range xs {
		found := false
		for _, y := range in {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

func prefixed(p string, xs []string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, p+x)
		}
	}
	return out
}

// ---- drafts.extract ----

type extractAnswer struct {
	Candidates []struct {
		Kind    string   `json:"kind"`
		Title   string   `json:"title"`
		Summary string   `json:"summary"`
		Body    string   `json:"body"`
		Paths   []string `json:"paths"`
		Quote   string   `json:"quote"`
	} `json:"candidates"`
}

func runExtract(ctx context.Context, e *engine.Engine, in *api.ExtractInput) (*api.ExtractResult, error) {
	if _, _, err := engine.WantsModel(in.LLM); err != nil {
		return nil, err
	}
	max := in.Max
	switch {
	case strings.TrimSpace(in.Text) == "":
		return nil, jsonin.Errorf("text", "is required: the text to find insights in")
	case utf8.RuneCountInString(in.Text) > maxExtractText:
		return nil, jsonin.Errorf("text", "is longer than %d characters; extract from it in parts", maxExtractText)
	case max < 0 || max > maxExtract:
		return nil, jsonin.Errorf("max", "must be between 1 and %d", maxExtract)
	case max == 0:
		max = defaultExtract
	}
	llm, err := needModel(in.LLM, "drafts.extract")
	if err != nil {
		return nil, err
	}
	schema := obj(map[string]any{"candidates": arr(obj(map[string]any{"kind": enum(kinds[:4]...), "title": title(), "summary": str(maxSummary),
		"body": body(), "paths": globs(), "quote": str(1000)}, "kind", "title", "summary", "body", "paths", "quote"), maxExtract)}, "candidates")
	var a extractAnswer
	use, err := ask(ctx, e, llm, "extract", buildPrompt("extract", section{"Candidates asked for", fmt.Sprint(max)}, section{"Text", in.Text}), schema, &a)
	if err != nil {
		return nil, err
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	known := map[string]string{}
	for _, en := range st.Snap.Entries() {
		if !entry.Inactive(en.Status) {
			known[normTitle(en.Title)] = en.ID
		}
	}
	res := &api.ExtractResult{Candidates: []api.ExtractedCandidate{}, Duplicates: []api.DuplicateCandidate{}, Notes: []string{}, Model: use}
	seen := map[string]bool{}
	for _, c := range a.Candidates {
		n := normTitle(c.Title)
		if id, ok := known[n]; ok {
			res.Duplicates = append(res.Duplicates, api.DuplicateCandidate{Title: c.Title, ID: id})
			continue
		}
		if seen[n] {
			continue
		}
		seen[n] = true
		if len(res.Candidates) == max {
			res.Notes = append(res.Notes, fmt.Sprintf("the model found more than %d; the first %d are returned", max, max))
			break
		}
		res.Candidates = append(res.Candidates, api.ExtractedCandidate{Entry: draftOf(c.Kind, c.Title, c.Summary, c.Body, c.Paths, nil),
			Quote: engine.Redact(c.Quote)})
	}
	if in.Source != "" {
		res.Notes = append(res.Notes, "source: "+in.Source)
	}
	res.Notes = append(res.Notes, "nothing is written: formalize a candidate (drafts.formalize), capture it (drafts.capture) or stage it (drafts.stage)")
	return res, nil
}

func normTitle(t string) string { return strings.Join(strings.Fields(strings.ToLower(t)), " ") }

// ---- drafts.revise ----

type reviseAnswer struct {
	Title   string   `json:"title"`
	Summary string   `json:"summary"`
	Body    string   `json:"body"`
	Notes   []string `json:"notes"`
}

func runRevise(ctx context.Context, e *engine.Engine, in *api.ReviseInput) (*api.ReviseResult, error) {
	if _, _, err := engine.WantsModel(in.LLM); err != nil {
		return nil, err
	}
	switch {
	case strings.TrimSpace(in.EntryID) == "":
		return nil, jsonin.Errorf("entry_id", "is required: the entry to revise")
	case strings.TrimSpace(in.EntryRevision) == "":
		return nil, jsonin.Errorf("entry_revision", "is required: the entry's revision as read (entries.get revision)")
	case len(in.Objections) < 1 || len(in.Objections) > maxObjections:
		return nil, jsonin.Errorf("objections", "needs 1 to %d objections, got %d", maxObjections, len(in.Objections))
	}
	for i, o := range in.Objections {
		if strings.TrimSpace(o) == "" || utf8.RuneCountInString(o) > maxObjection {
			return nil, jsonin.Errorf(fmt.Sprintf("objections[%d]", i), "must be non-empty and at most %d characters", maxObjection)
		}
	}
	llm, err := needModel(in.LLM, "drafts.revise")
	if err != nil {
		return nil, err
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	en, err := drafts.Editable(ctx, e, st, in.EntryID, in.EntryRevision)
	if err != nil {
		return nil, err
	}
	if entry.Inactive(en.Status) {
		return nil, apierr.New(apierr.OperationConflict, "%s is %s; only active entries are revised", en.ID, en.Status)
	}
	var objs strings.Builder
	for _, o := range in.Objections {
		objs.WriteString("- " + strings.ReplaceAll(strings.TrimSpace(o), "\n", " ") + "\n")
	}
	schema := obj(map[string]any{"title": title(), "summary": str(maxSummary), "body": body(), "notes": notes()}, "title", "summary", "body")
	var a reviseAnswer
	use, err := ask(ctx, e, llm, "revise", buildPrompt("revise", section{"Entry kind", en.Kind}, section{"Entry title", en.Title},
		section{"Entry summary", en.Summary}, section{"Entry body", en.Body}, section{"Objections", objs.String()}), schema, &a)
	if err != nil {
		return nil, err
	}
	if normBody(a.Body) == normBody(engine.Redact(en.Body)) || normBody(a.Body) == normBody(en.Body) {
		return nil, apierr.New(apierr.InvalidModelOutput, "the model returned the current body of %s unchanged, which answers no objection; nothing was drafted", en.ID)
	}
	d := draftOf(en.Kind, a.Title, a.Summary, a.Body, en.OwnPaths(), en.Tags)
	d.Supersedes = []string{en.ID}
	if en.Kind == "decision" {
		d.Status = "proposed"
	}
	return &api.ReviseResult{Entry: d, Replaces: api.StageAmends{ID: en.ID, Revision: st.Snap.Blob(en.File)},
		Notes: append(prefixed("model: ", a.Notes), "nothing is written: stage the replacement with drafts.stage {entry} (it supersedes "+en.ID+")"), Model: use}, nil
}

func normBody(s string) string { return strings.Join(strings.Fields(s), " ") }

// ---- guidance.propose ----

type guidanceAnswer struct {
	Title   string   `json:"title"`
	Summary string   `json:"summary"`
	Body    string   `json:"body"`
	Paths   []string `json:"paths"`
	Notes   []string `json:"notes"`
}

func runGuidance(ctx context.Context, e *engine.Engine, in *api.GuidanceInput) (*api.GuidanceResult, error) {
	if _, _, err := engine.WantsModel(in.LLM); err != nil {
		return nil, err
	}
	lists := []struct {
		name string
		xs   []string
	}{{"kept", in.Kept}, {"dismissed", in.Dismissed}, {"missed", in.Missed}}
	total := 0
	parts := []section{}
	for _, l := range lists {
		if len(l.xs) > maxReminders {
			return nil, jsonin.Errorf(l.name, "has %d reminders (at most %d)", len(l.xs), maxReminders)
		}
		var b strings.Builder
		for i, x := range l.xs {
			if utf8.RuneCountInString(x) > maxReminder {
				return nil, jsonin.Errorf(fmt.Sprintf("%s[%d]", l.name, i), "is longer than %d characters", maxReminder)
			}
			b.WriteString("- " + strings.ReplaceAll(strings.TrimSpace(x), "\n", " ") + "\n")
		}
		total += len(l.xs)
		if b.Len() == 0 {
			b.WriteString("(none)")
		}
		parts = append(parts, section{"Reminders " + l.name, b.String()})
	}
	switch {
	case total == 0:
		return nil, jsonin.Errorf("kept", "kept, dismissed and missed are all empty: there is nothing to learn from")
	case utf8.RuneCountInString(in.Current) > maxContext:
		return nil, jsonin.Errorf("current", "is longer than %d characters", maxContext)
	case strings.ContainsAny(in.ProfileTag, " \t\r\n,"):
		return nil, jsonin.Errorf("profile_tag", "must be one tag without spaces or commas")
	}
	if strings.TrimSpace(in.Current) != "" {
		parts = append(parts, section{"Current guidance", in.Current})
	}
	llm, err := needModel(in.LLM, "guidance.propose")
	if err != nil {
		return nil, err
	}
	schema := obj(map[string]any{"title": title(), "summary": str(maxSummary), "body": body(), "paths": globs(), "notes": notes()},
		"title", "summary", "body", "paths")
	var a guidanceAnswer
	use, err := ask(ctx, e, llm, "guidance", buildPrompt("guidance", parts...), schema, &a)
	if err != nil {
		return nil, err
	}
	var tags []string
	if in.ProfileTag != "" {
		tags = []string{in.ProfileTag}
	}
	return &api.GuidanceResult{Entry: draftOf("convention", a.Title, a.Summary, a.Body, a.Paths, tags),
		Notes: append(prefixed("model: ", a.Notes), "a proposal: nothing is staged; stage it with drafts.stage {entry} for review"), Model: use}, nil
}

// needModel is the llm input of an operation that only works with a model:
// absent means the selected adapter; false is model_unavailable.
func needModel(raw json.RawMessage, op string) (json.RawMessage, error) {
	use, _, err := engine.WantsModel(raw)
	if err != nil {
		return nil, err
	}
	if len(raw) > 0 && string(raw) != "null" && !use {
		return nil, apierr.New(apierr.ModelUnavailable, "%s needs a model and llm is false; pass llm: true (the selected adapter) or an adapter name", op)
	}
	if !use {
		return json.RawMessage("true"), nil
	}
	return raw, nil
}
