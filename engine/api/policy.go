package api

// CommittedEntry is what a policy's Inspect returns for one verified blob
// (the Go embedding API and the WASM engine's inspect).
type CommittedEntry struct {
	ID          string         `json:"id"`
	Kind        string         `json:"kind"`
	Title       string         `json:"title"`
	Body        string         `json:"body"`
	Summary     *string        `json:"summary"`
	Status      *string        `json:"status"`
	Checked     *string        `json:"checked"`
	Date        *string        `json:"date"`
	Verify      *string        `json:"verify"`
	ReviewBy    *string        `json:"review_by"`
	Supersedes  []string       `json:"supersedes"`
	Paths       []string       `json:"paths"`
	Tags        []string       `json:"tags"`
	File        string         `json:"file"`
	Style       string         `json:"style"`
	Authority   bool           `json:"authority"`
	Extra       map[string]any `json:"extra"`
	Diagnostics []Diagnostic   `json:"diagnostics"`
}
