package api

import "encoding/json"

// ModelUse says whether a model answered this request: Asked is true when
// the adapter was called, Cached when a stored answer was used instead.
type ModelUse struct {
	Adapter string `json:"adapter"`
	Model   string `json:"model,omitempty"`
	Asked   bool   `json:"asked"`
	Cached  bool   `json:"cached"`
}

// Relation is one relation a model sees between a text and an entry it
// was shown (entries.related with llm). A person decides: nothing proposes
// supersedes.
type Relation struct {
	Relation string `json:"relation" jsonschema:"enum=new,enum=same,enum=extends,enum=conflicts,enum=uncertain"`
	ID       string `json:"id,omitempty"`
	Title    string `json:"title,omitempty"`
	Label    string `json:"label"`
}

// ExtendInput is the input of drafts.extend.
type ExtendInput struct {
	DirInput
	EntryID       string          `json:"entry_id" jsonschema:"required" jsonschema_description:"The convention, learning or incident to add to (id, unique prefix, ADR number or path)."`
	EntryRevision string          `json:"entry_revision" jsonschema:"required" jsonschema_description:"The entry's revision as read (its blob id, a full commit sha, or a 12-hex legacy revision)."`
	Text          string          `json:"text" jsonschema:"required" jsonschema_description:"The text to add, at most 4000 characters; appended verbatim under ## Added <YYYY-MM-DD>."`
	LLM           json.RawMessage `json:"llm,omitempty" jsonschema:"oneof_type=boolean;string" jsonschema_description:"Accepted for compatibility: the text is always added verbatim, a model never writes into an entry."`
}

// ExtendResult is the result of drafts.extend: the entry as drafts.stage
// {amends} would write it. Nothing is written.
type ExtendResult struct {
	// Entry is the entry with the text appended to its body (markdown is
	// the file as the amend would write it; revision is still the one read).
	Entry     *Entry      `json:"entry"`
	OldBody   string      `json:"old_body"`
	AsWritten bool        `json:"as_written"`
	Notes     []string    `json:"notes"`
	Amends    StageAmends `json:"amends"`
}

// FormalizeInput is the input of drafts.formalize.
type FormalizeInput struct {
	DirInput
	Entry   *StageEntry     `json:"entry" jsonschema:"required" jsonschema_description:"The insight a person chose: at least a title or a body."`
	Sources []string        `json:"sources,omitempty" jsonschema_description:"References the insight came from (at most 20), kept in notes."`
	Context string          `json:"context,omitempty" jsonschema_description:"Extra text for the model (at most 8000 characters), never written into the entry."`
	LLM     json.RawMessage `json:"llm,omitempty" jsonschema:"oneof_type=boolean;string" jsonschema_description:"true uses the selected model adapter; a string names one; without it the insight is kept as written."`
}

// DraftEntry is an entry a model operation proposes; nothing is written
// until it is passed to drafts.stage.
type DraftEntry struct {
	Kind    string   `json:"kind"`
	Title   string   `json:"title"`
	Summary string   `json:"summary,omitempty"`
	Body    string   `json:"body"`
	Paths   []string `json:"paths"`
	Tags    []string `json:"tags"`
	Status  string   `json:"status,omitempty"`
	// Supersedes is set only by drafts.revise (the entry it replaces).
	Supersedes []string `json:"supersedes,omitempty"`
}

// FormalizeResult is the result of drafts.formalize.
type FormalizeResult struct {
	Entry          DraftEntry     `json:"entry"`
	AsWritten      bool           `json:"as_written"`
	Notes          []string       `json:"notes"`
	RelatedEntries *RelatedResult `json:"related_entries"`
	Model          *ModelUse      `json:"model,omitempty"`
}

// ExtractInput is the input of drafts.extract.
type ExtractInput struct {
	DirInput
	Text   string          `json:"text" jsonschema:"required" jsonschema_description:"Text to find insights in (a review thread, notes, a transcript), at most 100000 characters."`
	Source string          `json:"source,omitempty" jsonschema_description:"Where the text came from (e.g. external:pr/42), kept in notes."`
	LLM    json.RawMessage `json:"llm,omitempty" jsonschema:"oneof_type=boolean;string" jsonschema_description:"true uses the selected model adapter; a string names one. Without a model: model_unavailable."`
	Max    int             `json:"max,omitempty" jsonschema:"minimum=1,maximum=20" jsonschema_description:"At most this many candidates (default 5)."`
}

// ExtractedCandidate is one insight drafts.extract found.
type ExtractedCandidate struct {
	Entry DraftEntry `json:"entry"`
	// Quote is the passage of the text it was found in (redacted).
	Quote string `json:"quote,omitempty"`
}

// ExtractResult is the result of drafts.extract.
type ExtractResult struct {
	Candidates []ExtractedCandidate `json:"candidates"`
	// Duplicates are candidates left out because an active entry already
	// says the same (by title), with the entry's id.
	Duplicates []DuplicateCandidate `json:"duplicates"`
	Notes      []string             `json:"notes"`
	Model      *ModelUse            `json:"model"`
}

// DuplicateCandidate is an extracted insight an existing entry holds.
type DuplicateCandidate struct {
	Title string `json:"title"`
	ID    string `json:"id"`
}

// ReviseInput is the input of drafts.revise.
type ReviseInput struct {
	DirInput
	EntryID       string          `json:"entry_id" jsonschema:"required"`
	EntryRevision string          `json:"entry_revision" jsonschema:"required"`
	Objections    []string        `json:"objections" jsonschema:"required,minItems=1,maxItems=20" jsonschema_description:"What is wrong with the entry: 1 to 20 objections of at most 300 characters each."`
	LLM           json.RawMessage `json:"llm,omitempty" jsonschema:"oneof_type=boolean;string" jsonschema_description:"true uses the selected model adapter; a string names one. Without a model: model_unavailable."`
}

// ReviseResult is the result of drafts.revise: a replacement draft that
// supersedes the entry. Nothing is written.
type ReviseResult struct {
	Entry DraftEntry `json:"entry"`
	// Replaces is the entry and revision the draft was made from.
	Replaces StageAmends `json:"replaces"`
	Notes    []string    `json:"notes"`
	Model    *ModelUse   `json:"model"`
}

// GuidanceInput is the input of guidance.propose.
type GuidanceInput struct {
	DirInput
	Kept       []string        `json:"kept" jsonschema:"required" jsonschema_description:"Reminders people kept (at most 50, each at most 500 characters)."`
	Dismissed  []string        `json:"dismissed" jsonschema:"required" jsonschema_description:"Reminders people dismissed."`
	Missed     []string        `json:"missed" jsonschema:"required" jsonschema_description:"Things people had to be told that no reminder covered."`
	Current    string          `json:"current,omitempty" jsonschema_description:"The current guidance text, at most 8000 characters."`
	ProfileTag string          `json:"profile_tag,omitempty" jsonschema_description:"A tag the proposed convention carries."`
	LLM        json.RawMessage `json:"llm,omitempty" jsonschema:"oneof_type=boolean;string" jsonschema_description:"true uses the selected model adapter; a string names one. Without a model: model_unavailable."`
}

// GuidanceResult is the result of guidance.propose: a proposed convention.
// Nothing is staged.
type GuidanceResult struct {
	Entry DraftEntry `json:"entry"`
	Notes []string   `json:"notes"`
	Model *ModelUse  `json:"model"`
}
