//go:build !js

package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

func init() {
	register(operation{name: "operations.get", input: func() any { return &api.OperationsGetInput{} }, run: runOperationsGet, writes: true})
}

// storedChange is one planned file write of a stored plan. Before is the
// sha256 of the file's content when the plan was made ("" for a new file):
// a resume only rewrites a file that still holds Before or already holds
// Data.
type storedChange struct {
	Path   string `json:"path"`
	Data   []byte `json:"data"`
	New    bool   `json:"new,omitempty"`
	Before string `json:"before,omitempty"`
}

// storedPlan is what a planned receipt keeps so that a resume writes
// exactly what was planned (same target, same date, same id).
type storedPlan struct {
	Target string         `json:"target"`
	Notes  []string       `json:"notes,omitempty"`
	Files  []storedChange `json:"files"`
}

func sha(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// loadReceipt reads the receipt of operationID (nil when there is none).
func loadReceipt(w Writer, operationID string) (*receipt, error) {
	data, ok, err := w.ReadState(receiptName(operationID))
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading the receipt of operation %q", operationID)
	}
	if !ok {
		return nil, nil
	}
	var r receipt
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "the receipt of operation %q is unreadable", operationID)
	}
	return &r, nil
}

// checkRoot refuses a receipt made in another worktree: receipts are never
// used to write into (or answer for) another checkout. Receipts written
// before roots were recorded have none and pass.
func (e *Engine) checkRoot(r *receipt, operationID string) error {
	if r.Root != "" && e.opts.Root != "" && r.Root != e.opts.Root {
		return apierr.New(apierr.WorktreeConflict, "operation %q belongs to the worktree at %s; retry it from there", operationID, r.Root)
	}
	return nil
}

func incomplete(r *receipt, operationID string) error {
	err := apierr.New(apierr.OperationIncomplete, "operation %q was planned but never finished; resume it with the same input (or operation_id and fingerprint)", operationID)
	err.Extra = map[string]any{"operation": r.Operation, "fingerprint": r.Fingerprint}
	return err
}

// runOperationsGet answers operations.get. A finished write returns its
// stored result as is (replayed stays as it was stored, false: nothing is
// replayed here) plus state: "done".
func runOperationsGet(ctx context.Context, e *Engine, v any) (any, error) {
	in := v.(*api.OperationsGetInput)
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

// storeOpReceipt writes a receipt of writeOp, recording this worktree's
// root.
func (e *Engine) storeOpReceipt(w Writer, r receipt, operationID string) error {
	r.Root = e.opts.Root
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return w.WriteState(receiptName(operationID), data)
}

// planOp is writeOp's step under the lock: a done receipt replays; another
// request's receipt conflicts; a stored unfinished plan (its process died)
// is resumed with its stored files; otherwise plan runs on a fresh read and
// the plan (input, fingerprint, root, files) is stored before anything is
// written.
func (e *Engine) planOp(ctx context.Context, w Writer, op, operationID, fp string, input any,
	plan func(st *state) ([]change, string, []string, error)) (map[string]any, []change, string, []string, error) {
	e.Forget()
	r, err := loadReceipt(w, operationID)
	if err != nil {
		return nil, nil, "", nil, err
	}
	if r != nil {
		if r.State == "done" || r.Operation != op || r.Fingerprint != fp {
			res, err := replay(w, op, operationID, fp)
			return res, nil, "", nil, err
		}
		return e.resumeStored(r, operationID)
	}
	st, err := e.read(ctx)
	if err != nil {
		return nil, nil, "", nil, err
	}
	files, target, notes, err := plan(st)
	if err != nil {
		return nil, nil, "", nil, err
	}
	sp := &storedPlan{Target: target, Notes: notes}
	fs := e.reader.FS()
	for _, f := range files {
		c := storedChange{Path: f.path, Data: f.data, New: f.isNew}
		if old, err := util.ReadFile(fs, f.path); err == nil {
			c.Before = sha(old)
		}
		sp.Files = append(sp.Files, c)
	}
	rc := receipt{State: "planned", Operation: op, Fingerprint: fp, Plan: sp}
	if input != nil {
		if rc.Input, err = json.Marshal(input); err != nil {
			return nil, nil, "", nil, apierr.Wrap(apierr.OperationFailed, err, "storing the plan")
		}
	}
	if err := e.storeOpReceipt(w, rc, operationID); err != nil {
		return nil, nil, "", nil, apierr.Wrap(apierr.OperationFailed, err, "storing the plan")
	}
	faultpoint("after_plan")
	return nil, files, target, notes, nil
}

// resumeStored returns the files of a stored plan, refusing one of another
// worktree, one without stored files, or one whose files changed since.
func (e *Engine) resumeStored(r *receipt, operationID string) (map[string]any, []change, string, []string, error) {
	if err := e.checkRoot(r, operationID); err != nil {
		return nil, nil, "", nil, err
	}
	if r.Plan == nil {
		return nil, nil, "", nil, apierr.New(apierr.OperationIncomplete, "operation %q was planned by an older kontext that did not store its plan; check the files by hand and use a new operation_id", operationID)
	}
	fs := e.reader.FS()
	var files []change
	for _, c := range r.Plan.Files {
		cur, err := util.ReadFile(fs, c.Path)
		ok := (err != nil && c.Before == "") || (err == nil && (sha(cur) == c.Before || sha(cur) == sha(c.Data)))
		if !ok {
			return nil, nil, "", nil, apierr.New(apierr.OperationConflict, "%s changed since operation %q was planned; check it by hand and use a new operation_id", c.Path, operationID)
		}
		files = append(files, change{path: c.Path, data: c.Data, isNew: c.New})
	}
	return nil, files, r.Plan.Target, r.Plan.Notes, nil
}

// storedStageInput serves drafts.stage with only operation_id and
// fingerprint: a done receipt replays, a stored plan's input is returned
// (with the given fingerprint) so that writeOp resumes it.
func (e *Engine) storedStageInput(in *api.StageInput) (*api.StageInput, map[string]any, error) {
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
func (e *Engine) resumeCandidate(id string) (map[string]any, string) {
	_, cand, name, err := e.stageCandidate(id)
	if err != nil {
		return nil, ""
	}
	return cand, name
}

// writeOp runs a write without storing its input (see writeOpInput).
func (e *Engine) writeOp(ctx context.Context, op, operationID, fp string,
	plan func(st *state) (files []change, target string, notes []string, err error),
	after func(st *state, res *api.StageResult) error) (any, error) {
	return e.writeOpInput(ctx, op, operationID, fp, nil, plan, after)
}
