package drafts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/go-git/go-billy/v5/util"
	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"strings"
	"time"
)

// Every write goes through this file, in one order:
//
//	replay (a finished operation_id answers its stored result)
//	→ lock (the shared write lock, bounded wait)
//	→ plan (on a fresh read under the lock; stored as a "planned" receipt
//	  with the exact files, so a crashed write resumes instead of guessing)
//	→ write (atomic, confined to the worktree, through the Writer)
//	→ stage (exactly the written files)
//	→ receipt ("done", with the result a retry replays).
//
// Operations only plan: they return the files to write; nothing else in
// this package calls WriteFile, Stage or Lock.

func (e *draft) writer() (engine.Writer, error) {
	if e.Options().Writer == nil {
		return nil, apierr.New(apierr.UnsupportedOperation, "writes need the native CLI inside a git repository")
	}
	return e.Options().Writer, nil
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
	// Routed is the nested repository a routed write went to (nested.go):
	// its own receipt there is the truth while this one is unfinished.
	Routed string `json:"routed,omitempty"`
	// OperationID is the id itself (the file is named by its hash), Since
	// when the plan was stored and Command the command line that resumes
	// it (WithCommand; "" when the write came from the API): status lists
	// unfinished plans with them. Receipts of older versions have none.
	OperationID string `json:"operation_id,omitempty"`
	Since       string `json:"since,omitempty"`
	Command     string `json:"command,omitempty"`
}

type commandKey struct{}

// WithCommand returns ctx carrying the command line of the CLI invocation
// that writes (e.g. `kontext new decision "Use Postgres" --body …`): a
// plan stored under it names that line as the way to resume it (status's
// incomplete_operations).
func WithCommand(ctx context.Context, line string) context.Context {
	return context.WithValue(ctx, commandKey{}, line)
}

// stamp records in a planned receipt when it was planned and, when the
// CLI started it, the command line that resumes it.
func (e *draft) stamp(ctx context.Context, r *receipt) {
	r.Since = e.Now().Format(time.RFC3339)
	if line, ok := ctx.Value(commandKey{}).(string); ok {
		r.Command = line
	}
}

