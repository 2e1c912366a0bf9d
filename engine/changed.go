package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
)

// Changed compares the entries of two engines' snapshots and returns the
// JSON envelope of ChangedOf's result. Entries are matched by id, so an entry
// whose kind moved to another directory is not reported as removed and
// added; an edit of only the checked line is a look, not a revision, and is
// omitted. An entry that is no longer active reports superseded or
// deprecated (deprecated, a synonym, or rejected); a removed entry reports
// deprecated with removed: true. Sorted by id. It never panics.
func Changed(ctx context.Context, base, head *Engine) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			out = ErrorEnvelope(apierr.New(apierr.OperationFailed, "internal error in changed: %v; please report it with the input", r))
		}
	}()
	res, err := ChangedOf(ctx, base, head)
	if err != nil {
		return ErrorEnvelope(err)
	}
	return ResultEnvelope(res)
}

// ChangedOf compares the entries of two engines' snapshots (see Changed):
// every kind, no warning. The review console (Changed in WASM) and the
// pull-request comment compare a change's sides with it.
func ChangedOf(ctx context.Context, base, head *Engine) (*api.ChangedResult, error) {
	var spoiled [2]uint64
	if base != nil && head != nil {
		spoiled = [2]uint64{base.reader.Spoiled(), head.reader.Spoiled()}
	}
	res, err := changed(ctx, base, head)
	if base != nil && head != nil && (base.reader.Spoiled() != spoiled[0] || head.reader.Spoiled() != spoiled[1]) {
		res, err = changed(ctx, base, head) // see Do
	}
	return res, err
}

func changed(ctx context.Context, base, head *Engine) (*api.ChangedResult, error) {
	if base == nil || head == nil {
		return nil, apierr.Invalid("changed needs a base and a head knowledge base")
	}
	bs, err := base.Read(ctx)
	if err != nil {
		return nil, err
	}
	hs, err := head.Read(ctx)
	if err != nil {
		return nil, err
	}
	res := &api.ChangedResult{Base: strp(bs.Head), Head: strp(hs.Head), Changes: []api.Change{}, Warnings: []string{}}
	for _, h := range hs.Snap.Entries() {
		hrev := hs.Snap.Blob(h.File)
		c := api.Change{ID: h.ID, Kind: h.Kind, Title: h.Title, File: h.File, Paths: nonNil(h.Paths),
			Revision: hrev, Status: strp(h.Status), HeadRevision: strp(hrev)}
		b, ok := bs.Snap.ByID(h.ID)
		switch {
		case !ok:
			c.Change = "added"
		case !entry.Inactive(b.Status) && entry.Inactive(h.Status):
			c.Change = "deprecated"
			if entry.CanonicalStatus(h.Status) == "superseded" {
				c.Change, c.SupersededBy = "superseded", nonNil(h.SupersededBy)
			}
		case withoutChecked(b.Markdown) != withoutChecked(h.Markdown):
			c.Change = "revised"
		default:
			continue
		}
		if ok {
			c.BaseRevision = strp(bs.Snap.Blob(b.File))
		}
		res.Changes = append(res.Changes, c)
	}
	for _, b := range bs.Snap.Entries() {
		if _, ok := hs.Snap.ByID(b.ID); ok {
			continue
		}
		brev := bs.Snap.Blob(b.File)
		res.Changes = append(res.Changes, api.Change{ID: b.ID, Kind: b.Kind, Title: b.Title, File: b.File,
			Paths: nonNil(b.Paths), Revision: brev, Status: strp(b.Status), Change: "deprecated", Removed: true,
			BaseRevision: strp(brev)})
	}
	sort.SliceStable(res.Changes, func(i, j int) bool { return res.Changes[i].ID < res.Changes[j].ID })
	return res, nil
}

// withoutChecked is an entry's text without its checked line(s) — the
// frontmatter (or ADR metadata) lines recording a look, each starting with
// "checked:" — so a change of only checked is not a revision. A line scan,
// not a regexp: the review console compares every entry of a change this
// way, and in WASM the regexp was a twentieth of opening a review.
func withoutChecked(md string) string {
	if !strings.HasPrefix(md, "checked:") && !strings.Contains(md, "\nchecked:") {
		return md
	}
	var b strings.Builder
	b.Grow(len(md))
	for rest := md; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		if !strings.HasPrefix(line, "checked:") {
			b.WriteString(line)
		}
	}
	return b.String()
}
