package drafts

import (
	"context"
	"path"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/internal/entry"
)

// refNames is implemented by git histories that can list the file names of
// a directory on every local branch and remote-tracking ref.
type refNames interface {
	NamesOnRefs(ctx context.Context, dir string) ([]string, error)
}

// namesOnRefs lists the names in dir on other branches, so that a new ADR
// takes a number no unmerged branch has taken (two branches adding 0042
// merge without a conflict). Without such a history it is nil; a failure
// to read a ref only loses that hint.
func (e *draft) namesOnRefs(ctx context.Context, dir string) []string {
	rn, ok := e.Options().History.(refNames)
	if !ok {
		return nil
	}
	names, err := rn.NamesOnRefs(ctx, dir)
	if err != nil {
		return nil
	}
	return names
}

// datedLog reports whether dir is a log4brains log: its records are named
// YYYYMMDD-slug.md and none is numbered. A new record there keeps that
// naming.
func datedLog(st *engine.State, dir string) bool {
	dated := false
	for _, en := range st.Snap.Entries() {
		if path.Dir(en.File) != dir || en.Style != entry.StyleADR {
			continue
		}
		if en.HasADRNumber {
			return false
		}
		if _, ok := entry.DatePrefix(strings.TrimSuffix(path.Base(en.File), ".md")); ok {
			dated = true
		}
	}
	return dated
}