// voided is the state of a routed write's receipt whose nested write was
// refused before it planned anything: it counts as no receipt at all.
const voided = "void"

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
func replay(w engine.Writer, op, operationID, fp string) (map[string]any, error) {
	data, ok, err := w.ReadState(receiptName(operationID))
	if err != nil || !ok {
		return nil, err
	}
	var r receipt
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "the receipt of operation %q is unreadable", operationID)
	}
	if r.State == voided {
		return nil, nil
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

// storedChange is one planned file write of a stored plan. Before is the
// sha256 of the file's content when the plan was made ("" for a new file):
// a resume only rewrites a file that still holds Before or already holds
// Data.
type storedChange struct {
	Path   string `json:"path"`
	Data   []byte `json:"data"`
	New    bool   `json:"new,omitempty"`
	Before string `json:"before,omitempty"`
	Staged []byte `json:"staged,omitempty"` // the index content when it is not Data
}

// storedPlan is what a planned receipt keeps so that a resume writes
// exactly what was planned (same target, same date, same id).
type storedPlan struct {
	Target string         `json:"target"`
	Notes  []string       `json:"notes,omitempty"`
	Files  []storedChange `json:"files"`
	State  []storedChange `json:"state,omitempty"` // local state files (the inbox) of a receipted plan
}

func sha(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// loadReceipt reads the receipt of operationID (nil when there is none).
func loadReceipt(w engine.Writer, operationID string) (*receipt, error) {
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
	if r.State == voided {
		return nil, nil
	}
	return &r, nil
}

// checkRoot refuses a receipt made in another worktree: receipts are never
// used to write into (or answer for) another checkout. Receipts written
// before roots were recorded have none and pass.
func (e *draft) checkRoot(r *receipt, operationID string) error {
	if r.Root != "" && e.Options().Root != "" && r.Root != e.Options().Root {
		return apierr.New(apierr.WorktreeConflict, "operation %q belongs to the worktree at %s; retry it from there", operationID, r.Root)
	}
	return nil
}

func incomplete(r *receipt, operationID string) error {
	err := apierr.New(apierr.OperationIncomplete, "operation %q was planned but never finished; resume it with the same input (or operation_id and fingerprint)", operationID)
	err.Extra = map[string]any{"operation": r.Operation, "fingerprint": r.Fingerprint}
	if r.Plan != nil {
		// The exact files of the stored plan: the retry (same operation_id
		// and fingerprint) writes exactly these.
		files := []string{}
		for _, f := range r.Plan.Files {
			files = append(files, f.Path)
		}
		err.Extra["resumable"] = true
		err.Extra["files"] = files
	} else {
		err.Extra["resumable"] = false
	}
	return err
}

// storeOpReceipt writes a receipt of writeOp, recording this worktree's
// root.
func (e *draft) storeOpReceipt(w engine.Writer, r receipt, operationID string) error {
	r.Root = e.Options().Root
	r.OperationID = operationID
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
func (e *draft) planOp(ctx context.Context, w engine.Writer, op, operationID, fp string, input any,
	plan func(st *engine.State) ([]change, string, []string, error)) (map[string]any, []change, string, []string, error) {
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
	st, err := e.Read(ctx)
	if err != nil {
		return nil, nil, "", nil, err
	}
	files, target, notes, err := plan(st)
	if err != nil {
		return nil, nil, "", nil, err
	}
	e.plannedFrom(st, files)
	sp := e.storePlan(files, target, notes)
	rc := receipt{State: "planned", Operation: op, Fingerprint: fp, Plan: sp}
	e.stamp(ctx, &rc)
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
func (e *draft) resumeStored(r *receipt, operationID string) (map[string]any, []change, string, []string, error) {
	if err := e.checkRoot(r, operationID); err != nil {
		return nil, nil, "", nil, err
	}
	if r.Plan == nil {
		return nil, nil, "", nil, apierr.New(apierr.OperationIncomplete, "operation %q was planned by an older kontext that did not store its plan; check the files by hand and use a new operation_id", operationID)
	}
	fs := e.FS()
	var files []change
	for _, c := range r.Plan.Files {
		cur, err := util.ReadFile(fs, c.Path)
		ok := (err != nil && c.Before == "") || (err == nil && (sha(cur) == c.Before || sha(cur) == sha(c.Data)))
		if !ok {
			return nil, nil, "", nil, apierr.New(apierr.OperationConflict, "%s changed since operation %q was planned; check it by hand and use a new operation_id", c.Path, operationID)
		}
		files = append(files, change{path: c.Path, data: c.Data, isNew: c.New, staged: c.Staged})
	}
	e.plannedFrom(nil, files)
	return nil, files, r.Plan.Target, r.Plan.Notes, nil
}

// writeOp runs a write without storing its input (see writeOpInput).
func (e *draft) writeOp(ctx context.Context, op, operationID, fp string,
	plan func(st *engine.State) (files []change, target string, notes []string, err error),
	after func(st *engine.State, res *api.StageResult) error) (any, error) {
	return e.writeOpInput(ctx, op, operationID, fp, nil, plan, after)
}

// change is one planned file write.
type change struct {
	path  string
	data  []byte
	isNew bool
	// staged, when not nil, is what the index gets instead of data (an
	// append to a file with unstaged lines: only the append is staged).
	staged []byte
	// before is what the file held when the write was planned from it
	// (planned: it existed); the writer rewrites it only while it still
	// holds exactly that (plannedFrom).
	before  []byte
	planned bool
}

// plannedFrom records in each change of an existing file the bytes it was
// planned from: an entry's exact text as the plan's read st saw it, any
// other file as it is now (still under the lock, right after planning).
func (e *draft) plannedFrom(st *engine.State, files []change) {
	var byFile map[string]*entry.Entry
	if st != nil && st.Snap != nil {
		byFile = map[string]*entry.Entry{}
		for _, en := range st.Snap.Entries() {
			byFile[en.File] = en
		}
	}
	for i := range files {
		f := &files[i]
		if f.planned {
			continue
		}
		if en, ok := byFile[f.path]; ok {
			f.before, f.planned = []byte(en.Markdown), true
			continue
		}
		if old, err := util.ReadFile(e.FS(), f.path); err == nil {
			f.before, f.planned = old, true
		}
	}
}

// writeOpInput runs a write of one entry file with an operation_id (see
// transact); its result is the entry as it reads after the write.
func (e *draft) writeOpInput(ctx context.Context, op, operationID, fp string, input any,
	plan func(st *engine.State) (files []change, target string, notes []string, err error),
	after func(st *engine.State, res *api.StageResult) error) (any, error) {
	return e.transact(ctx, op, operationID, fp, input, plan, func(st2 *engine.State, _ []change, target string, notes []string) (any, error) {
		var en *entry.Entry
		for _, x := range st2.Snap.Entries() {
			if x.File == target {
				en = x
			}
		}
		if en == nil {
			return nil, apierr.New(apierr.OperationFailed, "%s was written but does not read as an entry; check kontext list --all diagnostics", target)
		}
		views, err := e.Views(ctx, st2, []*entry.Entry{en})
		if err != nil {
			return nil, err
		}
		if notes == nil {
			notes = []string{}
		}
		res := &api.StageResult{Entry: views[0], Path: target, Staged: true, Notes: notes,
			Evidence: []any{}, RelatedEntries: []any{}, ResolvedChallenges: []any{}}
		if after != nil {
			if err := after(st2, res); err != nil {
				return nil, err
			}
		}
		return res, nil
	})
}

// transact runs a write with an operation_id: replay, lock, plan receipt,
// plan (under the lock, on a fresh read), write, stage, done receipt.
// result builds the answer from a read taken after the write, the files
// written, and the plan's target and notes (a resumed plan passes the
// stored ones).
func (e *draft) transact(ctx context.Context, op, operationID, fp string, input any,
	plan func(st *engine.State) (files []change, target string, notes []string, err error),
	result func(st2 *engine.State, files []change, target string, notes []string) (any, error)) (any, error) {
	if strings.TrimSpace(operationID) == "" {
		return nil, jsonin.Errorf("operation_id", "is required: a stable id of this write, reused on retries")
	}
	w, err := e.writer()
	if err != nil {
		return nil, err
	}
	// An unfinished plan is resumed under the lock (planOp).
	if res, err := replay(w, op, operationID, fp); res != nil || (err != nil && apierr.CodeOf(err) != apierr.OperationIncomplete) {
		return res, err
	}
	unlock, err := w.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	replayed, files, target, notes, err := e.planOp(ctx, w, op, operationID, fp, input, plan)
	if replayed != nil || err != nil {
		return replayed, err
	}
	_, err = e.apply(ctx, w, files, true)
	if err != nil {
		return nil, err
	}
	st2, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	res, err := result(st2, files, target, notes)
	if err != nil {
		return nil, err
	}
	done, err := json.Marshal(res)
	if err == nil {
		err = e.storeOpReceipt(w, receipt{State: "done", Operation: op, Fingerprint: fp, Result: done}, operationID)
	}
	if err != nil {
		return nil, receiptLost(err, operationID, paths(files))
	}
	return res, nil
}

func paths(files []change) []string {
	out := make([]string, 0, len(files))
	for _, c := range files {
		out = append(out, c.path)
	}
	return out
}

// receiptLost is the error of a write whose files are written and staged
// but whose done receipt could not be stored (a full disk): it says what
// is staged, that the receipt is missing, and how to finish it (the same
// request again: the stored plan is resumed, nothing is written twice).
func receiptLost(err error, operationID string, files []string) error {
	what := "the write is done"
	if len(files) > 0 {
		what = strings.Join(files, ", ") + " is written and staged"
		if len(files) > 1 {
			what = strings.Join(files, ", ") + " are written and staged"
		}
	}
	ae := apierr.Wrap(apierr.OperationFailed, err, "%s, but the receipt of operation %q could not be stored; make room (or fix the cause below), then send the same request again with operation_id %q: it finishes the receipt without writing again", what, operationID, operationID)
	if files == nil {
		files = []string{}
	}
	ae.Extra = map[string]any{"staged": len(files) > 0, "receipt": "missing", "operation_id": operationID, "files": files}
	return ae
}

// routed runs a write whose entry paths all lie inside the nested
// repository repo (nested.go): run performs it with that repository's
// engine — its storage, index, lock and receipts. With an operation_id
// this repository keeps a receipt too, so a retry or operations.get from
// here finds it: under this repository's lock a "planned" receipt naming
// repo is stored first (a retry routes again, and the nested receipt
// replays or resumes), the "done" one with the result after. A nested
// write refused before it planned anything voids the receipt here, so the
// operation_id stays free.
func (e *draft) routed(ctx context.Context, op, operationID, fp, repo string, input any, notes []string, run func(n *engine.Engine) (any, error)) (any, error) {
	if strings.TrimSpace(operationID) == "" {
		n, err := e.openNested(repo, operationID)
		if err != nil {
			return nil, err
		}
		res, err := run(n)
		if err != nil {
			return nil, err
		}
		return withRepository(res, repo, notes), nil
	}
	w, err := e.writer()
	if err != nil {
		return nil, err
	}
	if res, err := replay(w, op, operationID, fp); res != nil || (err != nil && apierr.CodeOf(err) != apierr.OperationIncomplete) {
		return res, err
	}
	unlock, err := w.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	r, err := loadReceipt(w, operationID)
	if err != nil {
		return nil, err
	}
	if r != nil {
		if r.State == "done" || r.Operation != op || r.Fingerprint != fp {
			return replay(w, op, operationID, fp)
		}
		if err := e.checkRoot(r, operationID); err != nil {
			return nil, err
		}
		if r.Routed != repo {
			// planned here, unrouted, by a write that died: resume it
			// unrouted is not possible any more (the paths now lie in repo).
			return nil, incomplete(r, operationID)
		}
	}
	rc := receipt{State: "planned", Operation: op, Fingerprint: fp, Routed: repo}
	e.stamp(ctx, &rc)
	if rc.Input, err = json.Marshal(input); err == nil {
		err = e.storeOpReceipt(w, rc, operationID)
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "storing the plan")
	}
	n, err := e.openNested(repo, operationID)
	if err != nil {
		return nil, e.voidUnlessPlanned(w, nil, op, operationID, fp, repo, err)
	}
	res, err := run(n)
	if err != nil {
		return nil, e.voidUnlessPlanned(w, n, op, operationID, fp, repo, err)
	}
	faultpoint("after_route")
	res = withRepository(res, repo, notes)
	done, err := json.Marshal(res)
	if err == nil {
		var m map[string]any
		if err = json.Unmarshal(done, &m); err == nil {
			m["replayed"] = false // the stored first answer; a replay from here sets it
			done, err = json.Marshal(m)
		}
	}
	if err == nil {
		err = e.storeOpReceipt(w, receipt{State: "done", Operation: op, Fingerprint: fp, Result: done, Routed: repo}, operationID)
	}
	if err != nil {
		return nil, receiptLost(err, operationID, nil)
	}
	return res, nil
}

// voidUnlessPlanned keeps the planned receipt of a routed write whose
// nested repository holds a receipt of it (a retry resumes it there) and
// voids it otherwise; cause is returned, naming the repository.
func (e *draft) voidUnlessPlanned(w engine.Writer, n *engine.Engine, op, operationID, fp, repo string, cause error) error {
	if ae := apierr.As(cause); ae != nil {
		if ae.Extra == nil {
			ae.Extra = map[string]any{}
		}
		if _, ok := ae.Extra["repository"]; !ok {
			ae.Extra["repository"] = repo
		}
	}
	if n != nil {
		if nw := n.Options().Writer; nw != nil {
			if r, err := loadReceipt(nw, operationID); err != nil || r != nil {
				return cause
			}
		}
	}
	if err := e.storeOpReceipt(w, receipt{State: voided, Operation: op, Fingerprint: fp, Routed: repo}, operationID); err != nil {
		return apierr.Wrap(apierr.OperationFailed, cause, "%v; voiding the receipt of operation %q failed too (%v)", cause, operationID, err)
	}
	return cause
}

// receipted runs a write whose plan is computed under the lock by run
// (capture, and recorded's writes): with an operation_id a finished one
// replays before the lock; under the lock a finished one replays, and a
// stored plan of the same request (its writer died holding the lock) is
// resumed. Otherwise run plans on a fresh read: its files (p.files) and its
// local state changes (p.state, through the buffering Writer it is given)
// are only collected. A run that fails (bad input) stores nothing. The
// plan is stored as a "planned" receipt with its exact files and result,
// then written and staged; the "done" receipt keeps the result.
func (e *draft) receipted(ctx context.Context, w engine.Writer, op, operationID, fp string, run func(w engine.Writer, p *plan) (any, error)) (any, error) {
	if operationID != "" {
		// A stored plan is resumed under the lock, never answered here:
		// it may be a writer that holds the lock right now.
		if res, err := replay(w, op, operationID, fp); res != nil || (err != nil && apierr.CodeOf(err) != apierr.OperationIncomplete) {
			return res, err
		}
	}
	unlock, err := w.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if operationID != "" {
		r, err := loadReceipt(w, operationID)
		if err != nil {
			return nil, err
		}
		if r != nil {
			if r.State == "done" || r.Operation != op || r.Fingerprint != fp {
				return replay(w, op, operationID, fp)
			}
			return e.resumeReceipted(ctx, w, r, operationID)
		}
	}
	e.Forget() // read what is on disk now, under the lock
	p := &plan{}
	res, err := run(&planWriter{Writer: w, p: p}, p)
	if err != nil {
		return nil, err
	}
	e.plannedFrom(nil, p.files) // recorded's run records entries' planned-from text itself
	if operationID != "" {
		data, err := json.Marshal(res)
		if err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "storing the plan")
		}
		rc := receipt{State: "planned", Operation: op, Fingerprint: fp, Result: data, Plan: e.storePlan(p.files, "", nil)}
		e.stamp(ctx, &rc)
		for _, c := range p.state {
			rc.Plan.State = append(rc.Plan.State, storedChange{Path: c.path, Data: c.data})
		}
		if err := e.storeOpReceipt(w, rc, operationID); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "storing the plan")
		}
		faultpoint("after_plan")
	}
	if err := e.applyAll(ctx, w, p.files, p.state); err != nil {
		return nil, err
	}
	if operationID != "" {
		if err := e.storeOpReceipt(w, receipt{State: "done", Operation: op, Fingerprint: fp, Result: mustJSON(res)}, operationID); err != nil {
			return nil, receiptLost(err, operationID, paths(p.files))
		}
	}
	return res, nil
}

