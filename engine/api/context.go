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
