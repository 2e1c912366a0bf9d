package api

// Verification is a look at an entry: a ledger line, or the entry's own
// checked field (kind "cache").
type Verification struct {
	At       string  `json:"at"`
	Kind     string  `json:"kind"`
	Commit   *string `json:"commit"`
	By       *string `json:"by"`
	Because  *string `json:"because"`
	Passed   *bool   `json:"passed"`
	Source   string  `json:"source"` // ledger | frontmatter
	Verified bool    `json:"verified"`
	Landed   *string `json:"landed"`
}

// Since counts the commits that changed an entry's governed files after a
// look.
type Since struct {
	Commits    int          `json:"commits"`
	Head       string       `json:"head"`
	Paths      []string     `json:"paths"`
	Recent     []CommitLine `json:"recent"`
	Truncated  bool         `json:"truncated,omitempty"`
	LowerBound bool         `json:"lower_bound,omitempty"`
}

// CommitLine is a commit as results show it.
type CommitLine struct {
	SHA     string `json:"sha"`
	Subject string `json:"subject"`
}
