package kb

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/internal/entry"
)

// resolver turns the targets records write (a file stem, an ADR number in
// any spelling, an id) into entry ids.
type resolver struct {
	byID  map[string]*entry.Entry
	byNum map[int][]*entry.Entry
}

func newResolver(es []*entry.Entry) *resolver {
	r := &resolver{byID: make(map[string]*entry.Entry, len(es)), byNum: map[int][]*entry.Entry{}}
	for _, e := range es {
		r.byID[e.ID] = e
		if e.HasADRNumber {
			r.byNum[e.ADRNumber] = append(r.byNum[e.ADRNumber], e)
		}
	}
	return r
}

// resolve returns the id target names, seen from the record from. An ADR
// number is looked up in from's own directory first (two logs may both
// have an ADR 3), then everywhere; a number two records share is ambiguous.
func (r *resolver) resolve(from *entry.Entry, target string) (string, string) {
	if _, ok := r.byID[target]; ok {
		return target, ""
	}
	n, ok := entry.ParseADRNumber(target)
	if !ok {
		return "", "no record has this id or file name"
	}
	var local []*entry.Entry
	for _, e := range r.byNum[n] {
		if path.Dir(e.File) == path.Dir(from.File) {
			local = append(local, e)
		}
	}
	hits := local
	if len(hits) == 0 {
		hits = r.byNum[n]
	}
	switch len(hits) {
	case 0:
		return "", fmt.Sprintf("no record has ADR number %d", n)
	case 1:
		return hits[0].ID, ""
	}
	files := make([]string, len(hits))
	for i, e := range hits {
		files[i] = e.File
	}
	return "", fmt.Sprintf("ADR number %d is used by %s", n, strings.Join(files, " and "))
}

// linkRecords resolves every relation target to an id, makes supersession
// reciprocal, and reports what it had to infer or could not resolve, and
// ADR numbers two records share. Entries are clones: the parse cache keeps
// the targets as written.
func linkRecords(es []*entry.Entry, diags *[]entry.Diagnostic) {
	r := newResolver(es)
	add := func(e *entry.Entry, sev, code, msg string) {
		*diags = append(*diags, entry.Diagnostic{File: e.File, Severity: sev, Code: code, Message: msg})
	}
	resolveAll := func(e *entry.Entry, what string, targets []string) []string {
		out := make([]string, 0, len(targets))
		for _, t := range targets {
			id, why := r.resolve(e, t)
			if id == "" {
				id = t
				// Only ADR logs are diagnosed: frontmatter entries may name
				// ids of records that were deleted long ago.
				if e.Style == entry.StyleADR {
					add(e, "warning", entry.CodeUnresolvedLink, fmt.Sprintf("%s %q resolves to no record (%s); it is kept as written", what, t, why))
				}
			}
			if !contains(out, id) && id != e.ID {
				out = append(out, id)
			}
		}
		return out
	}
	written := map[*entry.Entry][2]int{}
	for _, e := range es {
		e.Supersedes = resolveAll(e, "supersedes", e.Supersedes)
		e.SupersededBy = resolveAll(e, "superseded by", e.SupersededBy)
		if len(e.Links) > 0 {
			links := make([]entry.TypedLink, 0, len(e.Links))
			for _, l := range e.Links {
				if l.Type == entry.LinkImports { // resolved by resolveImports
					links = append(links, l)
					continue
				}
				if got := resolveAll(e, l.Type, []string{l.Target}); len(got) == 1 {
					l.Target = got[0]
					links = append(links, l)
				}
			}
			e.Links = links
		}
		written[e] = [2]int{len(e.Supersedes), len(e.SupersededBy)}
	}
	// One side of a supersession implies the other. Files that name other
	// records on that side disagree; a side left empty is inferred.
	for _, newer := range es {
		for _, oldID := range newer.Supersedes {
			old, ok := r.byID[oldID]
			if !ok || contains(old.SupersededBy, newer.ID) {
				continue
			}
			if written[old][1] > 0 {
				add(old, "warning", entry.CodeSupersedeMismatch, fmt.Sprintf("%s says it supersedes this record, but this record is superseded by %s; correct one of the files",
					newer.File, strings.Join(old.SupersededBy, ", ")))
			} else {
				msg := fmt.Sprintf("superseded_by %s inferred from the supersedes link in %s", newer.ID, newer.File)
				if !entry.Inactive(old.Status) {
					old.Status = "superseded"
					msg += "; read as superseded"
				}
				add(old, "info", entry.CodeInferredLink, msg+" (run kontext repair to write it)")
			}
			old.SupersededBy = append(old.SupersededBy, newer.ID)
		}
	}
	for _, old := range es {
		for _, newID := range old.SupersededBy {
			newer, ok := r.byID[newID]
			if !ok || contains(newer.Supersedes, old.ID) {
				continue
			}
			if written[newer][0] > 0 {
				add(newer, "warning", entry.CodeSupersedeMismatch, fmt.Sprintf("%s says this record supersedes it, but this record supersedes only %s; correct one of the files",
					old.File, strings.Join(newer.Supersedes, ", ")))
			} else {
				add(newer, "info", entry.CodeInferredLink, fmt.Sprintf("supersedes %s inferred from the superseded_by link in %s", old.ID, old.File))
			}
			newer.Supersedes = append(newer.Supersedes, old.ID)
		}
	}
	// A record something supersedes no longer applies, whatever its own
	// status line still says.
	for _, old := range es {
		if len(old.SupersededBy) > 0 && !entry.Inactive(old.Status) {
			add(old, "info", entry.CodeInferredLink, fmt.Sprintf("status %q read as superseded: %s supersedes it", old.StatusRaw, strings.Join(old.SupersededBy, ", ")))
			old.Status = "superseded"
		}
	}
	duplicateNumbers(es, add)
}

// duplicateNumbers reports ADR numbers that two records of one log share
// (two branches each added 0042-…, and git merged both).
func duplicateNumbers(es []*entry.Entry, add func(*entry.Entry, string, string, string)) {
	type key struct {
		dir string
		n   int
	}
	groups := map[key][]*entry.Entry{}
	for _, e := range es {
		if e.HasADRNumber && e.Style == entry.StyleADR {
			k := key{path.Dir(e.File), e.ADRNumber}
			groups[k] = append(groups[k], e)
		}
	}
	for k, g := range groups {
		if len(g) < 2 {
			continue
		}
		files := make([]string, len(g))
		for i, e := range g {
			files[i] = e.File
		}
		sort.Strings(files)
		for _, e := range g {
			add(e, "warning", entry.CodeDuplicateNumber, fmt.Sprintf("ADR number %d is used by %s; renumber one of them (kontext new picks a free number)", k.n, strings.Join(files, " and ")))
		}
	}
}

// Skipped is a Markdown file in a source directory that is not a record:
// a README, an index, a template. Skipped files are listed, not diagnosed.
type Skipped struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// skipReason is entry.SkipReason for the Markdown files of frontmatter and
// ADR sources; other files (images, rule styles) are not listed.
func skipReason(rel string, src entry.Source) string {
	if src.Style != entry.StyleADR && src.Style != entry.StyleFrontmatter {
		return ""
	}
	if n := len(rel); n < 3 || !strings.EqualFold(rel[n-3:], ".md") {
		return ""
	}
	return entry.SkipReason(rel, src)
}
