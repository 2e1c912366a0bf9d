package kb

import (
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/match"
)

// storedIndex is the match index of a stored compiled part, whatever
// inputs it was built from (nil when there is none or it does not
// decode): a rebuild keeps it when its sets are the same (priorFits).
func storedIndex(data string) *match.Index {
	if data == "" {
		return nil
	}
	r := &entry.Decoder{Buf: data}
	s, _, err := decodeCompiled(data, r.String())
	if err != nil {
		return nil
	}
	return s.index
}

// priorFits reports whether s.prior is the index of s's entries: each
// active entry with paths is, in order, the next of its sets, with all of
// its paths (so all of them compiled). Then compiling the sets again
// would build the same index (match.Index.SetIs).
func (s *Snapshot) priorFits() bool {
	si := 0
	for i, e := range s.entries {
		if entry.Inactive(e.Status) || len(e.Paths) == 0 {
			continue
		}
		if si == s.prior.Sets() || !s.prior.SetIs(si, i, e.Paths) {
			return false
		}
		si++
	}
	return si == s.prior.Sets()
}
