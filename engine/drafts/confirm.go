package drafts

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/edit"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/ledger"
)

type ledgerLine struct {
	At      string  `json:"at"`
	Kind    string  `json:"kind"`
	ID      string  `json:"id"`
	Commit  *string `json:"commit"`
	By      string  `json:"by"`
	Because *string `json:"because"`
}

func runConfirm(ctx context.Context, e *draft, in *api.ConfirmInput) (any, error) {
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
	return e.recorded(ctx, "drafts.confirm", in.OperationID, fingerprint(in), func(st *engine.State, by string, p *plan) (any, error) {
		switch {
		case in.Repair:
			return e.repair(ctx, st, p)
		case in.MigrateLegacy:
			return e.migrateLegacy(ctx, st, by, p, in)
		case in.ID != "":
			return e.confirmIDs(ctx, st, by, p, []string{in.ID}, in, nil)
		}
		out := &api.ConfirmManyResult{Confirmed: []*api.Confirmation{}, Failed: []api.FailedID{}}
		_, err := e.confirmIDs(ctx, st, by, p, in.IDs, in, &out.Confirmed, &out.Failed)
		return out, err
	})
}

// confirmIDs confirms ids in one write: entry files get their checked line,
// the ledger gets one line each, and all of them are staged together. With
// one id a failure is the error; with several it is listed in failed.
func (e *draft) confirmIDs(ctx context.Context, st *engine.State, by string, p *plan, ids []string, in *api.ConfirmInput, confirmed *[]*api.Confirmation, failed ...*[]api.FailedID) (*api.Confirmation, error) {
	now := e.Now().Format("2006-01-02T15:04:05Z")
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
	var results []*api.Confirmation
	fail := func(id string, err error) error {
		if len(failed) == 0 {
			return err
		}
		ae := apierr.As(err)
		*failed[0] = append(*failed[0], api.FailedID{ID: id, Code: ae.Code, Message: ae.Message})
		return nil
	}
	seen := map[string]bool{}
	for _, ref := range ids {
		en, err := st.Snap.Lookup(ref)
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
		line, _ := json.Marshal(ledgerLine{At: now, Kind: kind, ID: en.ID, Commit: strp(st.Head), By: by, Because: because})
		lines = append(lines, string(line))
		results = append(results, &api.Confirmation{ID: en.ID, Path: en.File, Checked: now,
			Ledger: api.LedgerRecord{At: now, Kind: kind, Commit: strp(st.Head), Because: because, Path: st.Cfg.Ledger()}})
	}
	if len(lines) > 0 {
		for _, f := range order {
			p.write(f, files[f])
		}
		if err := e.appendLedger(ctx, st, p, lines); err != nil {
			return nil, err
		}
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
func (e *draft) confirmable(ctx context.Context, st *engine.State, en *entry.Entry) error {
	if entry.Inactive(en.Status) {
		return apierr.New(apierr.OperationConflict, "%s is %s; only active entries are confirmed", en.ID, en.Status)
	}
	if en.ReadOnly {
		return nil // only the ledger line is written
	}
	if err := e.committedOnce(ctx, st, en, "confirming"); err != nil {
		return err
	}
	return unstagedEdits(st, en.File)
}

// unstagedEdits refuses a write into a file whose working content differs
// from the index (the user's unsaved work, which staging would take
// along). The file's publication must be known (Publish).
func unstagedEdits(st *engine.State, file string) error {
	if st.Pub[file].State == "modified" {
		return apierr.New(apierr.OperationConflict, "%s has unstaged edits; stage or discard them first", file)
	}
	return nil
}

// committedOnce refuses a lifecycle write (confirm, retire, extend and
// amend, supersede, accept/reject, set_verify, repair) on an entry whose
// file was never committed: untracked, or staged but not in HEAD. Such an
// entry is still a draft; its first version goes through review as it is
// (operation_conflict, "commit it first"). verb names the write
// ("confirming"). It publishes the file, so st.Pub holds its state after.
func (e *draft) committedOnce(ctx context.Context, st *engine.State, en *entry.Entry, verb string) error {
	if err := e.Publish(ctx, st, []string{en.File}); err != nil {
		return err
	}
	never := st.Pub[en.File].State == "untracked"
	if !never && e.Options().Git != nil {
		_, head, err := e.Options().Git.Blobs(ctx, []string{en.File})
		if err != nil {
			return err
		}
		_, ok := head[en.File]
		never = !ok
	}
	if never {
		return apierr.New(apierr.OperationConflict, "%s was never committed; commit it first, before %s it", en.File, verb)
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

// repair rewrites checked of every active entry whose file lags its newest
// ledger confirmation, and restores missing reciprocal supersede metadata
// (repairSupersedes).
func (e *draft) repair(ctx context.Context, st *engine.State, p *plan) (*api.RepairResult, error) {
	res := &api.RepairResult{Repaired: []api.Repaired{}, Skipped: []api.Skipped{}, SupersedesRepaired: []api.SupersedeRepaired{}}
	byID := ledger.ByID(st.Snap.LedgerLines)
	for _, en := range st.Snap.Entries() {
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
		if t, ok := engine.ParseLookTime(en.Checked); ok && !newest.At.After(t) {
			continue
		}
		if err := e.confirmable(ctx, st, en); err != nil {
			res.Skipped = append(res.Skipped, api.Skipped{ID: en.ID, Path: en.File, Reason: apierr.As(err).Message})
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
			res.Skipped = append(res.Skipped, api.Skipped{ID: en.ID, Path: en.File, Reason: err.Error()})
			continue
		}
		p.write(en.File, []byte(edited))
		res.Repaired = append(res.Repaired, api.Repaired{ID: en.ID, Path: en.File, From: strp(en.Checked), To: to})
	}
	if err := e.repairSupersedes(ctx, st, p, res); err != nil {
		return nil, err
	}
	return res, nil
}

// migrateLegacy writes one bulk ledger line for every active entry whose
// only verification is its checked date, at that date: the look enters
// the ledger as it was, and no entry file changes.
func (e *draft) migrateLegacy(ctx context.Context, st *engine.State, by string, p *plan, in *api.ConfirmInput) (any, error) {
	byID := ledger.ByID(st.Snap.LedgerLines)
	out := &api.MigrateResult{Migrated: []api.LedgerRecord{}, Skipped: []api.Skipped{}}
	var lines []string
	for _, en := range st.Snap.Entries() {
		if entry.Inactive(en.Status) || en.Checked == "" || len(byID[en.ID]) > 0 {
			continue
		}
		t, ok := engine.ParseLookTime(en.Checked)
		if !ok {
			out.Skipped = append(out.Skipped, api.Skipped{ID: en.ID, Path: en.File, Reason: fmt.Sprintf("checked %q is not a date", en.Checked)})
			continue
		}
		at := t.Format("2006-01-02T15:04:05Z")
		because := "migrated from checked: " + en.Checked
		if in.Because != "" {
			because = in.Because
		}
		line, _ := json.Marshal(ledgerLine{At: at, Kind: ledger.KindBulk, ID: en.ID, Commit: strp(st.Head), By: by, Because: &because})
		lines = append(lines, string(line))
		out.Migrated = append(out.Migrated, api.LedgerRecord{At: at, Kind: ledger.KindBulk, Commit: strp(st.Head), Because: &because, Path: st.Cfg.Ledger()})
	}
	if len(lines) == 0 {
		return out, nil
	}
	if err := e.appendLedger(ctx, st, p, lines); err != nil {
		return nil, err
	}
	return out, nil
}

// appendLedger plans the append of lines to the ledger: the working file
// gains them after what it holds, and the index after what it holds (the
// staged ledger), so lines the user wrote and did not stage stay
// unstaged and only kontext's own lines are staged.
func (e *draft) appendLedger(ctx context.Context, st *engine.State, p *plan, lines []string) error {
	path := st.Cfg.Ledger()
	add := strings.Join(lines, "\n") + "\n"
	c := change{path: path, data: []byte(endLine(string(st.Snap.Ledger)) + add)}
	if iw, ok := e.Options().Writer.(engine.IndexWriter); ok {
		staged, inIndex, err := iw.IndexFile(ctx, path)
		if err != nil {
			return err
		}
		s := add
		if inIndex {
			s = endLine(string(staged)) + add
		}
		if s != string(c.data) {
			c.staged = []byte(s)
		}
	}
	p.put(c)
	return nil
}

// endLine is text ending in a newline (or empty).
func endLine(text string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		return text + "\n"
	}
	return text
}
