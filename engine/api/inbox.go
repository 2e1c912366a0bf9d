package api

// CaptureEntry is the entry object of drafts.capture (and of a stored
// candidate).
type CaptureEntry struct {
	Kind       string            `json:"kind" jsonschema:"required" jsonschema_description:"decision (alias adr), convention, learning, incident or architecture."`
	Title      string            `json:"title" jsonschema:"required" jsonschema_description:"One line of at most 200 characters."`
	Body       string            `json:"body,omitempty" jsonschema_description:"Markdown body."`
	Summary    string            `json:"summary,omitempty"`
	Paths      []string          `json:"paths,omitempty" jsonschema_description:"Glob patterns of the source paths the entry governs."`
	Tags       []string          `json:"tags,omitempty"`
	Status     string            `json:"status,omitempty"`
	Supersedes []string          `json:"supersedes,omitempty" jsonschema_description:"Ids of entries this one replaces; they must exist."`
	Extends    []string          `json:"extends,omitempty" jsonschema_description:"Ids of entries this one adds to; they must exist."`
	Visibility string            `json:"visibility,omitempty" jsonschema:"enum=team,enum=private"`
	Commits    []string          `json:"commits,omitempty"`
	ReviewBy   string            `json:"review_by,omitempty" jsonschema_description:"YYYY-MM-DD."`
	Verify     string            `json:"verify,omitempty" jsonschema_description:"One line (at most 500 characters): a command that checks the entry still holds."`
	Evidence   []CaptureEvidence `json:"evidence,omitempty" jsonschema_description:"Up to 50 references: pr:<id>, issue:<id>, task:<id>, code:<repo>@<rev>:<path>#L<a>-<b>, url:<http(s) URL>."`
}

// CaptureEvidence is one evidence reference of an entry.
type CaptureEvidence struct {
	Ref   string `json:"ref" jsonschema:"required"`
	Quote string `json:"quote,omitempty" jsonschema_description:"At most 200 characters; checked against this repository's code refs."`
}

// CaptureInput is the input of drafts.capture.
type CaptureInput struct {
	DirInput
	Entry       *CaptureEntry `json:"entry" jsonschema:"required" jsonschema_description:"The insight to keep as a local candidate (redacted before it is stored)."`
	Source      string        `json:"source,omitempty" jsonschema_description:"Where the insight came from (a conversation, a review, …); redacted."`
	OperationID string        `json:"operation_id,omitempty" jsonschema_description:"Makes a retry return the first result (replayed: true)."`
}

// InboxListInput is the input of inbox.list.
type InboxListInput struct {
	DirInput
	State string `json:"state,omitempty" jsonschema:"enum=pending,enum=dismissed,enum=promoted,enum=all,default=pending"`
}

// InboxDropInput is the input of inbox.drop.
type InboxDropInput struct {
	DirInput
	ID     string `json:"id" jsonschema:"required" jsonschema_description:"A candidate id (cand-<12 hex>)."`
	Reason string `json:"reason,omitempty" jsonschema_description:"Why it was dismissed (one line; redacted)."`
}

// InboxVerifyInput is the input of inbox.verify.
type InboxVerifyInput struct {
	DirInput
	ID     string  `json:"id" jsonschema:"required" jsonschema_description:"A pending candidate id (cand-<12 hex>)."`
	Verify *string `json:"verify" jsonschema:"required" jsonschema_description:"One line of at most 500 characters; empty removes the command."`
}

// InboxChallengeInput is the input of inbox.challenge.
type InboxChallengeInput struct {
	DirInput
	ID      string `json:"id" jsonschema:"required" jsonschema_description:"The entry that may no longer hold (id, prefix, ADR number or path)."`
	Because string `json:"because" jsonschema:"required" jsonschema_description:"Why it may no longer hold (redacted)."`
}

// InboxEvent is one step of a candidate's local history.
type InboxEvent struct {
	At     string `json:"at"`
	Event  string `json:"event"` // captured | recaptured | dismissed | verify_set | verify_removed | promoted
	Reason string `json:"reason,omitempty"`
}

// InboxWorktree is the worktree a candidate belongs to.
type InboxWorktree struct {
	Root string `json:"root"`
}

// InboxCandidate is one stored candidate of the local inbox.
type InboxCandidate struct {
	ID          string           `json:"id"`
	State       string           `json:"state"` // pending | dismissed | promoted
	Kind        string           `json:"kind"`  // an entry kind, or challenge
	Entry       CaptureEntry     `json:"entry"`
	Source      *string          `json:"source"`
	CreatedAt   string           `json:"created_at"`
	History     []InboxEvent     `json:"history"`
	Worktree    InboxWorktree    `json:"worktree"`
	Publication Publication      `json:"publication"`
	Evidence    []EvidenceResult `json:"evidence"`
	Redactions  map[string]int   `json:"redactions"`
	Extra       map[string]any   `json:"extra,omitempty"`
}

// EvidenceResult is the outcome of one evidence reference.
type EvidenceResult struct {
	Ref          string `json:"ref"`
	Kind         string `json:"kind"` // pr | issue | task | code | url
	Quote        string `json:"quote,omitempty"`
	Verification string `json:"verification"` // verified | quote_not_found | unverifiable | none
}

// CaptureResult is the result of drafts.capture and inbox.challenge.
type CaptureResult struct {
	Candidate      *InboxCandidate  `json:"candidate"`
	Notes          []string         `json:"notes"`
	Redactions     map[string]int   `json:"redactions"`
	Evidence       []EvidenceResult `json:"evidence"`
	RelatedEntries []Candidate      `json:"related_entries"`
	// RelatedModel is set only when a model is selected and its relation
	// answer for the same text and compared entries is cached.
	RelatedModel *RelatedModel `json:"related_model,omitempty"`
	// Repository is set when the capture was routed into a nested repository.
	Repository string `json:"repository,omitempty" jsonschema_description:"The nested repository (directory) whose inbox holds the candidate."`
}

// InboxListResult is the result of inbox.list.
type InboxListResult struct {
	Candidates []*InboxCandidate `json:"candidates"`
}

// InboxVerifyResult is the result of inbox.verify.
type InboxVerifyResult struct {
	ID     string       `json:"id"`
	Verify *string      `json:"verify"`
	Entry  CaptureEntry `json:"entry"`
}
