package api

// AmendResult is drafts.stage with amends: the normal staging result plus
// the id of the amended entry.
type AmendResult struct {
	*StageResult
	Amended string `json:"amended"`
}
