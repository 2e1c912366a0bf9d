// Package entry owns the knowledge-entry file formats: it parses one file
// (frontmatter, ADR, cursor, copilot, agents or claude style) into an Entry plus
// diagnostics, and knows ids, statuses and ADR numbers. It reads no files
// itself: callers hand it a path and the bytes.
package entry

import "github.com/kontext/kontext/engine/api"

// Kinds in their fixed order (lists, sorting, briefs).
var Kinds = []string{"decision", "convention", "learning", "incident", "architecture"}

// Styles a source may use.
const (
	StyleFrontmatter = "frontmatter"
	StyleADR         = "adr"
	StyleCursor      = "cursor"
	StyleCopilot     = "copilot"
	StyleAgents      = "agents"
	StyleClaude      = "claude"
)

// MaxFileSize is the largest entry file that is parsed (1 MiB); larger
// files get the too_large diagnostic.
const MaxFileSize = 1 << 20

// Source is one directory of entries of one kind: a kind's own dir, or one
// of its read-only includes.
type Source struct {
	Kind        string // canonical kind name (never the alias "adr")
	Dir         string // repo-relative, "/"-separated, no trailing slash; "" or "." = repo root
	Style       string // one of the Style constants
	ReadOnly    bool   // an include source: kontext never writes it
	ReviewAfter string // e.g. "180d", "6m", "2w", "1y"; "" = none
}

// Diagnostic reports a problem with one file (the API's type: see
// engine/api).
type Diagnostic = api.Diagnostic

// Diagnostic codes.
const (
	CodeBadFrontmatter  = "bad_frontmatter"
	CodeBadDate         = "bad_date"
	CodeBadGlob         = "bad_glob"
	CodeDuplicateID     = "duplicate_id"
	CodeUnknownKind     = "unknown_kind"
	CodeTooLarge        = "too_large"
	CodeNotUTF8         = "not_utf8"
	CodeMissingStatus   = "missing_status"
	CodeRootOnlyPattern = "root_only_pattern"
	CodeInferredLink    = "inferred_link"
	CodeBadValue        = "bad_value"
	// CodeBadFileName: a knowledge file or directory whose name holds a control character
	// (tab, newline, …) is not read; every other entry still is.
	CodeBadFileName = "bad_file_name"
	// Relations between ADRs, reported by the knowledge base once every
	// record is read.
	CodeDuplicateNumber   = "duplicate_number"
	CodeSupersedeMismatch = "supersede_mismatch"
	CodeUnresolvedLink    = "unresolved_link"
	// CodeIgnoredImport (info): an @path import kontext does not follow —
	// one from the user's home directory (@~/…), an absolute path, or a
	// path that leaves the repository.
	CodeIgnoredImport = "ignored_import"
)

// LinkImports is the type of the links an @path import makes (Claude
// Code's imports; engine/internal/kb resolves their targets).
const LinkImports = "imports"

// Link is a relation line of an ADR that is not a supersede link
// ("Amends", "Clarified by", …), kept in extra.links.
type Link struct {
	Relation string `json:"relation"`
	Target   string `json:"target"`
}

// TypedLink is a typed relation to another record that is not
// supersession ("amends", "refined by", "depends on", …): Type lower-cased
// as written, Target the target as written in the file until the knowledge
// base resolves it to an id, Text the link text as written.
type TypedLink struct {
	Type   string `json:"type"`
	Target string `json:"target"`
	Text   string `json:"text"`
}

// Entry is one parsed knowledge record. Empty strings mean "absent" (null
// in JSON outputs); slices are never nil after Parse.
type Entry struct {
	ID           string
	Kind         string
	Title        string
	Body         string
	Summary      string
	Status       string // canonical, lower-cased ("deprecated" for retired/reverted/obsolete)
	StatusRaw    string // the word(s) as written
	Date         string // YYYY-MM-DD when it could be read
	DateRaw      string // as written
	ReviewBy     string // YYYY-MM-DD (explicit, or date + review_after)
	Checked      string // as written, never normalised
	Verify       string
	Visibility   string // "team" (default) or "private"
	Paths        []string
	Tags         []string
	Supersedes   []string // entry ids
	SupersededBy []string // entry ids
	Extends      []string
	Commits      []string
	File         string // repo-relative path
	Markdown     string // exact file text
	Style        string
	ADRNumber    int // valid when HasADRNumber
	HasADRNumber bool
	ReadOnly     bool
	Extra        map[string]any // unknown frontmatter keys, extra.links, extra.source_style, …
	Links        []TypedLink    // typed relations other than supersession; never nil after Parse

	// placeholder: an unnumbered ADR whose title is still its template's.
	placeholder bool
	// PathsSource says where Paths come from: "file", "overlay" (the
	// committed path overlay) or "both"; set by the knowledge base.
	PathsSource string
	// FilePaths are the paths the file itself declares when the overlay
	// added some (nil otherwise: then Paths are the file's own).
	FilePaths []string
}

// OwnPaths are the paths the entry's file itself declares: what an edit
// of the file must leave as they are.
func (e *Entry) OwnPaths() []string {
	if e.FilePaths != nil {
		return e.FilePaths
	}
	return e.Paths
}

// IsTemplate reports whether e is an unfilled ADR template (an unnumbered
// file whose title is still the placeholder): such a file is skipped, not
// read as a record.
func (e *Entry) IsTemplate() bool { return e.placeholder }
