package api

// OperationsGetInput is the input of operations.get.
type OperationsGetInput struct {
	DirInput
	OperationID string `json:"operation_id" jsonschema:"required" jsonschema_description:"The operation_id of an earlier write."`
	Fingerprint string `json:"fingerprint,omitempty" jsonschema_description:"The fingerprint the write was made with; a different stored one is operation_conflict."`
}
