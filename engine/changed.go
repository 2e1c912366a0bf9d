package engine

import (
	"context"
	"regexp"
	"sort"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
)

// ChangedResult is the result of Changed: the entries changed between two
// snapshots (the shape of entries.changed).
type ChangedResult struct {
	Base    *string  `json:"base"`
	Head    *string  `json:"head"`
	Changes []Change `json:"changes"`
}

// Change is one changed entry. Revision and Status are head's (base's for
// a removed entry); BaseRevision and HeadRevision are the blob ids of the
// entry's file on each side (null where the entry is absent).
type Change struct {
	ID           string   `json:"id"`
	Kind         string   `json:"kind"`
	Title        string   `json:"title"`
	File         string   `json:"file"`
	Paths        []string `json:"paths"`
	Revision     string   `json:"revision"`
	Status       *string  `json:"status"`
	Change       string   `json:"change"` // added | revised | superseded | deprecated
	SupersededBy []string `json:"superseded_by,omitempty"`
	Removed      bool     `json:"removed,omitempty"`
	BaseRevision *string  `json:"base_revision"`
	HeadRevision *string  `json:"head_revision"`
}

// Changed compares the entries of two engines' snapshots and returns the
// JSON envelope of a ChangedResult. Entries are matched by id, so an entry
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
	res, err := changed(ctx, base, head)
	if err != nil {
		return ErrorEnvelope(err)
	}
	return ResultEnvelope(res)
}

func changed(ctx context.Context, base, head *Engine) (*ChangedResult, error) {
	if base == nil || head == nil {
		return nil, apierr.Invalid("changed needs a base and a head knowledge base")
	}
	bs, err := base.read(ctx)
	if err != nil {
		return nil, err
	}
	hs, err := head.read(ctx)
	if err != nil {
		return nil, err
	}
	res := &ChangedResult{Base: strp(bs.head), Head: strp(hs.head), Changes: []Change{}}
	for _, h := range hs.snap.Entries {
		hrev := hs.snap.Blobs[h.File]
		c := Change{ID: h.ID, Kind: h.Kind, Title: h.Title, File: h.File, Paths: nonNil(h.Paths),
			Revision: hrev, Status: strp(h.Status), HeadRevision: strp(hrev)}
		b, ok := bs.snap.ByID(h.ID)
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
			c.BaseRevision = strp(bs.snap.Blobs[b.File])
		}
		res.Changes = append(res.Changes, c)
	}
	for _, b := range bs.snap.Entries {
		if _, ok := hs.snap.ByID(b.ID); ok {
			continue
		}
		brev := bs.snap.Blobs[b.File]
		res.Changes = append(res.Changes, Change{ID: b.ID, Kind: b.Kind, Title: b.Title, File: b.File,
			Paths: nonNil(b.Paths), Revision: brev, Status: strp(b.Status), Change: "deprecated", Removed: true,
			BaseRevision: strp(brev)})
	}
	sort.SliceStable(res.Changes, func(i, j int) bool { return res.Changes[i].ID < res.Changes[j].ID })
	return res, nil
}

// checkedLine is a frontmatter (or ADR metadata) line recording a look.
var checkedLine = regexp.MustCompile(`(?m)^checked:[^\n]*(\n|$)`)

// withoutChecked is an entry's text without its checked line(s): a change
// of only checked is not a revision.
func withoutChecked(md string) string { return checkedLine.ReplaceAllString(md, "") }
