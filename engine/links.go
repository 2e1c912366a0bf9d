package engine

import (
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/internal/entry"
)

// addLinked adds to entries.related the records that the candidates found
// so far, and the excluded entries (typically the one being written), link
// to with a typed link ("amends", "depends on", …): a record that another
// one depends on is related to the same change.
func addLinked(st *State, found []api.Candidate, excluded []string, add func(*entry.Entry, string)) {
	from := make([]string, 0, len(found)+len(excluded))
	for _, c := range found {
		from = append(from, c.ID)
	}
	from = append(from, excluded...)
	for _, id := range from {
		src, ok := st.Snap.ByID(id)
		if !ok {
			continue
		}
		for _, l := range src.Links {
			if dst, ok := st.Snap.ByID(l.Target); ok {
				add(dst, "linked: "+src.ID+" "+l.Type+" "+dst.ID)
			}
		}
	}
}
