package api

// ListResult is the result of entries.list.
type ListResult struct {
	// Entries is the page in the full view (the default): a list, empty
	// when nothing matches; absent in the compact view, which sends Items.
	Entries     []*Entry     `json:"entries,omitzero" jsonschema_description:"The page in the full view (the default): [] when nothing matches. Absent in the compact view, which sends items."`
	Total       int          `json:"total"`
	NextOffset  *int         `json:"next_offset"`
	Snapshot    string       `json:"snapshot"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Items is the page in the compact view (view: compact), empty when
	// nothing matches; absent in the full view.
	Items      []*CompactEntry `json:"items,omitzero" jsonschema_description:"The page in the compact view (view: compact) as short records: [] when nothing matches. Absent in the full view."`
	NextCursor string          `json:"next_cursor,omitempty"`
}

// SearchResult is the result of entries.search.
type SearchResult struct {
	// Entries is the page in the full view; absent in the compact view.
	Entries  []*Entry `json:"entries,omitzero" jsonschema_description:"The page in the full view (the default): [] when nothing matches. Absent in the compact view, which sends items."`
	Total    int      `json:"total"`
	Snapshot string   `json:"snapshot"`
	// Items is the page in the compact view; absent in the full view.
	Items      []*CompactEntry `json:"items,omitzero" jsonschema_description:"The page in the compact view (view: compact) as short records: [] when nothing matches. Absent in the full view."`
	NextCursor string          `json:"next_cursor,omitempty"`
}

// GoverningResult is the result of entries.governing.
type GoverningResult struct {
	// Entries is the page in the full view (the default): a list, empty
	// when nothing governs; absent in the compact view, which sends Items.
	Entries  []*Entry `json:"entries,omitzero" jsonschema_description:"The page in the full view (the default): [] when nothing matches. Absent in the compact view, which sends items."`
	Total    int      `json:"total"`
	Snapshot string   `json:"snapshot"`
	// Items is the page in the compact view (view: compact), empty when
	// nothing governs; absent in the full view.
	Items []*CompactEntry `json:"items,omitzero" jsonschema_description:"The page in the compact view (view: compact) as short records: [] when nothing matches. Absent in the full view."`
	// NextCursor continues a page cut by limit; absent on the last page.
	NextCursor string `json:"next_cursor,omitempty"`
	// Boundaries lists the requested paths that lie inside a nested
	// repository (absent when none does).
	Boundaries []Boundary `json:"boundaries,omitempty" jsonschema_description:"Requested paths inside a nested repository, whose own knowledge governs them."`
	// Client is the coding agent the answer is for (the client input);
	// absent without it.
	Client *ClientAnswer `json:"client,omitempty" jsonschema_description:"With the client input: the agent, its start directory, the documentation its loading rules follow, and what the answer assumes."`
}

// ClientAnswer says which coding agent a governing answer is for and what
// it assumes.
type ClientAnswer struct {
	Client string `json:"client"`
	Cwd    string `json:"cwd" jsonschema_description:"The start directory, repository-relative (\"\" is the root)."`
	// Doc is the documentation page the client's loading rules follow,
	// DocRead the date it was read.
	Doc     string   `json:"doc"`
	DocRead string   `json:"doc_read"`
	Notes   []string `json:"notes" jsonschema_description:"What the answer assumes: user-level files absent, the user configuration defaults, names kontext does not read."`
}

// Boundary is a requested path that lies inside a nested repository.
type Boundary struct {
	Path           string `json:"path"`
	Repository     string `json:"repository"`
	RepositoryPath string `json:"repository_path" jsonschema_description:"Relative to repository."`
}

// CompactEntry is an entry as the compact governing view sends it: what a
// reader needs to apply the rule, without the fields a whole entry repeats
// (markdown next to body, publication, verification).
type CompactEntry struct {
	ID      string  `json:"id"`
	Kind    string  `json:"kind"`
	Title   string  `json:"title"`
	Summary *string `json:"summary,omitempty"`
	Status  *string `json:"status,omitempty"`
	// Rule and Specificity are the entry's most specific match (governing only).
	Rule        string `json:"rule,omitempty"`
	Specificity *int   `json:"specificity,omitempty"`
	// Score is the search score (search only).
	Score *float64 `json:"score,omitempty"`
	// Paths are the asked paths it governs, when more than one was asked.
	Paths []string `json:"paths,omitempty"`
	File  string   `json:"file"`
	// Body is the body when it is short (CompactBodyMax bytes or fewer);
	// BodyBytes says how long an omitted body is.
	Body      string `json:"body,omitempty"`
	BodyBytes int    `json:"body_bytes,omitempty"`
	ReviewDue bool   `json:"review_due,omitempty"`
	// Load, BytesLoaded and Reason: how the client loads it (governing with client only).
	Load        string `json:"load,omitempty"`
	BytesLoaded *int   `json:"bytes_loaded,omitempty"`
	Reason      string `json:"reason,omitempty"`
}

// CompactBodyMax is the longest body the compact view sends (bytes).
const CompactBodyMax = 320

// GoverningPage is the answer of the MCP tool ctx_governing (the result in
// its structuredContent), made from an entries.governing compact page by
// internal/mcpserver's governingAnswer: which entries govern and why, each
// fact once. It leaves out what one more call gives (summary, file, body:
// entries.get {id}; the snapshot is in the cursor).
type GoverningPage struct {
	Total int             `json:"total"`
	Items []GoverningItem `json:"items" jsonschema_description:"The page, most specific first: [] when nothing governs."`
	// NextCursor continues a page cut by limit; absent on the last page.
	NextCursor string     `json:"next_cursor,omitempty"`
	Boundaries []Boundary `json:"boundaries,omitempty" jsonschema_description:"Requested paths inside a nested repository, whose own knowledge governs them."`
	// Client is the coding agent the page is for (the client argument).
	Client *ClientAnswer `json:"client,omitempty" jsonschema_description:"With the client argument: the agent, its start directory, the documentation its loading rules follow, and what the answer assumes; the items are in its load order."`
}

// GoverningItem is one entry of a GoverningPage: what it is and the most
// specific rule by which it governs.
type GoverningItem struct {
	ID          string `json:"id"`
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Status      string `json:"status,omitempty"`
	Rule        string `json:"rule"`
	Specificity int    `json:"specificity"`
	// Paths are the asked paths it governs, when more than one was asked.
	Paths     []string `json:"paths,omitempty"`
	ReviewDue bool     `json:"review_due,omitempty"`
	// Load, BytesLoaded and Reason: how the client loads it (with client only).
	Load        string `json:"load,omitempty"`
	BytesLoaded *int   `json:"bytes_loaded,omitempty"`
	Reason      string `json:"reason,omitempty"`
}

// Candidate is one entries.related candidate.
type Candidate struct {
	ID       string  `json:"id"`
	Title    string  `json:"title"`
	Kind     string  `json:"kind"`
	Status   *string `json:"status,omitempty"`
	Reason   string  `json:"reason"`
	Label    string  `json:"label"`
	Revision string  `json:"revision"`
}

// RelatedModel is the model's part of a draft's related entries
// (drafts.capture, drafts.stage, whose related_entries is the candidate
// list): the relations of a cached entries.related {llm} answer for the
// same text and compared entries, and model {asked: false, cached: true}.
type RelatedModel struct {
	Relations []Relation `json:"relations"`
	Model     *ModelUse  `json:"model"`
}

// RelatedResult is the result of entries.related. With llm it also has
// the model's relations and whether the model was asked.
type RelatedResult struct {
	Candidates []Candidate `json:"candidates"`
	Snapshot   string      `json:"snapshot"`
	Relations  []Relation  `json:"relations,omitempty"`
	Model      *ModelUse   `json:"model,omitempty"`
}
