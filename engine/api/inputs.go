package api

import (
	"encoding/json"
)

// DirInput is embedded by every input: dir selects another worktree or
// repository on native surfaces.
type DirInput struct {
	Dir string `json:"dir,omitempty" jsonschema_description:"Another worktree or repository to read (overrides -C). Native surfaces only."`
}

// TargetDir is the dir field (the dispatcher refuses it off native surfaces).
func (d DirInput) TargetDir() string { return d.Dir }

// StatusInput is the input of status.
type StatusInput struct {
	DirInput
}

// SetupInput is the input of setup.
type SetupInput struct {
	DirInput
	Detect *bool `json:"detect,omitempty" jsonschema_description:"Detect the knowledge the repository keeps (ADR logs, Cursor and Copilot rules, AGENTS.md) and append new include sources to the configuration (default true)."`
	DryRun bool  `json:"dry_run,omitempty" jsonschema_description:"Only report what setup would detect and write; change nothing."`
}

// DescribeInput is the input of api.describe.
type DescribeInput struct {
	DirInput
	Operation string `json:"operation,omitempty" jsonschema_description:"One operation name; all operations when omitted."`
}

// ListInput is the input of entries.list.
type ListInput struct {
	DirInput
	Limit      *int     `json:"limit,omitempty" jsonschema:"minimum=1,maximum=500,default=100" jsonschema_description:"Page size."`
	Offset     int      `json:"offset,omitempty" jsonschema:"minimum=0,maximum=1000000000" jsonschema_description:"Index of the first entry of the page (next_offset of the previous page)."`
	ActiveOnly bool     `json:"active_only,omitempty" jsonschema_description:"Drop superseded/deprecated/rejected entries. Active does not mean reviewed."`
	Kinds      []string `json:"kinds,omitempty" jsonschema_description:"Only these kinds (decision or adr, convention, learning, incident, architecture)."`
	Tags       []string `json:"tags,omitempty" jsonschema_description:"Only entries carrying at least one of these tags."`
	View       string   `json:"view,omitempty" jsonschema:"enum=full,enum=compact" jsonschema_description:"compact: the page in items as short records (the body only when short); default full."`
	Cursor     string   `json:"cursor,omitempty" jsonschema_description:"next_cursor of the previous page; stale_cursor after the knowledge changed."`
	History    *bool    `json:"history,omitempty" jsonschema_description:"Fill the fields git history gives (landed, since, since_verified, amended_since); default true. false answers without reading the commit index: those fields are null, as on the in-memory engine."`
}

// GetInput is the input of entries.get.
type GetInput struct {
	DirInput
	ID string `json:"id" jsonschema:"required" jsonschema_description:"Full id, unique id prefix, ADR number (7, 0007, ADR-7) or repo-relative file path."`
}

// SearchInput is the input of entries.search.
type SearchInput struct {
	DirInput
	Query      string `json:"query" jsonschema:"required" jsonschema_description:"Words to search for (BM25F over title, summary, tags and body)."`
	Limit      *int   `json:"limit,omitempty" jsonschema:"minimum=1,maximum=500,default=20"`
	ActiveOnly bool   `json:"active_only,omitempty"`
	View       string `json:"view,omitempty" jsonschema:"enum=full,enum=compact" jsonschema_description:"compact: the page in items as short records (the body only when short); default full."`
	Cursor     string `json:"cursor,omitempty" jsonschema_description:"next_cursor of the previous page; stale_cursor after the knowledge changed."`
}

// GoverningInput is the input of entries.governing.
type GoverningInput struct {
	DirInput
	Paths          []string `json:"paths" jsonschema:"required" jsonschema_description:"Repository-relative paths with / separators; natively an absolute path inside the repository is made relative (outside it is invalid_input)."`
	ExcludeIDs     []string `json:"exclude_ids,omitempty" jsonschema_description:"Entries the caller already delivered."`
	Limit          *int     `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100000" jsonschema_description:"Applied after sorting."`
	MinSpecificity int      `json:"min_specificity,omitempty" jsonschema:"minimum=0,maximum=100000" jsonschema_description:"Drop matches less specific than this."`
	History        *bool    `json:"history,omitempty" jsonschema_description:"Fill the fields git history gives (landed, since, since_verified, amended_since); default true. false answers without reading the commit index: those fields are null, as on the in-memory engine."`
	View           string   `json:"view,omitempty" jsonschema:"enum=full,enum=compact" jsonschema_description:"compact: the page in items as short records (the body only when short); default full."`
	Cursor         string   `json:"cursor,omitempty" jsonschema_description:"next_cursor of the previous page; stale_cursor after the knowledge changed."`
	Client         string   `json:"client,omitempty" jsonschema:"enum=codex,enum=cursor,enum=copilot,enum=copilot-review,enum=claude,enum=gemini" jsonschema_description:"Answer for one coding agent: the entries it puts in its context for these paths, in the order it loads them, each with load (always, auto, agent-requested, manual, on-demand, cut, not-loaded) and a reason; the governing entries it never loads are listed as not-loaded."`
	Cwd            string   `json:"cwd,omitempty" jsonschema_description:"With client: the directory the agent is started in, repository-relative (default the repository root)."`
}

// RelatedInput is the input of entries.related.
type RelatedInput struct {
	DirInput
	Text       string          `json:"text,omitempty" jsonschema_description:"Text of a new insight; similar entries are returned."`
	Paths      []string        `json:"paths,omitempty" jsonschema_description:"Paths the insight is about; entries whose patterns overlap them are returned."`
	ExcludeIDs []string        `json:"exclude_ids,omitempty"`
	LLM        json.RawMessage `json:"llm,omitempty" jsonschema:"oneof_type=boolean;string" jsonschema_description:"true uses the configured model adapter; a string names one."`
}

// DriftInput is the input of entries.drift.
type DriftInput struct {
	DirInput
	Base  string   `json:"base,omitempty" jsonschema_description:"A git revision; default: the merge base of HEAD with origin/HEAD, origin/main or master, the upstream, or checkout.defaultRemote's default branch."`
	Head  string   `json:"head,omitempty" jsonschema_description:"A git revision; default: HEAD plus the working tree (head: working)."`
	Kinds []string `json:"kinds,omitempty" jsonschema_description:"Default decision, convention, learning, incident; architecture only when named."`
	// Broad includes broad entries (a positive ** or **/* pattern, or a
	// reader's always-on mapping, and no negative pattern): every change
	// touches what they govern, so by default they are left out and
	// counted in broad_omitted.
	Broad bool `json:"broad,omitempty" jsonschema_description:"Include broad entries (a positive ** or **/* pattern, or a reader's always-on mapping such as Cursor alwaysApply, and no negative pattern); default false: they are left out and counted in broad_omitted."`
}

// ChangedInput is the input of entries.changed.
type ChangedInput struct {
	DirInput
	Base  string   `json:"base" jsonschema:"required" jsonschema_description:"A git revision; entries committed there."`
	Head  string   `json:"head" jsonschema:"required" jsonschema_description:"A git revision; entries committed there."`
	Kinds []string `json:"kinds,omitempty"`
}

// ExportInput is the input of entries.export.
type ExportInput struct {
	DirInput
	Revision  string   `json:"revision" jsonschema:"required" jsonschema_description:"A full commit sha: the reviewed tip."`
	ReviewRef string   `json:"review_ref" jsonschema:"required" jsonschema_description:"A full ref name such as refs/remotes/origin/main whose tip must equal revision."`
	Paths     []string `json:"paths,omitempty" jsonschema_description:"Only entries governing any of these paths."`
}