// resumeReceipted finishes a stored plan of receipted: its files (each
// still as planned from or already written), its state, and the stored
// result, which a retry then replays.
func (e *draft) resumeReceipted(ctx context.Context, w engine.Writer, r *receipt, operationID string) (any, error) {
	_, files, _, _, err := e.resumeStored(r, operationID)
	if err != nil {
		return nil, err
	}
	var state []change
	for _, c := range r.Plan.State {
		state = append(state, change{path: c.Path, data: c.Data})
	}
	if err := e.applyAll(ctx, w, files, state); err != nil {
		return nil, err
	}
	if err := e.storeOpReceipt(w, receipt{State: "done", Operation: r.Operation, Fingerprint: r.Fingerprint, Result: r.Result}, operationID); err != nil {
		return nil, receiptLost(err, operationID, paths(files))
	}
	var res map[string]any
	if err := json.Unmarshal(r.Result, &res); err != nil || res == nil {
		return nil, apierr.New(apierr.OperationFailed, "the receipt of operation %q is unreadable", operationID)
	}
	return res, nil
}

// applyAll writes and stages files, then writes the local state changes
// (the inbox): state last, so a candidate is never marked done before the
// files it stands for are staged.
func (e *draft) applyAll(ctx context.Context, w engine.Writer, files, state []change) error {
	if len(files) > 0 {
		if _, err := e.apply(ctx, w, files, true); err != nil {
			return err
		}
	}
	for _, c := range state {
		if err := w.WriteState(c.path, c.data); err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "writing %s", c.path)
		}
	}
	return nil
}

