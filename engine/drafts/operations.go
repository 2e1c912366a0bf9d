package drafts

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine"
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

// IncompleteOperations lists this worktree's writes whose plan is stored
// but that never finished (status.incomplete_operations), oldest first:
// each with the command that resumes it — the CLI command line that
// started it, else the API operation to send again with the same
// operation_id. Receipts of another worktree and those of an older kontext
// that did not record their id (nothing could resume them by id) are left
// out.
func IncompleteOperations(e *engine.Engine) ([]api.IncompleteOperation, error) {
	w := e.Options().Writer
	if w == nil {
		return nil, nil
	}
	names, err := w.ListState("operations")
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "listing the receipts")
	}
	out := []api.IncompleteOperation{}
	root := e.Options().Root
	for _, name := range names {
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		if !strings.Contains(name, "/") {
			name = "operations/" + name
		}
		data, ok, err := w.ReadState(name)
		if err != nil || !ok {
			continue
		}
		var r receipt
		if json.Unmarshal(data, &r) != nil || r.State != "planned" || r.OperationID == "" {
			continue
		}
		if r.Root != "" && root != "" && r.Root != root {
			continue
		}
		op := api.IncompleteOperation{OperationID: r.OperationID, Command: r.Command, Operation: r.Operation, Since: strp(r.Since)}
		if op.Command == "" {
			op.Command = r.Operation
		}
		out = append(out, op)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Since, out[j].Since
		if a == nil || b == nil {
			return a == nil && b != nil
		}
		return *a < *b
	})
	return out, nil
}

// StoredInput is the input stored with the unfinished plan of operationID
// in this worktree (nil when there is no such plan, or it stored none).
// The CLI resends it when a rerun would build another request than the
// one planned — e.g. with the entry's revision after the file was
// written — so the rerun resumes the plan instead of conflicting with it.
func StoredInput(e *engine.Engine, operationID string) (json.RawMessage, error) {
	w := e.Options().Writer
	if w == nil {
		return nil, nil
	}
	r, err := loadReceipt(w, operationID)
	if err != nil || r == nil || r.State != "planned" {
		return nil, err
	}
	if r.Root != "" && e.Options().Root != "" && r.Root != e.Options().Root {
		return nil, nil
	}
	return r.Input, nil
}
