package api

// Publication says how far an entry's file has travelled towards the team.
type Publication struct {
	State    string  `json:"state"`
	Revision *string `json:"revision"`
	BlobHash *string `json:"blob_hash"`
}

// ConfigSource says where the configuration came from.
type ConfigSource struct {
	Kind string  `json:"kind"` // committed | worktree | defaults | snapshot
	Path *string `json:"path"`
}

// Premise is an entry that another active entry relies on and that is no
// longer active.
type Premise struct {
	ID           string   `json:"id"`
	Status       *string  `json:"status"`
	SupersededBy []string `json:"superseded_by"`
}

// Link is a typed relation to another record other than supersession
// ("amends", "refined by", …): type lower-cased as written, target the
// record's id (as written when it resolves to none), text as written.
// Type "imports" is an @path import of an agents or claude file: target is
// the imported entry's id, else the file's repository-relative path.
type Link struct {
	Type   string `json:"type"`
	Target string `json:"target"`
	Text   string `json:"text"`
}

// Match is one governed path of a governing result.
type Match struct {
	Path        string `json:"path"`
	Rule        string `json:"rule"`
	Specificity int    `json:"specificity"`
}

// Entry is the read shape of an entry in every result.
type Entry struct {
	ID           string         `json:"id"`
	Kind         string         `json:"kind"`
	Title        string         `json:"title"`
	Body         string         `json:"body"`
	Summary      *string        `json:"summary"`
	Status       *string        `json:"status"`
	StatusRaw    *string        `json:"status_raw"`
	Date         *string        `json:"date"`
	DateRaw      *string        `json:"date_raw"`
	ReviewBy     *string        `json:"review_by"`
	ReviewDue    bool           `json:"review_due"`
	Authority    bool           `json:"authority"`
	ReadOnly     bool           `json:"read_only"`
	Checked      *string        `json:"checked"`
	Verify       *string        `json:"verify"`
	Visibility   string         `json:"visibility"`
	Paths        []string       `json:"paths"`
	PathsSource  string         `json:"paths_source"` // file | overlay | both (the committed path overlay)
	Tags         []string       `json:"tags"`
	Supersedes   []string       `json:"supersedes"`
	SupersededBy []string       `json:"superseded_by"`
	Extends      []string       `json:"extends"`
	Links        []Link         `json:"links"`
	Commits      []string       `json:"commits"`
	File         string         `json:"file"`
	Markdown     string         `json:"markdown"`
	Style        string         `json:"style"`
	ADRNumber    *int           `json:"adr_number"`
	Revision     string         `json:"revision"`
	Publication  Publication    `json:"publication"`
	Extra        map[string]any `json:"extra"`
	// History-derived fields (README, the verification fields); null without git history.
	Verification  *Verification `json:"verification"`
	LastVerified  *Verification `json:"last_verified"`
	Since         *Since        `json:"since"`
	SinceVerified *Since        `json:"since_verified"`
	Premises      []Premise     `json:"premises"`
	Failing       bool          `json:"failing,omitempty"`
	AmendedSince  bool          `json:"amended_since,omitempty"`
	// Set by search and governing only.
	Score       *float64 `json:"score,omitempty"`
	Specificity *int     `json:"specificity,omitempty"`
	Matches     []Match  `json:"matches,omitempty"`
	// Set by governing with a client only: how that client loads the
	// entry (always, auto, agent-requested, manual, on-demand, cut,
	// not-loaded), the bytes of a cut file that still load, and why.
	Load        string `json:"load,omitempty"`
	BytesLoaded *int   `json:"bytes_loaded,omitempty"`
	Reason      string `json:"reason,omitempty"`
}