func mustJSON(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}

// storePlan is the stored form of planned files: each with the hash of
// what it held when planned, so a resume rewrites only files nobody
// changed since.
func (e *draft) storePlan(files []change, target string, notes []string) *storedPlan {
	sp := &storedPlan{Target: target, Notes: notes, Files: []storedChange{}}
	fs := e.FS()
	for _, f := range files {
		c := storedChange{Path: f.path, Data: f.data, New: f.isNew, Staged: f.staged}
		if f.planned {
			c.Before = sha(f.before)
		} else if old, err := util.ReadFile(fs, f.path); err == nil {
			c.Before = sha(old)
		}
		sp.Files = append(sp.Files, c)
	}
	return sp
}

// planWriter is the Writer a receipted plan sees: reads of local state see
// the plan's own changes, writes of local state are collected in the plan,
// and nothing in the worktree can be written.
type planWriter struct {
	engine.Writer
	p *plan
}

func (w *planWriter) ReadState(name string) ([]byte, bool, error) {
	for i := len(w.p.state) - 1; i >= 0; i-- {
		if w.p.state[i].path == name {
			return w.p.state[i].data, true, nil
		}
	}
	return w.Writer.ReadState(name)
}

func (w *planWriter) WriteState(name string, data []byte) error {
	w.p.state = append(w.p.state, change{path: name, data: append([]byte(nil), data...)})
	return nil
}

