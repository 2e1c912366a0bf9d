package api

// BundleInput is the input of bundle.build.
type BundleInput struct {
	DirInput
	Base string `json:"base,omitempty" jsonschema_description:"Base revision; default: the drift base (entries.drift)."`
	Head string `json:"head,omitempty" jsonschema_description:"Head revision; default: HEAD (committed files only)."`
	// Worktree includes uncommitted knowledge (HEAD plus the working tree),
	// for local review; a bundle meant for publishing leaves it false.
	Worktree bool `json:"worktree,omitempty" jsonschema_description:"Include uncommitted knowledge files (HEAD plus the working tree) for local review; not with head."`
	// Broad includes broad entries in drift (entries.drift's broad).
	Broad bool `json:"broad,omitempty" jsonschema_description:"Include broad entries in drift, as entries.drift's broad does."`
}

// Bundle is a kontext.bundle/v1 document: committed, team-visible
// knowledge at its head revision (private entries are never included).
type Bundle struct {
	Schema string `json:"schema"`
	// FormatVersion is <major>.<minor>: the major is the schema's (a reader
	// refuses a newer one), the minor goes up when fields are added.
	FormatVersion string           `json:"format_version"`
	GeneratedAt   string           `json:"generated_at"`
	Repository    BundleRepository `json:"repository"`
	Config        *BundleConfig    `json:"config"`
	// Files are the knowledge files and the configuration at head (the
	// working tree without a head revision), by repo-relative path.
	Files map[string]string `json:"files"`
	// BaseFiles are the same at the merge base of base and head (base
	// when it is an ancestor of head); nil without a base. A base without
	// a configuration holds head's (spec 04), named in Warnings.
	BaseFiles map[string]string `json:"base_files"`
	// ChangedPaths are the files changed base..head (from their merge
	// base), plus the uncommitted ones in working mode, sorted.
	ChangedPaths []string                  `json:"changed_paths"`
	History      map[string]*BundleHistory `json:"history"`
	Drift        []*DriftEntry             `json:"drift"`
	// Warnings (format 1.3) name each revision read with a configuration
	// other than its own, as entries.changed and entries.drift do.
	Warnings []string `json:"warnings" jsonschema_description:"Each revision read with a configuration other than its own (it has none committed): head's, else the working tree's (format 1.3)."`
	// Snapshot (format 1.2) is the compiled snapshot of Files at the head
	// revision, base64: parsed entries, diagnostics and the compiled match
	// index, so a reader answers without parsing Markdown or YAML. It is
	// content-addressed by the git blob ids of the files: a reader uses a
	// stored parse only for a file whose content hashes to its id, and
	// parses the rest. Readers that do not know it ignore it.
	Snapshot string `json:"snapshot,omitempty" jsonschema_description:"The compiled snapshot of files at head (base64; format 1.2): content-addressed by the files' blob ids, used by the WASM engine instead of parsing; ignore it or fall back to the files."`
}

// BundleRepository describes the change a bundle is about.
type BundleRepository struct {
	Name string `json:"name"` // the repository directory's base name
	// Head is the head commit (HEAD in working mode); nil before the
	// first commit or outside git.
	Head *string `json:"head"`
	// Base is the drift base; nil when none was found (base_source
	// fallback-none) or outside git.
	Base       *string `json:"base"`
	BaseSource string  `json:"base_source"`
	// Dirty is true in working mode when the working tree has uncommitted
	// changes (files then reflect them).
	Dirty bool `json:"dirty"`
	// Worktree is true when the bundle includes uncommitted files
	// (bundle --worktree, the local review console).
	Worktree bool `json:"worktree"`
}

// BundleConfig is the configuration file at head.
type BundleConfig struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// BundleHistory holds the history-derived fields of one entry.
type BundleHistory struct {
	Verification  *Verification `json:"verification"`
	LastVerified  *Verification `json:"last_verified"`
	Since         *Since        `json:"since"`
	SinceVerified *Since        `json:"since_verified"`
	Premises      []Premise     `json:"premises"`
	Failing       bool          `json:"failing"`
	AmendedSince  bool          `json:"amended_since"`
}
