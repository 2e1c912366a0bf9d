package api

// ChangedResult is the result of Changed: the entries changed between two
// snapshots (the shape of entries.changed).
type ChangedResult struct {
	Base    *string  `json:"base"`
	Head    *string  `json:"head"`
	Changes []Change `json:"changes"`
	// Warnings name each revision read with a configuration other than
	// its own (it has none committed): head's, else the working tree's.
	Warnings []string `json:"warnings"`
}

// Change is one changed entry. Revision and Status are head's (base's for
// a removed entry); BaseRevision and HeadRevision are the blob ids of the
// entry's file on each side (null where the entry is absent).
type Change struct {
	ID           string   `json:"id"`
	Kind         string   `json:"kind"`
	Title        string   `json:"title"`
	File         string   `json:"file"`
	Paths        []string `json:"paths"`
	Revision     string   `json:"revision"`
	Status       *string  `json:"status"`
	Change       string   `json:"change"` // added | revised | superseded | deprecated
	SupersededBy []string `json:"superseded_by,omitempty"`
	Removed      bool     `json:"removed,omitempty"`
	BaseRevision *string  `json:"base_revision"`
	HeadRevision *string  `json:"head_revision"`
}
