//go:build !js

package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/kontext/kontext/engine/apierr"
)

func (e *Engine) writer() (Writer, error) {
	if e.opts.Writer == nil {
		return nil, apierr.New(apierr.UnsupportedOperation, "writes need the native CLI inside a git repository")
	}
	return e.opts.Writer, nil
}

// receipt is the stored plan and outcome of a write with an operation_id.
type receipt struct {
	State       string          `json:"state"` // planned | done
	Operation   string          `json:"operation"`
	Fingerprint string          `json:"fingerprint"`
	Result      json.RawMessage `json:"result,omitempty"`
	Root        string          `json:"root,omitempty"`  // the worktree root the receipt belongs to
	Input       json.RawMessage `json:"input,omitempty"` // the canonical input of a writeOp plan
	Plan        *storedPlan     `json:"plan,omitempty"`  // the planned files of a writeOp (operations.go)
}

func receiptName(operationID string) string {
	h := sha256.Sum256([]byte(operationID))
	return "operations/" + hex.EncodeToString(h[:]) + ".json"
}

func fingerprint(v any) string {
	data, _ := json.Marshal(v)
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// replay returns the stored result of operationID (with replayed: true),
// nil when there is none, or the error of a conflicting or unfinished one.
func replay(w Writer, op, operationID, fp string) (map[string]any, error) {
	data, ok, err := w.ReadState(receiptName(operationID))
	if err != nil || !ok {
		return nil, err
	}
	var r receipt
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "the receipt of operation %q is unreadable", operationID)
	}
	if r.Operation != op || r.Fingerprint != fp {
		return nil, apierr.New(apierr.OperationConflict, "operation_id %q was used for a different request; use a new operation_id", operationID)
	}
	if r.State != "done" {
		return nil, apierr.New(apierr.OperationIncomplete, "operation %q was planned but never finished; retry it with the same input", operationID)
	}
	var res map[string]any
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "the receipt of operation %q is unreadable", operationID)
	}
	res["replayed"] = true
	return res, nil
}

func storeReceipt(w Writer, op, operationID, fp, state string, result any) error {
	r := receipt{State: state, Operation: op, Fingerprint: fp}
	if result != nil {
		data, err := json.Marshal(result)
		if err != nil {
			return err
		}
		r.Result = data
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return w.WriteState(receiptName(operationID), data)
}
