package api

// SuggestPathsInput is the input of entries.suggest_paths.
type SuggestPathsInput struct {
	DirInput
	IDs         []string `json:"ids,omitempty" jsonschema_description:"Entries to suggest paths for (id, id prefix, ADR number or file)."`
	All         bool     `json:"all,omitempty" jsonschema_description:"Suggest for every entry without paths."`
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
