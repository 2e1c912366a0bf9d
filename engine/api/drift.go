package api

// DriftEntry is a drifted entry: the read shape plus what changed.
type DriftEntry struct {
	*Entry
	Path    string       `json:"path"`
	Changed []string     `json:"changed"`
	Commits []CommitLine `json:"commits"`
	// LastEdited is the newest commit that changed the entry's own file
	// (absent when it is not committed): the look a reader sees when no
	// ledger line or checked field records one.
	LastEdited *Edit `json:"last_edited,omitempty" jsonschema_description:"the newest commit that changed the entry's own file: its sha, committer time and author"`
	// Broad marks a broad entry (only with the input broad: true).
	Broad bool `json:"broad,omitempty" jsonschema_description:"true for a broad entry (a positive ** or **/* pattern, or an always-on mapping, and no negative pattern); present only with the input broad: true"`
}

// Edit is a commit that changed a file.
type Edit struct {
	SHA string `json:"sha"`
	At  string `json:"at"`
	By  string `json:"by"`
}

// DriftResult is the result of entries.drift.
type DriftResult struct {
	Base       *string `json:"base"`
	Head       string  `json:"head"`
	BaseSource string  `json:"base_source"`
	Warning    string  `json:"warning,omitempty"`
	// Warnings name the head revision when it was read with a
	// configuration other than its own (it has none committed).
	Warnings []string      `json:"warnings"`
	Entries  []*DriftEntry `json:"entries"`
	// BroadOmitted counts the broad entries that drifted and were left
	// out (0 with the input broad: true).
	BroadOmitted int    `json:"broad_omitted" jsonschema_description:"How many broad entries drifted and were left out of entries (0 with broad: true)."`
	Snapshot     string `json:"snapshot"`
}
