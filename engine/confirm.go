//go:build !js

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/edit"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/ledger"
)

func init() {
	register(operation{name: "drafts.confirm", input: func() any { return &ConfirmInput{} }, run: runConfirm, writes: true})
}

// ConfirmInput is the input of drafts.confirm.
type ConfirmInput struct {
	DirInput
	ID          string   `json:"id,omitempty" jsonschema:"description=The entry that still holds (id, prefix, ADR number or path)."`
	IDs         []string `json:"ids,omitempty" jsonschema:"description=Several entries; more than five are written as bulk lines."`
	Because     string   `json:"because,omitempty" jsonschema:"description=One line (at most 500 characters) kept in the ledger."`
	Kind        string   `json:"kind,omitempty" jsonschema:"enum=read,enum=agent,description=read when a person confirmed it in a client; agent (default) otherwise."`
	OperationID string   `json:"operation_id,omitempty" jsonschema:"description=Makes a retry return the first result (replayed: true) instead of a second ledger line."`
	Repair      bool     `json:"repair,omitempty" jsonschema:"description=Alone: rewrite checked of every active entry whose file lags its newest ledger confirmation; and restore missing status: superseded / superseded_by on entries that an active entry supersedes."`
	// MigrateLegacy writes bulk lines for entries whose only verification
	// is a checked date (kontext confirm --migrate-legacy).
	MigrateLegacy bool `json:"migrate_legacy,omitempty" jsonschema:"description=Alone: write bulk ledger lines for entries whose only verification is a checked date."`
}

// LedgerRecord is the ledger part of a confirmation result.
type LedgerRecord struct {
	At      string  `json:"at"`
	Kind    string  `json:"kind"`
	Commit  *string `json:"commit"`
	Because *string `json:"because"`
	Path    string  `json:"path"`
}

// Confirmation is the result of confirming one entry.
type Confirmation struct {
	ID      string       `json:"id"`
	Path    string       `json:"path"`
	Checked string       `json:"checked"`
	Ledger  LedgerRecord `json:"ledger"`
}

type ledgerLine struct {
	At      string  `json:"at"`
	Kind    string  `json:"kind"`
	ID      string  `json:"id"`
	Commit  *string `json:"commit"`
	By      string  `json:"by"`
	Because *string `json:"because"`
}

func runConfirm(ctx context.Context, e *Engine, v any) (any, error) {
	in := v.(*ConfirmInput)
	modes := 0
	for _, set := range []bool{in.ID != "", len(in.IDs) > 0, in.Repair, in.MigrateLegacy} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return nil, apierr.Invalid("pass exactly one of id, ids, repair or migrate_legacy")
	}
	if in.Kind != "" && in.Kind != ledger.KindRead && in.Kind != ledger.KindAgent {
		return nil, jsonin.Errorf("kind", "must be read or agent, got %q", in.Kind)
	}
	if len(in.Because) > 500 || strings.ContainsAny(in.Because, "\r\n") {
		return nil, jsonin.Errorf("because", "must be one line of at most 500 characters")
	}
	w, err := e.writer()
	if err != nil {
		return nil, err
	}
	fp := fingerprint(in)
	if in.OperationID != "" {
		if res, err := replay(w, "drafts.confirm", in.OperationID, fp); res != nil || err != nil {
			return res, err
		}
	}
	unlock, err := w.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if in.OperationID != "" {
		// Re-check under the lock: a concurrent retry may have finished.
		if res, err := replay(w, "drafts.confirm", in.OperationID, fp); res != nil || err != nil {
			return res, err
		}
		if err := storeReceipt(w, "drafts.confirm", in.OperationID, fp, "planned", nil); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "storing the plan")
		}
	}
	e.Forget() // read what is on disk now, under the lock
	st, err := e.read(ctx)
	if err != nil {
		return nil, err
	}
	var res any
	switch {
	case in.Repair:
		res, err = e.repair(ctx, st, w)
	case in.MigrateLegacy:
		res, err = e.migrateLegacy(ctx, st, w, in)
	case in.ID != "":
		var c *Confirmation
		c, err = e.confirmIDs(ctx, st, w, []string{in.ID}, in, nil)
		res = c
	default:
		out := &ConfirmManyResult{Confirmed: []*Confirmation{}, Failed: []FailedID{}}
		_, err = e.confirmIDs(ctx, st, w, in.IDs, in, &out.Confirmed, &out.Failed)
		res = out
	}
	if err != nil {
		return nil, err
	}
	if in.OperationID != "" {
		if err := storeReceipt(w, "drafts.confirm", in.OperationID, fp, "done", res); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "storing the receipt")
		}
	}
	return res, nil
}

// ConfirmManyResult is drafts.confirm with ids.
type ConfirmManyResult struct {
	Confirmed []*Confirmation `json:"confirmed"`
	Failed    []FailedID      `json:"failed"`
}

// MigrateResult is drafts.confirm with migrate_legacy.
type MigrateResult struct {
	Migrated []LedgerRecord `json:"migrated"`
	Skipped  []Skipped      `json:"skipped"`
}

