package models

import (
	"context"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

// Labels of model relations: a person checks every one.
var relationLabels = map[string]string{
	"conflicts": "possible conflict, check",
	"same":      "possibly the same, check",
	"extends":   "extends it, check",
	"new":       "new, check",
	"uncertain": "uncertain, check",
}

type relatedAnswer struct {
	Relations []struct {
		Relation string `json:"relation"`
		ID       string `json:"id"`
	} `json:"relations"`
}

// relatedQuestion is the one relation question about res's candidates:
// the entries shown (by id) and the prompt; no prompt when there is
// nothing to compare with.
func relatedQuestion(ctx context.Context, e *engine.Engine, in *api.RelatedInput, res *api.RelatedResult) (map[string]api.Candidate, string, error) {
	st, err := e.Read(ctx)
	if err != nil {
		return nil, "", err
	}
	shown := map[string]api.Candidate{}
	var listed strings.Builder
	for _, c := range res.Candidates {
		en, err := st.Snap.Lookup(c.ID)
		if err != nil {
			continue
		}
		shown[c.ID] = c
		b := en.Body
		if r := []rune(b); len(r) > maxEntryInBody {
			b = string(r[:maxEntryInBody]) + "…"
		}
		listed.WriteString("#### " + c.ID + " (" + en.Kind + ")\n\nTitle: " + en.Title + "\n")
		if en.Summary != "" {
			listed.WriteString("Summary: " + en.Summary + "\n")
		}
		listed.WriteString("\n" + strings.TrimSpace(b) + "\n\n")
	}
	if len(shown) == 0 {
		return shown, "", nil
	}
	text := strings.TrimSpace(in.Text) // the same question however the text is padded
	if len(in.Paths) > 0 {
		text += "\n\nPaths: " + strings.Join(in.Paths, ", ")
	}
	return shown, buildPrompt("related", section{"New insight", text}, section{"Entries", listed.String()}), nil
}

func relatedSchema() map[string]any {
	return obj(map[string]any{"relations": arr(obj(map[string]any{
		"relation": enum("new", "same", "extends", "conflicts", "uncertain"), "id": str(300)}, "relation", "id"), 50)}, "relations")
}

// Related is entries.related's model half (engine.RelatedModel): one
// question with the text and every candidate entry together. Relations
// about entries the model was not shown are dropped; when none remain the
// answer is uncertain. Nothing proposes supersedes.
func Related(ctx context.Context, e *engine.Engine, in *api.RelatedInput, res *api.RelatedResult) error {
	shown, question, err := relatedQuestion(ctx, e, in, res)
	if err != nil {
		return err
	}
	res.Relations = []api.Relation{}
	if len(shown) == 0 {
		// Nothing to compare with: no question, the insight reads as new.
		res.Relations = append(res.Relations, api.Relation{Relation: "new", Label: relationLabels["new"]})
		use, err := pickUse(e, in)
		res.Model = use
		return err
	}
	var a relatedAnswer
	use, err := ask(ctx, e, in.LLM, "related", question, relatedSchema(), &a)
	if err != nil {
		return err
	}
	res.Model = use
	applyRelations(res, shown, a)
	return nil
}

// CachedRelated is the draft operations' view of a relation answer
// (engine.Options.RelatedCache): when the selected model has answered the
// same question (same text, paths and compared entries) its cached
// relations are added with model {asked: false, cached: true}. It never
// asks; without a selected model or a cached answer res is left as it is.
func CachedRelated(ctx context.Context, e *engine.Engine, in *api.RelatedInput, res *api.RelatedResult) error {
	ms := e.Models()
	if ms == nil {
		return nil
	}
	m, err := ms.Pick("")
	if err != nil {
		return nil // no model selected: the model-free answer stands
	}
	shown, question, err := relatedQuestion(ctx, e, in, res)
	if err != nil || len(shown) == 0 {
		return err // with nothing to compare, entries.related asks nothing either
	}
	var a relatedAnswer
	use, ok := cached(e, m, engine.ModelRequest{Task: "related", Prompt: question, Schema: relatedSchema()}, &a)
	if !ok {
		return nil
	}
	res.Relations = []api.Relation{}
	res.Model = use
	applyRelations(res, shown, a)
	return nil
}

// applyRelations adds the answer's relations about shown entries to res.
func applyRelations(res *api.RelatedResult, shown map[string]api.Candidate, a relatedAnswer) {
	seen := map[string]bool{}
	for _, r := range a.Relations {
		c, ok := shown[r.ID]
		if !ok || seen[r.Relation+"\x00"+r.ID] {
			continue // an entry the model was not shown, or a repeat
		}
		seen[r.Relation+"\x00"+r.ID] = true
		res.Relations = append(res.Relations, api.Relation{Relation: r.Relation, ID: c.ID, Title: c.Title, Label: relationLabels[r.Relation]})
	}
	if len(res.Relations) == 0 {
		res.Relations = append(res.Relations, api.Relation{Relation: "uncertain", Label: relationLabels["uncertain"]})
	}
}

// pickUse names the adapter that would answer, without asking it.
func pickUse(e *engine.Engine, in *api.RelatedInput) (*api.ModelUse, error) {
	_, name, err := engine.WantsModel(in.LLM)
	if err != nil {
		return nil, err
	}
	ms := e.Models()
	if ms == nil {
		return nil, nil
	}
	m, err := ms.Pick(name)
	if err != nil {
		return nil, err
	}
	u := m.Use()
	return &u, nil
}