func (w *planWriter) Lock(context.Context) (func(), error) {
	return nil, apierr.New(apierr.OperationFailed, "a plan runs under the lock already")
}

func (w *planWriter) WriteFile(string, []byte) error {
	return apierr.New(apierr.OperationFailed, "a plan writes files through its plan, not the Writer")
}

func (w *planWriter) MkdirAll(string) error {
	return apierr.New(apierr.OperationFailed, "a plan creates no directories")
}

func (w *planWriter) Stage(context.Context, ...string) error {
	return apierr.New(apierr.OperationFailed, "a plan stages through its plan, not the Writer")
}

// apply writes planned files through the Writer (atomically, confined to
// the worktree) and, when stage is set, stages exactly those files. When a
// write or the staging fails (git's index.lock held, a full disk), the
// files written so far are put back as they were, so a failed write leaves
// the worktree as it found it (and its stored plan resumable).
func (e *draft) apply(ctx context.Context, w engine.Writer, files []change, stage bool) ([]string, error) {
	type before struct {
		data []byte
		ok   bool
	}
	olds := make([]before, len(files))
	for i, f := range files {
		if f.planned {
			olds[i] = before{f.before, true}
		} else if old, err := util.ReadFile(e.FS(), f.path); err == nil {
			olds[i] = before{old, true}
		}
	}
	cw, checked := w.(engine.CheckedWriter)
	rollback := func(n int, cause error) error {
		for i := n - 1; i >= 0; i-- {
			var err error
			if olds[i].ok {
				err = w.WriteFile(files[i].path, olds[i].data)
			} else {
				err = w.Remove(files[i].path)
			}
			if err != nil {
				e.Forget()
				return apierr.Wrap(apierr.OperationFailed, cause, "%v; putting %s back failed too (%v): retry with the same operation_id to finish the stored plan", cause, files[i].path, err)
			}
		}
		e.Forget()
		return cause
	}
	var paths []string
	for i, f := range files {
		write := func() error { return w.WriteFile(f.path, f.data) }
		if checked && olds[i].ok {
			// Rewriting an existing file: only while it holds what the
			// write was planned from (operation_conflict otherwise, the
			// file as its outside writer left it).
			write = func() error { return cw.ReplaceFile(f.path, f.data, olds[i].data) }
		}
		if err := write(); err != nil {
			var ae *apierr.Error
			if !errors.As(err, &ae) {
				err = apierr.Wrap(apierr.OperationFailed, err, "writing %s", f.path)
			}
			return nil, rollback(i, err)
		}
		paths = append(paths, f.path)
	}
	faultpoint("after_write")
	if stage && len(paths) > 0 {
		if err := stageChanges(ctx, w, files); err != nil {
			return nil, rollback(len(files), err)
		}
	}
	faultpoint("after_stage")
	e.Forget(paths...)
	return paths, nil
}

