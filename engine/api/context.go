package api

// BriefInput is the input of context.brief.
type BriefInput struct {
	DirInput
	Paths       []string `json:"paths,omitempty" jsonschema_description:"Repo-relative paths to brief; default: the files changed since diff, else the uncommitted files."`
	Diff        string   `json:"diff,omitempty" jsonschema_description:"A git revision: brief the files changed since its merge base with HEAD, plus uncommitted ones. Not with paths."`
	BudgetLines *int     `json:"budget_lines,omitempty" jsonschema:"minimum=1,maximum=1000000" jsonschema_description:"At most this many lines; lower-authority content is dropped first. Default: [brief] budget_lines of the config (300)."`
	// Architecture includes the ARCHITECTURE section.
	Architecture bool `json:"architecture,omitempty" jsonschema_description:"Include the ARCHITECTURE section."`
	// View compact leaves repository.paths out (a diff can name thousands).
	View string `json:"view,omitempty" jsonschema:"enum=full,enum=compact" jsonschema_description:"compact: repository.paths left out (path_count says how many; the paths line summarises them); default full."`
}

// RepositoryStateInput is the input of repository.state.
type RepositoryStateInput struct {
	DirInput
	Since string `json:"since,omitempty" jsonschema_description:"A git revision: also list the files changed since its merge base with HEAD (plus uncommitted ones)."`
}

// RepositoryState is the result of repository.state: what git says about
// the worktree, so that no surface reaches around the engine to git.
type RepositoryState struct {
	Root string `json:"root"`
	// Branch is "" when HEAD is detached.
	Branch string `json:"branch"`
	// Head is null before the first commit.
	Head        *string  `json:"head"`
	Dirty       bool     `json:"dirty"`
	Uncommitted []string `json:"uncommitted"`
	// ChangedSince is set when since was given.
	ChangedSince *ChangedSince `json:"changed_since,omitempty"`
}

// ChangedSince lists the files changed since a revision.
type ChangedSince struct {
	Base  string   `json:"base"`
	Paths []string `json:"paths"`
}

// VerifyPinInput is the input of verify.pin.
type VerifyPinInput struct {
	DirInput
	ID string `json:"id" jsonschema:"required" jsonschema_description:"The entry whose verify command is looked up (id, prefix, ADR number or path)."`
}

// VerifyPin is the result of verify.pin: whether the entry's verify command
// is pinned in the user's trust file. Pinning itself is terminal-only
// (kontext trust --verify) and never an operation.
type VerifyPin struct {
	ID            string  `json:"id"`
	Command       *string `json:"command"`
	CommandSHA256 *string `json:"command_sha256"`
	Pinned        bool    `json:"pinned"`
}

// CostInput is the input of context.cost.
type CostInput struct {
	DirInput
	Paths  []string `json:"paths,omitempty" jsonschema_description:"Repo-relative paths the agent works on; default: the files changed since diff, else the uncommitted files (native surfaces)."`
	Diff   string   `json:"diff,omitempty" jsonschema_description:"A git revision: the files changed since its merge base with HEAD, plus uncommitted ones. Not with paths; native surfaces only."`
	Client string   `json:"client,omitempty" jsonschema:"enum=codex,enum=cursor,enum=copilot,enum=copilot-review,enum=claude,enum=gemini" jsonschema_description:"One coding agent; default every client."`
	Cwd    string   `json:"cwd,omitempty" jsonschema_description:"The directory the agent is started in, repository-relative (default the repository root)."`
}

// CostResult is the result of context.cost: per client, what it puts in
// its context for the paths.
type CostResult struct {
	// Estimator says how tokens are counted: "bytes/4" (no tokenizer).
	Estimator string       `json:"estimator" jsonschema_description:"How tokens are estimated from bytes: bytes/4 (no tokenizer is used)."`
	Cwd       string       `json:"cwd"`
	PathCount int          `json:"path_count"`
	Clients   []ClientCost `json:"clients"`
	Snapshot  string       `json:"snapshot"`
}

// ClientCost is one client's context cost.
type ClientCost struct {
	Client string `json:"client"`
	// Bytes are what loads: always, auto and on-demand files whole, a cut
	// file's loaded part; agent-requested and manual files count nothing
	// until asked for.
	Bytes  int `json:"bytes" jsonschema_description:"Bytes that load: always, auto and on-demand files whole, the loaded part of a cut file; agent-requested and manual files count nothing."`
	Tokens int `json:"tokens" jsonschema_description:"Estimated tokens of bytes (see estimator)."`
	// Loaded is how many files load (a cut file with a loaded part counts).
	Loaded int `json:"loaded"`
	// NotLoaded is how many governing entries the client never loads.
	NotLoaded int `json:"not_loaded"`
	// Cut are the files past the client's byte budget (Codex).
	Cut []CostFile `json:"cut"`
	// Top are the largest contributors, largest first (at most 5).
	Top   []CostFile `json:"top"`
	Notes []string   `json:"notes"`
}

// CostFile is one file of a client's context.
type CostFile struct {
	ID          string `json:"id"`
	File        string `json:"file"`
	Load        string `json:"load"`
	Bytes       int    `json:"bytes"`
	BytesLoaded int    `json:"bytes_loaded"`
}
