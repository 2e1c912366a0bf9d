package drafts

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

// runOperationsGet answers operations.get. A finished write returns its
// stored result as is (replayed stays as it was stored, false: nothing is
// replayed here) plus state: "done".
func runOperationsGet(ctx context.Context, e *draft, in *api.OperationsGetInput) (any, error) {
	if strings.TrimSpace(in.OperationID) == "" {
		return nil, jsonin.Errorf("operation_id", "is required")
	}
	w, err := e.writer()
	if err != nil {
		return nil, err
	}
	r, err := loadReceipt(w, in.OperationID)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, apierr.New(apierr.NotFound, "no receipt of operation %q in this worktree; it never started, so a new plan is safe", in.OperationID)
	}
	if err := e.checkRoot(r, in.OperationID); err != nil {
		return nil, err
	}
	if in.Fingerprint != "" && in.Fingerprint != r.Fingerprint {
		return nil, apierr.New(apierr.OperationConflict, "operation_id %q was used for a different request (another fingerprint)", in.OperationID)
	}
	if r.State != "done" && r.Routed != "" {
		return e.routedGet(ctx, r, in) // nested.go
	}
	if r.State != "done" {
		return nil, incomplete(r, in.OperationID)
	}
	res := map[string]any{}
	if len(r.Result) > 0 {
		if err := json.Unmarshal(r.Result, &res); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "the receipt of operation %q is unreadable", in.OperationID)
		}
	}
	res["state"] = "done"
	return res, nil
}

// storedStageInput serves drafts.stage with only operation_id and
// fingerprint: a done receipt replays, a stored plan's input is returned
// (with the given fingerprint) so that writeOp resumes it.
func (e *draft) storedStageInput(in *api.StageInput) (*api.StageInput, map[string]any, error) {
	if strings.TrimSpace(in.OperationID) == "" {
		return nil, nil, jsonin.Errorf("operation_id", "is required to resume a stored plan")
	}
	w, err := e.writer()
	if err != nil {
		return nil, nil, err
	}
	r, err := loadReceipt(w, in.OperationID)
	if err != nil {
		return nil, nil, err
	}
	if r == nil {
		return nil, nil, apierr.New(apierr.NotFound, "no stored plan of operation %q; pass entry or candidate_id to stage a new entry", in.OperationID)
	}
	if r.State == "done" || r.Operation != "drafts.stage" || r.Fingerprint != in.Fingerprint {
		res, err := replay(w, "drafts.stage", in.OperationID, in.Fingerprint)
		return nil, res, err
	}
	if err := e.checkRoot(r, in.OperationID); err != nil {
		return nil, nil, err
	}
	var stored api.StageInput
	if len(r.Input) == 0 || json.Unmarshal(r.Input, &stored) != nil {
		return nil, nil, apierr.New(apierr.OperationIncomplete, "operation %q has no stored input to resume from; pass the entry again", in.OperationID)
	}
	stored.DirInput = in.DirInput
	stored.Fingerprint = in.Fingerprint
	return &stored, nil, nil
}

// resumeCandidate re-reads the candidate a resumed promotion started from
// (nil when it is gone or no longer pending).
func (e *draft) resumeCandidate(id string) (map[string]any, string) {
	_, cand, name, err := e.stageCandidate(id)
	if err != nil {
		return nil, ""
	}
	return cand, name
}
