package api

import (
	"encoding/json"
)

// StageEntry is the entry object of drafts.stage.
type StageEntry struct {
	Kind       string          `json:"kind,omitempty" jsonschema_description:"decision (or adr), convention, learning, incident, architecture; inferred from requested_path when it names a kind directory."`
	Title      string          `json:"title,omitempty" jsonschema_description:"One line; the id is YYYY-MM-DD-<slug of the title>."`
	Body       string          `json:"body,omitempty" jsonschema_description:"Markdown body."`
	Summary    string          `json:"summary,omitempty" jsonschema_description:"One line for lists and briefs."`
	Paths      []string        `json:"paths,omitempty" jsonschema_description:"Glob patterns of the governed files (! excludes)."`
	Tags       []string        `json:"tags,omitempty"`
	Status     string          `json:"status,omitempty" jsonschema_description:"Default: proposed for decisions, active otherwise."`
	Supersedes []string        `json:"supersedes,omitempty" jsonschema_description:"Entries this one replaces; each gets status superseded and superseded_by."`
	Extends    []string        `json:"extends,omitempty" jsonschema_description:"Entries (not decisions) this one builds on; at most 20."`
	Visibility string          `json:"visibility,omitempty" jsonschema:"enum=team,enum=private" jsonschema_description:"private entries are never written into team storage."`
	Commits    []string        `json:"commits,omitempty" jsonschema_description:"Full commit shas."`
	ReviewBy   string          `json:"review_by,omitempty" jsonschema_description:"YYYY-MM-DD, not before the date."`
	Verify     string          `json:"verify,omitempty" jsonschema_description:"One command line (at most 500 characters)."`
	Evidence   json.RawMessage `json:"evidence,omitempty" jsonschema_description:"Up to 50 {ref; quote?}: refs go into extra.external_refs and with their verification into a ## Evidence section."`
}

// StageAmends is the amends object of drafts.stage.
type StageAmends struct {
	ID       string `json:"id" jsonschema:"required"`
	Revision string `json:"revision" jsonschema:"required"`
}

// StageInput is the input of drafts.stage.
type StageInput struct {
	DirInput
	Entry         *StageEntry  `json:"entry,omitempty" jsonschema_description:"The new entry (or pass candidate_id). With candidate_id: another wording of the candidate (e.g. from drafts.formalize); the fields it sets replace the candidate's."`
	CandidateID   string       `json:"candidate_id,omitempty" jsonschema_description:"Promote this inbox candidate."`
	OperationID   string       `json:"operation_id" jsonschema:"required" jsonschema_description:"Stable id of this write: a retry returns the first result (replayed: true)."`
	Source        string       `json:"source,omitempty" jsonschema_description:"A source reference (e.g. external:task/42@v7) kept in extra.external_refs."`
	RequestedPath string       `json:"requested_path,omitempty" jsonschema_description:"A kind directory or a file inside one; infers a missing kind."`
	Amends        *StageAmends `json:"amends,omitempty" jsonschema_description:"Append-only edit of a convention/learning/incident: entry.body is added under ## Added <date> and the file is otherwise unchanged byte for byte."`
	Fingerprint   string       `json:"fingerprint,omitempty" jsonschema_description:"A stable hash of the original candidate; replaces the input fingerprint."`
}

// StageResult is the result of drafts.stage, drafts.retire and
// drafts.set_verify.
type StageResult struct {
	Entry              *Entry   `json:"entry"`
	Path               string   `json:"path"`
	Staged             bool     `json:"staged"`
	Notes              []string `json:"notes"`
	Replayed           bool     `json:"replayed"`
	Evidence           []any    `json:"evidence"`
	RelatedEntries     []any    `json:"related_entries"`
	ResolvedChallenges []any    `json:"resolved_challenges"`
	// RelatedModel is set only when a model is selected and its relation
	// answer for the same text and compared entries is cached.
	RelatedModel *RelatedModel `json:"related_model,omitempty"`
	// Repository is set when the write was routed into a nested repository.
	Repository string `json:"repository,omitempty" jsonschema_description:"The nested repository (directory) the write was routed to; path and entry are relative to it."`
}
