package api

// BriefRepository is what the brief says about the repository and the paths
// it is about.
type BriefRepository struct {
	Root   string   `json:"root"`
	Branch string   `json:"branch"` // "" when HEAD is detached or there is no git
	Head   string   `json:"head"`   // "" before the first commit or without git
	Dirty  bool     `json:"dirty"`
	Paths  []string `json:"paths"`
	// PathsFrom says where the paths came from: "given", "changed since
	// <base>" or "uncommitted".
	PathsFrom string `json:"paths_from"`
	// PathCount is the number of paths when the compact view left Paths empty.
	PathCount int `json:"path_count,omitempty"`
}

// Brief is the result of context.brief: the kontext.brief/v1 document.
type Brief struct {
	Schema      string          `json:"schema"`
	GeneratedAt string          `json:"generated_at"`
	Repository  BriefRepository `json:"repository"`
	Sections    []BriefSection  `json:"sections"`
	Excluded    []BriefExcluded `json:"excluded"`
	Budget      BriefBudget     `json:"budget"`
	// OverBudget is true when the document exceeds its budget with nothing
	// left to drop (absent otherwise).
	OverBudget bool `json:"over_budget,omitempty"`
}

// BriefSection is one section of the document; Text is exactly what the text
// rendering prints for it (its heading, its lines and a separating blank
// line), Lines its line count.
type BriefSection struct {
	ID    string `json:"id"`
	Lines int    `json:"lines"`
	Text  string `json:"text"`
}

// BriefExcluded is one item left out of the document, with the reason.
type BriefExcluded struct {
	Item   string `json:"item"`
	Reason string `json:"reason"`
}

// BriefBudget is the line budget: Lines of the document against Limit, and how
// many bodies and titles were Dropped to fit.
type BriefBudget struct {
	Lines   int `json:"lines"`
	Limit   int `json:"limit"`
	Dropped int `json:"dropped"`
}
