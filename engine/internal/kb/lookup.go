package kb

import (
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/match"
	"github.com/kontext/kontext/engine/internal/search"
)

// ByID returns the entry with exactly this id. (Not inlined, as Entries.)
//
//go:noinline
func (s *Snapshot) ByID(id string) (*entry.Entry, bool) {
	if s.lazy != nil {
		return s.lazy.byID(id)
	}
	e, ok := s.ids()[id]
	return e, ok
}

// Lookup resolves a reference: a full id, the repo-relative file path, an
// ADR number (7, 0007, ADR-7) or a unique id prefix. An ambiguous reference
// is invalid_input listing the candidates; none is not_found.
func (s *Snapshot) Lookup(ref string) (*entry.Entry, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, apierr.Invalid("id is empty; pass an entry id, id prefix, ADR number or file path")
	}
	if e, ok := s.ByID(ref); ok {
		return e, nil
	}
	file := strings.TrimPrefix(strings.TrimPrefix(ref, "./"), "/")
	for _, e := range s.Entries() {
		if e.File == file {
			return e, nil
		}
	}
	for _, e := range s.Entries() { // a file that only imports this entry
		if as, ok := e.Extra["aliases"].([]any); ok {
			for _, a := range as {
				if a == file {
					return e, nil
				}
			}
		}
	}
	if n, ok := entry.ParseADRNumber(ref); ok {
		var hits []*entry.Entry
		for _, e := range s.Entries() {
			if e.HasADRNumber && e.ADRNumber == n {
				hits = append(hits, e)
			}
		}
		if len(hits) == 1 {
			return hits[0], nil
		}
		if len(hits) > 1 {
			return nil, ambiguous(ref, hits)
		}
	}
	var hits []*entry.Entry
	for _, e := range s.Entries() {
		if strings.HasPrefix(e.ID, ref) {
			hits = append(hits, e)
		}
	}
	switch len(hits) {
	case 0:
		return nil, apierr.New(apierr.NotFound, "no entry matches %q; list entries with entries.list", ref)
	case 1:
		return hits[0], nil
	}
	return nil, ambiguous(ref, hits)
}

func ambiguous(ref string, hits []*entry.Entry) error {
	ids := make([]string, len(hits))
	for i, e := range hits {
		ids[i] = e.ID
	}
	sort.Strings(ids)
	err := apierr.Invalid("%q is ambiguous: it matches %s; pass a longer prefix or the full id", ref, strings.Join(ids, ", "))
	err.Extra = map[string]any{"candidates": ids}
	return err
}

// Governing returns the match index over the active entries' patterns;
// Set.Owner indexes Entries. It is built once per snapshot.
func (s *Snapshot) Governing() *match.Index {
	s.matchOnce.Do(func() {
		if s.prior != nil && s.priorFits() {
			s.index, s.prior = s.prior, nil // an edit that changed no paths: the same index
			return
		}
		s.prior = nil
		for i, e := range s.entries {
			if entry.Inactive(e.Status) {
				continue
			}
			set := match.Set{Owner: i}
			for _, raw := range e.Paths {
				if p, err := match.Compile(raw); err == nil {
					set.Patterns = append(set.Patterns, p)
				}
			}
			if len(set.Patterns) > 0 {
				s.sets = append(s.sets, set)
			}
		}
		s.index = match.NewIndex(s.sets)
	})
	return s.index
}

// Search returns the BM25F index over all entries; Hit.Doc indexes
// Entries. It is built once per snapshot.
func (s *Snapshot) Search() *search.Index {
	s.searchOnce.Do(func() { s.search = buildSearch(s.Entries()) })
	return s.search
}

// ActiveSearch is Search over the active entries only, so that "close to
// the best hit" (entries.related) is measured among candidates that can be
// returned. Its Hit.Doc indexes ActiveEntries.
func (s *Snapshot) ActiveSearch() (*search.Index, []*entry.Entry) {
	s.activeOnce.Do(func() {
		for _, e := range s.Entries() {
			if !entry.Inactive(e.Status) {
				s.activeEntries = append(s.activeEntries, e)
			}
		}
		s.active = buildSearch(s.activeEntries)
	})
	return s.active, s.activeEntries
}

func buildSearch(es []*entry.Entry) *search.Index {
	docs := make([]search.Doc, len(es))
	for i, e := range es {
		docs[i] = search.Doc{ID: e.ID, Title: e.Title, Summary: e.Summary, Body: e.Body, Tags: e.Tags}
	}
	return search.Build(docs)
}
