package api

// DriftEntry is a drifted entry: the read shape plus what changed.
type DriftEntry struct {
	*Entry
	Path    string       `json:"path"`
	Changed []string     `json:"changed"`
	Commits []CommitLine `json:"commits"`
}

// DriftResult is the result of entries.drift.
type DriftResult struct {
	Base       *string       `json:"base"`
	Head       string        `json:"head"`
	BaseSource string        `json:"base_source"`
	Warning    string        `json:"warning,omitempty"`
	Entries    []*DriftEntry `json:"entries"`
	Snapshot   string        `json:"snapshot"`
}
