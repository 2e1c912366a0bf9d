package api

// RetireInput is the input of drafts.retire.
type RetireInput struct {
	DirInput
	OperationID   string `json:"operation_id" jsonschema:"required" jsonschema_description:"Stable id of this write: a retry returns the first result (replayed: true)."`
	EntryID       string `json:"entry_id" jsonschema:"required" jsonschema_description:"Full id, unique id prefix, ADR number or path."`
	EntryRevision string `json:"entry_revision" jsonschema:"required" jsonschema_description:"The entry's revision (blob id), its 12-hex prefix, or a full commit sha in which the file is unchanged."`
	Reason        string `json:"reason" jsonschema:"required" jsonschema_description:"Why the entry no longer applies; written under ## Retired <date>."`
}

// SetVerifyInput is the input of drafts.set_verify.
type SetVerifyInput struct {
	DirInput
	OperationID   string `json:"operation_id" jsonschema:"required" jsonschema_description:"Stable id of this write: a retry returns the first result (replayed: true)."`
	EntryID       string `json:"entry_id" jsonschema:"required" jsonschema_description:"Full id, unique id prefix, ADR number or path."`
	EntryRevision string `json:"entry_revision" jsonschema:"required" jsonschema_description:"The entry's revision (blob id), its 12-hex prefix, or a full commit sha in which the file is unchanged."`
	Verify        string `json:"verify" jsonschema_description:"One command line (at most 500 characters); an empty string removes the verify line."`
}
