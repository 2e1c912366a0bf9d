package drafts

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/edit"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/render"
)

// repairSupersedes restores missing reciprocal supersede metadata: for
// every active entry E that supersedes X, X's own file must say
// `status: superseded` (unless it already reads as another inactive status)
// and list E in `superseded_by` (an ADR: its first status line becomes
// `Superseded by [N. Title](file)`). Only those metadata lines change; the
// files are written and returned for staging. Read-only rule files and
// files with unstaged edits are skipped with a reason.
func (e *draft) repairSupersedes(ctx context.Context, st *engine.State, p *plan, res *api.RepairResult) error {
	byID := map[string]*entry.Entry{}
	for _, en := range st.Snap.Entries() {
		byID[en.ID] = en
	}
	// olds[X] = the active entries that supersede X, in id order.
	olds := map[string][]*entry.Entry{}
	for _, newer := range st.Snap.Entries() {
		if entry.Inactive(newer.Status) {
			continue
		}
		for _, oldID := range newer.Supersedes {
			if _, ok := byID[oldID]; ok {
				olds[oldID] = append(olds[oldID], newer)
			}
		}
	}
	ids := make([]string, 0, len(olds))
	for id := range olds {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		x := byID[id]
		src := entry.Source{Kind: x.Kind, Style: x.Style, ReadOnly: x.ReadOnly}
		own, _ := entry.Parse(x.File, []byte(x.Markdown), src) // as written, without inferred links
		if own == nil {
			continue
		}
		newers := olds[id]
		sort.Slice(newers, func(i, j int) bool { return newers[i].ID < newers[j].ID })
		var missing []*entry.Entry
		for _, n := range newers {
			if !slices.Contains(own.SupersededBy, n.ID) {
				missing = append(missing, n)
			}
		}
		needStatus := !entry.Inactive(own.Status)
		if len(missing) == 0 && !needStatus {
			continue
		}
		skip := func(reason string) {
			res.Skipped = append(res.Skipped, api.Skipped{ID: x.ID, Path: x.File, Reason: reason})
		}
		if x.ReadOnly && x.Style != entry.StyleADR {
			skip(fmt.Sprintf("a read-only %s rule file; kontext does not rewrite it (superseded by %s)", x.Style, strings.Join(idsOf(newers), ", ")))
			continue
		}
		if err := e.committedOnce(ctx, st, x, "repairing"); err != nil {
			if apierr.CodeOf(err) != apierr.OperationConflict {
				return err
			}
			skip(apierr.As(err).Message)
			continue
		}
		if s := st.Pub[x.File].State; s == "modified" {
			skip(x.File + " has unstaged edits; stage or discard them first")
			continue
		}
		text := x.Markdown
		var edited string
		var err error
		adr := x.Style == entry.StyleADR && !strings.HasPrefix(strings.TrimPrefix(text, "\ufeff"), "---")
		if adr {
			if len(newers) != 1 || (entry.Inactive(own.Status) && own.Status != "superseded") || len(own.SupersededBy) > 0 {
				skip(fmt.Sprintf("the ADR's status section cannot name %s in one line; edit it by hand", strings.Join(idsOf(newers), ", ")))
				continue
			}
			n := newers[0]
			ref := n.Title
			if n.HasADRNumber {
				ref = fmt.Sprintf("%d. %s", n.ADRNumber, n.Title)
			}
			edited, err = adrStatusEdit(x, "Superseded by ["+ref+"]("+relLink(path.Dir(x.File), n.File)+")")
		} else {
			edited = text
			if needStatus {
				edited, err = edit.SetFrontmatter(edited, "status", "superseded")
			}
			if err == nil && len(missing) > 0 {
				by := append(append([]string{}, own.SupersededBy...), idsOf(missing)...)
				edited, err = edit.SetFrontmatter(edited, "superseded_by", render.FlowList(by, false))
			}
		}
		if err == nil {
			want := own.Status
			if needStatus || adr {
				want = "superseded"
			}
			err = checkEdited(own, edited, want)
		}
		var after *entry.Entry
		if err == nil {
			after, _ = entry.Parse(x.File, []byte(edited), src)
			for _, n := range newers {
				if after == nil || !slices.Contains(after.SupersededBy, n.ID) {
					err = fmt.Errorf("superseded_by does not read back with %s", n.ID)
					break
				}
			}
		}
		if err != nil {
			skip(err.Error())
			continue
		}
		p.write(x.File, []byte(edited))
		res.SupersedesRepaired = append(res.SupersedesRepaired, api.SupersedeRepaired{ID: x.ID, Path: x.File, SupersededBy: after.SupersededBy})
	}
	return nil
}

func idsOf(es []*entry.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}