// stageChanges stages the written files: each from its working file, or
// with its planned index content (change.staged) where it has one and the
// writer can stage content, all in one update of the index.
func stageChanges(ctx context.Context, w engine.Writer, files []change) error {
	var paths []string
	var contents map[string][]byte
	iw, canStage := w.(engine.IndexWriter)
	for _, f := range files {
		if f.staged != nil && canStage {
			if contents == nil {
				contents = map[string][]byte{}
			}
			contents[f.path] = f.staged
			continue
		}
		paths = append(paths, f.path)
	}
	if contents == nil {
		return w.Stage(ctx, paths...)
	}
	return iw.StageContents(ctx, paths, contents)
}

// unrecorded runs a write that carries no operation_id and stages nothing
// (setup: idempotent by construction, its files are the user's to
// commit): lock, plan on a fresh read, write the files, create the
// directories, and return a read of the result.
func (e *draft) unrecorded(ctx context.Context, plan func(st *engine.State) (files []change, dirs []string, err error)) (*engine.State, error) {
	w, err := e.writer()
	if err != nil {
		return nil, err
	}
	unlock, err := w.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	e.Forget()
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	files, dirs, err := plan(st)
	if err != nil {
		return nil, err
	}
	e.plannedFrom(st, files)
	if _, err := e.apply(ctx, w, files, false); err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if err := w.MkdirAll(d); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "creating %s", d)
		}
	}
	e.Forget()
	return e.Read(ctx)
}

