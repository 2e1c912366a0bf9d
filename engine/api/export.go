package api

// ExportEntry is one committed entry of entries.export.
type ExportEntry struct {
	ID         string         `json:"id"`
	Kind       string         `json:"kind"`
	Title      string         `json:"title"`
	Status     *string        `json:"status"`
	File       string         `json:"file"`
	Paths      []string       `json:"paths"`
	Markdown   string         `json:"markdown"`
	Blob       string         `json:"blob"`
	Checked    *string        `json:"checked"`
	Date       *string        `json:"date"`
	Verify     *string        `json:"verify"`
	ReviewBy   *string        `json:"review_by"`
	Supersedes []string       `json:"supersedes"`
	Commits    []string       `json:"commits"`
	Author     *string        `json:"author"`
	Extra      map[string]any `json:"extra"`
}

// ExportSource is entries.export's config_source.
type ExportSource struct {
	Kind    string  `json:"kind"` // committed | defaults
	Path    *string `json:"path,omitempty"`
	Blob    *string `json:"blob,omitempty"`
	Storage *string `json:"storage,omitempty"`
}

// ExportResult is the result of entries.export.
type ExportResult struct {
	Revision     string        `json:"revision"`
	ReviewRef    string        `json:"review_ref"`
	ConfigSource ExportSource  `json:"config_source"`
	Entries      []ExportEntry `json:"entries"`
}
