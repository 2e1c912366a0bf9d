package api

// SetStatusInput is the input of drafts.set_status.
type SetStatusInput struct {
	DirInput
	OperationID   string `json:"operation_id" jsonschema:"required" jsonschema_description:"Stable id of this write: a retry returns the first result (replayed: true)."`
	EntryID       string `json:"entry_id" jsonschema:"required" jsonschema_description:"A decision: full id, unique id prefix, ADR number or path."`
	EntryRevision string `json:"entry_revision" jsonschema:"required" jsonschema_description:"The entry's revision (blob id), its 12-hex prefix, or a full commit sha in which the file is unchanged."`
	Status        string `json:"status" jsonschema:"required,enum=accepted,enum=rejected" jsonschema_description:"The decision's new status: a proposed decision becomes accepted or rejected. The status word is replaced where the file keeps it (frontmatter, ## Status section, Status: line); nothing else changes."`
}