// plan collects the files a write changes; the transaction writes and
// stages them. A second write of a path replaces the first.
type plan struct {
	files []change
	state []change // local state (receipted plans only, via planWriter)
}

func (p *plan) write(path string, data []byte) { p.put(change{path: path, data: data}) }

// put plans c (replacing an earlier change of its path).
func (p *plan) put(c change) {
	for i := range p.files {
		if p.files[i].path == c.path {
			p.files[i] = c
			return
		}
	}
	p.files = append(p.files, c)
}

// recorded runs a write whose plan is computed and written in one go
// (confirm, repair, migrate, verify's ledger line) through receipted:
// under the lock, run plans on a fresh read; the plan's files are stored
// (with an operation_id), written and staged together.
func (e *draft) recorded(ctx context.Context, op, operationID, fp string, run func(st *engine.State, by string, p *plan) (any, error)) (any, error) {
	w, err := e.writer()
	if err != nil {
		return nil, err
	}
	return e.receipted(ctx, w, op, operationID, fp, func(pw engine.Writer, p *plan) (any, error) {
		st, err := e.Read(ctx)
		if err != nil {
			return nil, err
		}
		res, err := run(st, w.Identity(), p)
		if err == nil {
			e.plannedFrom(st, p.files)
		}
		return res, err
	})
}

// locally runs a change of this worktree's local state (the inbox) under
// the write lock; nothing in the worktree or the index changes.
func (e *draft) locally(ctx context.Context, change func(w engine.Writer) error) error {
	w, err := e.writer()
	if err != nil {
		return err
	}
	unlock, err := w.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return change(w)
}