// FailedID is an id that could not be confirmed.
type FailedID struct {
	ID      string `json:"id"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// confirmIDs confirms ids in one write: entry files get their checked line,
// the ledger gets one line each, and all of them are staged together. With
// one id a failure is the error; with several it is listed in failed.
func (e *Engine) confirmIDs(ctx context.Context, st *state, w Writer, ids []string, in *ConfirmInput, confirmed *[]*Confirmation, failed ...*[]FailedID) (*Confirmation, error) {
	now := e.now().Format("2006-01-02T15:04:05Z")
	kind := in.Kind
	if kind == "" {
		kind = ledger.KindAgent
	}
	if len(ids) > 5 {
		kind = ledger.KindBulk
	}
	var because *string
	if in.Because != "" {
		because = &in.Because
	}
	files := map[string][]byte{}
	var order []string
	var lines []string
	var results []*Confirmation
	fail := func(id string, err error) error {
		if len(failed) == 0 {
			return err
		}
		ae := apierr.As(err)
		*failed[0] = append(*failed[0], FailedID{ID: id, Code: ae.Code, Message: ae.Message})
		return nil
	}
	seen := map[string]bool{}
	for _, ref := range ids {
		en, err := st.snap.Lookup(ref)
		if err == nil && seen[en.ID] {
			continue
		}
		if err == nil {
			seen[en.ID] = true
			err = e.confirmable(ctx, st, en)
		}
		if err != nil {
			if err := fail(ref, err); err != nil {
				return nil, err
			}
			continue
		}
		if !en.ReadOnly {
			text := en.Markdown
			if f, ok := files[en.File]; ok {
				text = string(f)
			}
			var edited string
			if en.Style == entry.StyleADR {
				edited, err = edit.SetADRMeta(text, "checked", now)
			} else {
				edited, err = edit.SetFrontmatter(text, "checked", now)
			}
			if err == nil {
				err = sameEntry(en, edited)
			}
			if err != nil {
				if err := fail(ref, apierr.Wrap(apierr.OperationFailed, err, "setting checked in %s", en.File)); err != nil {
					return nil, err
				}
				continue
			}
			if _, ok := files[en.File]; !ok {
				order = append(order, en.File)
			}
			files[en.File] = []byte(edited)
		}
		line, _ := json.Marshal(ledgerLine{At: now, Kind: kind, ID: en.ID, Commit: strp(st.head), By: w.Identity(), Because: because})
		lines = append(lines, string(line))
		results = append(results, &Confirmation{ID: en.ID, Path: en.File, Checked: now,
			Ledger: LedgerRecord{At: now, Kind: kind, Commit: strp(st.head), Because: because, Path: st.cfg.Ledger()}})
	}
	if len(lines) > 0 {
		ledgerText := string(st.snap.Ledger)
		if ledgerText != "" && !strings.HasSuffix(ledgerText, "\n") {
			ledgerText += "\n"
		}
		ledgerText += strings.Join(lines, "\n") + "\n"
		files[st.cfg.Ledger()] = []byte(ledgerText)
		order = append(order, st.cfg.Ledger())
		for _, p := range order {
			if err := w.WriteFile(p, files[p]); err != nil {
				return nil, apierr.Wrap(apierr.OperationFailed, err, "writing %s", p)
			}
		}
		if err := w.Stage(ctx, order...); err != nil {
			return nil, err
		}
		e.Forget(order...)
	}
	if confirmed != nil {
		*confirmed = append(*confirmed, results...)
	}
	if len(results) == 1 && len(failed) == 0 {
		return results[0], nil
	}
	return nil, nil
}

// confirmable checks that en may be confirmed: active, committed once, no
// unstaged edits.
func (e *Engine) confirmable(ctx context.Context, st *state, en *entry.Entry) error {
	if entry.Inactive(en.Status) {
		return apierr.New(apierr.OperationConflict, "%s is %s; only active entries are confirmed", en.ID, en.Status)
	}
	if en.ReadOnly {
		return nil // only the ledger line is written
	}
	if err := e.publish(ctx, st, []string{en.File}); err != nil {
		return err
	}
	switch st.pub[en.File].State {
	case "untracked":
		return apierr.New(apierr.OperationConflict, "%s was never committed; commit it before confirming it", en.File)
	case "modified":
		return apierr.New(apierr.OperationConflict, "%s has unstaged edits; stage or discard them first", en.File)
	}
	if e.opts.Git != nil {
		_, head, err := e.opts.Git.Blobs(ctx, []string{en.File})
		if err != nil {
			return err
		}
		if _, ok := head[en.File]; !ok {
			return apierr.New(apierr.OperationConflict, "%s was never committed; commit it before confirming it", en.File)
		}
	}
	return nil
}

// sameEntry re-parses an edited file: the edit must leave the entry as it
// was but for checked.
func sameEntry(en *entry.Entry, edited string) error {
	src := entry.Source{Kind: en.Kind, Style: en.Style}
	after, _ := entry.Parse(en.File, []byte(edited), src)
	if after == nil || after.ID != en.ID || after.Title != en.Title || after.Status != en.Status ||
		strings.Join(after.Paths, "\x00") != strings.Join(en.OwnPaths(), "\x00") {
		return fmt.Errorf("the edited file no longer reads as the same entry; edit it by hand")
	}
	return nil
}

// RepairResult is drafts.confirm {repair: true}.
type RepairResult struct {
	Repaired []Repaired `json:"repaired"`
	Skipped  []Skipped  `json:"skipped"`
	// SupersedesRepaired lists the entries whose files got back their
	// reciprocal supersede metadata (repair.go).
	SupersedesRepaired []SupersedeRepaired `json:"supersedes_repaired"`
}

// Repaired is one rewritten checked line.
type Repaired struct {
	ID   string  `json:"id"`
	Path string  `json:"path"`
	From *string `json:"from"`
	To   string  `json:"to"`
}

// Skipped is an entry repair left alone.
type Skipped struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// repair rewrites checked of every active entry whose file lags its newest
// ledger confirmation, and restores missing reciprocal supersede metadata
// (repairSupersedes).
func (e *Engine) repair(ctx context.Context, st *state, w Writer) (*RepairResult, error) {
	res := &RepairResult{Repaired: []Repaired{}, Skipped: []Skipped{}, SupersedesRepaired: []SupersedeRepaired{}}
	byID := ledger.ByID(st.snap.LedgerLines)
	var paths []string
	for _, en := range st.snap.Entries {
		if entry.Inactive(en.Status) || en.ReadOnly {
			continue
		}
		var newest *ledger.Line
		for _, l := range byID[en.ID] {
			if l.Kind != ledger.KindVerify && (newest == nil || !l.At.Before(newest.At)) {
				newest = l
			}
		}
		if newest == nil {
			continue
		}
		if t, ok := parseLookTime(en.Checked); ok && !newest.At.After(t) {
			continue
		}
		if err := e.confirmable(ctx, st, en); err != nil {
			res.Skipped = append(res.Skipped, Skipped{ID: en.ID, Path: en.File, Reason: apierr.As(err).Message})
			continue
		}
		to := newest.At.Format("2006-01-02T15:04:05Z")
		var edited string
		var err error
		if en.Style == entry.StyleADR {
			edited, err = edit.SetADRMeta(en.Markdown, "checked", to)
		} else {
			edited, err = edit.SetFrontmatter(en.Markdown, "checked", to)
		}
		if err == nil {
			err = sameEntry(en, edited)
		}
		if err != nil {
			res.Skipped = append(res.Skipped, Skipped{ID: en.ID, Path: en.File, Reason: err.Error()})
			continue
		}
		if err := w.WriteFile(en.File, []byte(edited)); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "writing %s", en.File)
		}
		paths = append(paths, en.File)
		res.Repaired = append(res.Repaired, Repaired{ID: en.ID, Path: en.File, From: strp(en.Checked), To: to})
	}
	more, err := e.repairSupersedes(ctx, st, w, res)
	if err != nil {
		return nil, err
	}
	paths = append(paths, more...)
	if len(paths) > 0 {
		if err := w.Stage(ctx, paths...); err != nil {
			return nil, err
		}
		e.Forget(paths...)
	}
	return res, nil
}

// migrateLegacy writes one bulk ledger line for every active entry whose
// only verification is its checked date, at that date: the look enters
// the ledger as it was, and no entry file changes.
func (e *Engine) migrateLegacy(ctx context.Context, st *state, w Writer, in *ConfirmInput) (any, error) {
	byID := ledger.ByID(st.snap.LedgerLines)
	out := &MigrateResult{Migrated: []LedgerRecord{}, Skipped: []Skipped{}}
	var lines []string
	for _, en := range st.snap.Entries {
		if entry.Inactive(en.Status) || en.Checked == "" || len(byID[en.ID]) > 0 {
			continue
		}
		t, ok := parseLookTime(en.Checked)
		if !ok {
			out.Skipped = append(out.Skipped, Skipped{ID: en.ID, Path: en.File, Reason: fmt.Sprintf("checked %q is not a date", en.Checked)})
			continue
		}
		at := t.Format("2006-01-02T15:04:05Z")
		because := "migrated from checked: " + en.Checked
		if in.Because != "" {
			because = in.Because
		}
		line, _ := json.Marshal(ledgerLine{At: at, Kind: ledger.KindBulk, ID: en.ID, Commit: strp(st.head), By: w.Identity(), Because: &because})
		lines = append(lines, string(line))
		out.Migrated = append(out.Migrated, LedgerRecord{At: at, Kind: ledger.KindBulk, Commit: strp(st.head), Because: &because, Path: st.cfg.Ledger()})
	}
	if len(lines) == 0 {
		return out, nil
	}
	text := string(st.snap.Ledger)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += strings.Join(lines, "\n") + "\n"
	if err := w.WriteFile(st.cfg.Ledger(), []byte(text)); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "writing %s", st.cfg.Ledger())
	}
	if err := w.Stage(ctx, st.cfg.Ledger()); err != nil {
		return nil, err
	}
	e.Forget(st.cfg.Ledger())
	return out, nil
}
