package api

// LintInput is the input of rules.lint.
type LintInput struct {
	DirInput
	Client string `json:"client,omitempty" jsonschema:"enum=codex,enum=cursor,enum=copilot,enum=copilot-review,enum=claude,enum=gemini" jsonschema_description:"Only the findings about this client (bytes it wastes, files it never loads) and those about no client."`
}

// LintResult is the result of rules.lint: findings about the agent rule
// files as a set (duplicates, near-duplicates, contradictions, files a
// client never loads).
type LintResult struct {
	Snapshot string `json:"snapshot"`
	// Files is how many rule files were compared (a file reached through
	// several links counts once).
	Files    int           `json:"files"`
	Findings []LintFinding `json:"findings"`
	// Counts are the findings per rule_id.
	Counts map[string]int `json:"counts"`
	// Similarity names the near-duplicate measure and its threshold.
	Similarity string `json:"similarity"`
	// Loading says where the per-client loading rules come from.
	Loading string `json:"loading"`
}

// LintFinding is one finding of rules.lint.
type LintFinding struct {
	RuleID   string `json:"rule_id" jsonschema:"enum=duplicate_rule,enum=near_duplicate_rule,enum=conflicting_rules,enum=never_loaded"`
	Severity string `json:"severity" jsonschema:"enum=warning,enum=note"`
	Message  string `json:"message"`
	// Locations are the lines the finding is about, one per file.
	Locations []LintLocation `json:"locations"`
	// Quotes are the lines as written, one per location.
	Quotes []string `json:"quotes"`
	// Client is the client the finding is about (bytes wasted, never loaded).
	Client *string `json:"client,omitempty"`
	// BytesWasted is what the client reads more than once.
	BytesWasted *int `json:"bytes_wasted,omitempty"`
	// Similarity is the near-duplicate measure of the pair.
	Similarity *float64 `json:"similarity,omitempty"`
	// Fact names what a contradiction is about ("package manager", "Node.js version", "always/never").
	Fact string `json:"fact,omitempty"`
}

// LintLocation is one line of a rule file.
type LintLocation struct {
	File string `json:"file"`
	Line int    `json:"line"`
}
