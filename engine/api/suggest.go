package api

// SuggestPathsInput is the input of entries.suggest_paths.
type SuggestPathsInput struct {
	DirInput
	IDs         []string `json:"ids,omitempty" jsonschema_description:"Entries to suggest paths for (id, id prefix, ADR number or file)."`
	All         bool     `json:"all,omitempty" jsonschema_description:"Suggest for every active entry without paths (inactive ones govern nothing; ask for them by id)."`
	MaxPerEntry *int     `json:"max_per_entry,omitempty" jsonschema:"default=3,minimum=1,maximum=20" jsonschema_description:"At most this many globs per entry."`
}

// SuggestPathsResult is the result of entries.suggest_paths.
type SuggestPathsResult struct {
	Suggestions []PathSuggestion `json:"suggestions"`
	Snapshot    string           `json:"snapshot"`
}

// PathSuggestion is one entry's suggested globs.
type PathSuggestion struct {
	ID    string          `json:"id"`
	Globs []SuggestedGlob `json:"globs"`
}

// SuggestedGlob is one suggested pattern with a confidence between 0 and 1
// and the evidence for it.
type SuggestedGlob struct {
	Glob       string         `json:"glob"`
	Confidence float64        `json:"confidence"`
	Evidence   []PathEvidence `json:"evidence"`
}

// PathEvidence is why a glob is suggested: a mention in the text ({type:
// "mention", text, path}) or a commit that changed the record together
// with files below the glob ({type: "cochange", commit, files}).
type PathEvidence struct {
	Type   string   `json:"type"`
	Text   string   `json:"text,omitempty"`
	Path   string   `json:"path,omitempty"`
	Commit string   `json:"commit,omitempty"`
	Files  []string `json:"files,omitempty"`
}

// SetPathsInput is the input of drafts.set_paths.
type SetPathsInput struct {
	DirInput
	OperationID string   `json:"operation_id" jsonschema:"required" jsonschema_description:"Stable id of this write: a retry returns the first result (replayed: true)."`
	EntryID     string   `json:"entry_id" jsonschema:"required" jsonschema_description:"Full id, unique id prefix, ADR number or file."`
	Add         []string `json:"add,omitempty" jsonschema_description:"Globs (repository-relative, ! excludes) to add to the entry's overlay paths."`
	Remove      []string `json:"remove,omitempty" jsonschema_description:"Globs to remove from the entry's overlay paths (only the overlay's: paths the file declares stay)."`
}

// SetPathsResult is the result of drafts.set_paths: the entry as it reads
// now, the overlay file and the entry's globs in it.
type SetPathsResult struct {
	Entry        *Entry   `json:"entry"`
	Path         string   `json:"path" jsonschema_description:"The overlay file (<storage>/paths.toml)."`
	Key          string   `json:"key" jsonschema_description:"The overlay key that holds the entry's globs (its id, or its file for rule files)."`
	OverlayPaths []string `json:"overlay_paths" jsonschema_description:"The entry's globs in the overlay after the write."`
	Staged       bool     `json:"staged" jsonschema_description:"false when nothing changed (every glob to add was there already)."`
	Notes        []string `json:"notes"`
	Replayed     bool     `json:"replayed"`
}
