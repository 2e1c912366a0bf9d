package api

// VerifyInput is the input of drafts.verify.
type VerifyInput struct {
	DirInput
	ID      string `json:"id" jsonschema:"required" jsonschema_description:"The entry whose pinned verify command runs (id, prefix, ADR number or path)."`
	Because string `json:"because,omitempty" jsonschema_description:"One line (at most 500 characters) kept in the ledger."`
}

// VerifyResult is the result of drafts.verify.
type VerifyResult struct {
	ID            string   `json:"id"`
	Command       string   `json:"command"`
	CommandSHA256 string   `json:"command_sha256"`
	Ran           bool     `json:"ran"`
	Passed        bool     `json:"passed"`
	ExitCode      *int     `json:"exit_code"`
	TimedOut      bool     `json:"timed_out"`
	OutputTail    string   `json:"output_tail"`
	At            string   `json:"at"`
	Commit        *string  `json:"commit"`
	Dirty         bool     `json:"dirty"`
	DirtyPaths    []string `json:"dirty_paths"`
	Path          string   `json:"path"`
}
