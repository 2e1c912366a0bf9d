package drafts

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

// maxExtendText bounds drafts.extend's text.
const maxExtendText = 4000

// runExtend is drafts.extend: the entry with text appended verbatim under
// `## Added <today>`, exactly as drafts.stage {amends} would write it. It
// writes nothing and never asks a model: llm is accepted for compatibility
// and the notes say the text was added as written.
func runExtend(ctx context.Context, e *draft, in *api.ExtendInput) (*api.ExtendResult, error) {
	useModel, _, err := engine.WantsModel(in.LLM)
	if err != nil {
		return nil, err
	}
	text := strings.Trim(strings.ReplaceAll(in.Text, "\r\n", "\n"), "\n")
	switch {
	case strings.TrimSpace(in.EntryID) == "":
		return nil, jsonin.Errorf("entry_id", "is required: the entry to add to")
	case strings.TrimSpace(in.EntryRevision) == "":
		return nil, jsonin.Errorf("entry_revision", "is required: the entry's revision as read (entries.get revision)")
	case strings.TrimSpace(text) == "":
		return nil, jsonin.Errorf("text", "is required: the text to add")
	case utf8.RuneCountInString(text) > maxExtendText:
		return nil, jsonin.Errorf("text", "is longer than %d characters; add it in parts or write a new entry", maxExtendText)
	case hasAddedHeading(text) || addedHeading().MatchString(firstLine(text)):
		return nil, jsonin.Errorf("text", "has a ## Added heading; pass only the text to add (the heading is written for you)")
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	en, err := st.Snap.Lookup(in.EntryID)
	if err != nil {
		return nil, err
	}
	if err := amendableKind(en, "entry_id"); err != nil {
		return nil, err
	}
	en, err = e.editable(ctx, st, en.ID, in.EntryRevision, "extending")
	if err != nil {
		return nil, err
	}
	if entry.Inactive(en.Status) {
		return nil, apierr.New(apierr.OperationConflict, "%s is %s; only active entries are extended", en.ID, en.Status)
	}
	today := e.Today()
	added := "## Added " + today + "\n\n" + text
	data, err := amendText(en, text, today)
	if err != nil {
		return nil, err
	}
	view := e.View(st, en)
	oldBody := view.Body
	view.Body = strings.TrimRight(strings.TrimSpace(oldBody)+"\n\n"+added, "\n")
	if strings.TrimSpace(oldBody) == "" {
		view.Body = added
	}
	view.Markdown = string(data)
	notes := []string{"the text is added verbatim under ## Added " + today + "; nothing is written: stage it with drafts.stage {operation_id, amends, entry: {body}}"}
	if useModel {
		notes = append(notes, "llm is accepted for compatibility: a model never writes into an entry, so the text was added as written")
	}
	return &api.ExtendResult{Entry: view, OldBody: oldBody, AsWritten: true, Notes: notes,
		Amends: api.StageAmends{ID: en.ID, Revision: st.Snap.Blob(en.File)}}, nil
}

// amendableKind refuses entries that are not amended: decisions change by
// supersession, other kinds are not appended to.
func amendableKind(en *entry.Entry, field string) error {
	switch en.Kind {
	case "convention", "learning", "incident":
		return nil
	case "decision":
		return apierr.New(apierr.DecisionNotAmended, "%s is a decision; decisions change only by supersession: stage a new decision with supersedes: [%s]", en.ID, en.ID)
	}
	return jsonin.Errorf(field, "%s is a %s; only conventions, learnings and incidents are extended", en.ID, en.Kind)
}

// Extend runs drafts.extend.
func Extend(ctx context.Context, e *engine.Engine, in *api.ExtendInput) (*api.ExtendResult, error) {
	return call(ctx, e, "drafts.extend", runExtend, in)
}

// Editable returns the entry ref names after the checks every edit of an
// existing entry makes: not a read-only rule file, rev is its revision (or
// stale_entry), and its file was committed once and has no local or
// staged changes (operation_conflict). Model operations that draft a replacement use it.
func Editable(ctx context.Context, e *engine.Engine, st *engine.State, ref, rev string) (*entry.Entry, error) {
	return (&draft{e}).editable(ctx, st, ref, rev, "revising")
}
