package api

// LLMStatus is status.llm: the actual model selection.
type LLMStatus struct {
	Selected  bool    `json:"selected"`
	Adapter   *string `json:"adapter"`
	Model     *string `json:"model,omitempty"`
	Available bool    `json:"available"`
	Reason    *string `json:"reason,omitempty"`
}

// SkippedFile is a Markdown file of a source that is not a record.
type SkippedFile struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// StatusResult is the result of status.
type StatusResult struct {
	Version      string                    `json:"version"`
	APIVersion   int                       `json:"api_version"`
	Root         string                    `json:"root"`
	Revision     *string                   `json:"revision"`
	Storage      string                    `json:"storage"`
	ConfigSource ConfigSource              `json:"config_source"`
	Capabilities []string                  `json:"capabilities"`
	LLM          LLMStatus                 `json:"llm"`
	Counts       map[string]map[string]int `json:"counts"`
	ReviewDue    []string                  `json:"review_due"`
	Failing      []string                  `json:"failing"`
	Diagnostics  int                       `json:"diagnostics"`
	Snapshot     string                    `json:"snapshot"`
	// Skipped lists the Markdown files of the sources that are not records
	// (README, index, templates), with the reason.
	Skipped []SkippedFile `json:"skipped"`
	// BriefBudgetLines is [brief] budget_lines of the committed config.
	BriefBudgetLines int `json:"brief_budget_lines"`
	// On a repository with no entries: the knowledge sources detection
	// finds that the configuration does not read yet, and Hint names the
	// command that adds them.
	Detected []DetectedSource `json:"detected,omitempty"`
	Hint     *string          `json:"hint,omitempty"`
	// IncompleteOperations are this worktree's writes that stored their
	// plan but never finished (a killed process), oldest first. Present
	// (possibly empty) where the surface can write (capability
	// status.incomplete_operations); absent in the read-only engines.
	IncompleteOperations []IncompleteOperation `json:"incomplete_operations,omitzero"`
}

// IncompleteOperation is a stored plan whose write never finished.
type IncompleteOperation struct {
	OperationID string `json:"operation_id"`
	// Command resumes it: the kontext command line to run again when the
	// CLI started it, else the API operation to send again with the same
	// operation_id (drafts.stage also takes operation_id and fingerprint
	// alone).
	Command string `json:"command"`
	// Operation is the API operation of the write.
	Operation string `json:"operation"`
	// Since is when the plan was stored (UTC, RFC 3339; null for a plan
	// stored by a kontext that did not record it).
	Since *string `json:"since"`
}

// DetectedSource is a knowledge source that detection found: an ADR log
// or a set of rule files, with the number of entries it reads.
type DetectedSource struct {
	Dir     string `json:"dir"` // repo-relative; "." is the repository root
	Kind    string `json:"kind"`
	Style   string `json:"style"`
	Entries int    `json:"entries"`
	// Configured: the configuration already reads this source (nothing
	// to append).
	Configured bool `json:"configured"`
}

// SetupResult is the result of setup.
type SetupResult struct {
	Root         string       `json:"root"`
	Storage      string       `json:"storage"`
	Created      []string     `json:"created"`
	ConfigSource ConfigSource `json:"config_source"`
	// Detected lists the knowledge sources detection found, each with its
	// entry count; configured ones were read already.
	Detected      []DetectedSource `json:"detected"`
	ConfigWritten bool             `json:"config_written"`
	// With dry_run: nothing is written; ConfigText is the configuration
	// setup would write (null when it would not change it).
	DryRun     bool    `json:"dry_run,omitempty"`
	ConfigText *string `json:"config_text,omitempty"`
}
