// Package report answers what a pull request needs to know about a change:
// the findings of `kontext ci` (drift, failing verifies, review due,
// diagnostics) located at the files the change touches, in the formats CI
// systems read (GitHub workflow commands, SARIF 2.1.0, Code Climate JSON,
// text), and the Markdown body of the one pull-request comment. Entries
// with visibility: private never reach any of them.
package report

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/worktree"
)

// Options say which change a report is about.
type Options struct {
	// Base is the base revision of the change. With it, only findings that
	// touch the change are reported; without it, everything, with drift
	// against the default drift base (whose range is then the change).
	Base string
	// BaseFallbacks are tried in order when Base does not resolve (a
	// GITHUB_BASE_REF "main" is origin/main in a CI checkout).
	BaseFallbacks []string
	// Head is the head revision; "" is HEAD plus the working tree.
	Head string
	// Notice adds, per changed file, the decisions and conventions that
	// govern it (level notice: never a failure).
	Notice bool
	// Broad includes broad entries (always-on rules) in drift findings;
	// by default they are counted in AlwaysOn and Drift.BroadOmitted.
	Broad bool
	// PerFile fills Files[].Governing (the comment's directories, Notice
	// does too). Without it the report keeps per entry only what its
	// findings show, so it grows with entries, not entries × files.
	PerFile bool
}

// Report is what kontext knows about one change, private entries left out.
type Report struct {
	// Base is the resolved base ("" when there is none: no --base and no
	// drift base); BaseSource is explicit or the drift base's source.
	Base, BaseSource string
	// Head is the resolved head sha, or "working" (HEAD plus the working
	// tree); HeadCommit is the commit entry links point at.
	Head, HeadCommit string
	// Scoped: a base was given, so only findings touching the change count.
	Scoped bool
	// Changed are the files of the change (empty without a base), private
	// entry files left out.
	Changed []string
	// Files are the changed files with the entries that govern them
	// (Governing only with Options.PerFile or Notice).
	Files []*File
	// Broad: broad entries are reported as drift (Options.Broad).
	Broad bool
	// Governed are, per entry id, the changed files it governs.
	Governed map[string]*Governed
	// AlwaysOn counts the broad entries (always-on rules) that govern the
	// change's files: reported in one line, never as drift unless
	// Options.Broad.
	AlwaysOn int
	// broad are the ids of those entries.
	broad map[string]bool
	// Entries are the visible entries at head, by id (without the fields
	// history gives: landed, since, since_verified, amended_since).
	Entries map[string]*api.Entry
	// Drift is the drift of the change (private entries left out).
	Drift *api.DriftResult
	// Changes are the entries added, revised, superseded or deprecated:
	// the change's base (its merge base) against head — the working tree
	// when Head is "working" — compared as the review console compares them.
	Changes []api.Change
	// Warnings name each revision read with a configuration other than
	// its own (it has none committed: spec 04), once each.
	Warnings []string
	// Diagnostics are the warnings and errors (never info) in scope.
	Diagnostics []Diagnostic
	// Results are the findings, most severe first.
	Results []Result
}

// File is one changed file and what governs it.
type File struct {
	Path      string
	Knowledge bool // a knowledge file (an entry, the config)
	Governing []Governs
}

// Governs is one entry governing one file, and the rule that matched.
type Governs struct {
	ID          string
	Rule        string
	Specificity int
}

// Governed is what one entry governs of the change, bounded: how many
// changed files, the most specific one, and the first MaxFiles in path
// order.
type Governed struct {
	Count int
	// Best is the changed file matched by the entry's most specific
	// pattern (the first in path order on a tie), Specificity that
	// pattern's.
	Best        string
	Specificity int
	// Files are the first MaxFiles+1 governed changed files in path order.
	Files []string
}

// MaxFiles is how many changed files a finding names besides its location
// (SARIF related locations, the text of every format); the rest are
// counted.
const MaxFiles = 50

// Diagnostic is a parse or link diagnostic of a knowledge file.
type Diagnostic = api.Diagnostic

// Build reads the change and its knowledge through the engine's
// operations. It reads the repository once per question and never writes.
func Build(ctx context.Context, e *engine.Engine, o Options) (*Report, error) {
	// The change's files and drift both ask for the working tree's
	// uncommitted files: list them once.
	ctx = engine.WithUncommittedMemo(ctx)
	// The change, drift, the entry list and governing each read the
	// knowledge base: pinned, they share one listing and one publication
	// state (which blobs are committed) instead of four.
	ctx, err := e.Pin(ctx)
	if err != nil {
		return nil, err
	}
	r := &Report{Entries: map[string]*api.Entry{}, Governed: map[string]*Governed{}, broad: map[string]bool{}, Head: "working", Scoped: o.Base != "", Broad: o.Broad}
	var change *worktree.Change
	if o.Base != "" {
		for i, base := range append([]string{o.Base}, o.BaseFallbacks...) {
			change, err = worktree.ChangeOf(ctx, e, base, o.Head)
			if err == nil {
				break
			}
			if i == len(o.BaseFallbacks) {
				if len(o.BaseFallbacks) > 0 && apierr.CodeOf(err) == apierr.InvalidInput {
					return nil, apierr.Invalid("cannot resolve the base branch (tried %s): fetch it (actions/checkout with fetch-depth: 0) or pass --base",
						strings.Join(append([]string{o.Base}, o.BaseFallbacks...), ", "))
				}
				return nil, err
			}
		}
		r.Base, r.BaseSource = change.Base, "explicit"
	}
	// Listing every entry first publishes them all in one pass (drift's
	// entries are among them); at another head the list waits for it.
	var listed *entries
	if o.Head == "" {
		if listed, err = listEntries(ctx, e); err != nil {
			return nil, err
		}
	}
	drift, err := e.Drift(ctx, &api.DriftInput{Base: r.Base, Head: o.Head, Broad: o.Broad})
	if err != nil {
		return nil, err
	}
	r.Drift = drift
	for _, w := range drift.Warnings {
		r.warn(w)
	}
	if !r.Scoped && drift.BaseSource != "fallback-none" && drift.Base != nil {
		// No base given: the change is the drift base's range.
		if change, err = worktree.ChangeOf(ctx, e, *drift.Base, o.Head); err != nil {
			return nil, err
		}
		r.Base = change.Base
	}
	r.BaseSource = drift.BaseSource
	head := e
	if o.Head != "" {
		r.Head = drift.Head
		// Read as drift read it: a head without a configuration with the
		// working tree's (drift warned about it).
		if head, _, err = e.AtRevision(ctx, drift.Head, drift.Head); err != nil {
			return nil, err
		}
		if ctx, err = head.Pin(ctx); err != nil {
			return nil, err
		}
	}
	st, err := head.Read(ctx)
	if err != nil {
		return nil, err
	}
	r.HeadCommit = st.Head
	know := engine.KnowledgeOf(st)

	if listed == nil {
		if listed, err = listEntries(ctx, head); err != nil {
			return nil, err
		}
	}
	private, diags := listed.private, listed.diags
	for id, en := range listed.visible {
		r.Entries[id] = en
	}

	kept := drift.Entries[:0:0]
	for _, d := range drift.Entries {
		if !private[d.ID] {
			kept = append(kept, d)
		}
	}
	r.Drift.Entries = kept

	changed := map[string]bool{}
	if change != nil {
		for _, p := range change.Paths {
			if !private[p] {
				r.Changed = append(r.Changed, p)
				changed[p] = true
			}
		}
		// The entries the change adds, revises or supersedes: from the merge
		// base, so what landed on the base branch meanwhile is not the
		// change's, to head (the working tree in working mode), every kind,
		// as the review console compares them. A base without a
		// configuration is read with head's (spec 04). No knowledge file
		// changed: no entry did (reading both sides' entries is the
		// costliest part of a report).
		var changes []api.Change
		if touchesKnowledge(change.Paths, know) {
			base, warning, err := e.AtRevision(ctx, change.From, change.Head)
			if err != nil {
				return nil, err
			}
			r.warn(warning)
			c, err := engine.ChangedOf(ctx, base, head)
			if err != nil {
				return nil, err
			}
			changes = c.Changes
			// An entry private in base (removed since) is private too, as
			// bundles leave base's private files out.
			bst, err := base.Read(ctx)
			if err != nil {
				return nil, err
			}
			for _, en := range bst.Snap.Entries() {
				if en.Visibility == "private" {
					private[en.ID], private[en.File] = true, true
				}
			}
		} else {
			warning, err := e.RevisionWarning(ctx, change.From, change.Head)
			if err != nil {
				return nil, err
			}
			r.warn(warning)
		}
		for _, ch := range changes {
			if private[ch.ID] || private[ch.File] {
				continue
			}
			ch.SupersededBy = visibleIDs(ch.SupersededBy, private)
			r.Changes = append(r.Changes, ch)
		}
	}
	for _, d := range diags {
		if d.Severity == "info" || private[d.File] || (r.Scoped && !changed[d.File]) {
			continue
		}
		r.Diagnostics = append(r.Diagnostics, d)
	}

	// What governs each changed file (knowledge files govern nothing).
	var governed []string
	byPath := map[string]*File{}
	for _, p := range r.Changed {
		f := &File{Path: p, Knowledge: know.Contains(p) || p == know.Config}
		r.Files = append(r.Files, f)
		byPath[p] = f
		if !f.Knowledge {
			governed = append(governed, p)
		}
	}
	perFile := o.PerFile || o.Notice
	no := false
	// In slices of paths: an answer holds every (entry, file) match of its
	// paths, so a whole change at once would hold entries × files. The
	// first slice is small; the next ones are sized by the matches per path
	// seen so far, so that each answer holds about governingMatches (one
	// question when few entries govern each file).
	size, asked, matched := governingSlice, 0, 0
	for start := 0; start < len(governed); start += size {
		if asked > 0 {
			size = max(governingSlice, governingMatches*asked/max(matched, 1))
		}
		part := governed[start:min(start+size, len(governed))]
		g, err := head.Governing(ctx, &api.GoverningInput{Paths: part, History: &no})
		if err != nil {
			return nil, err
		}
		asked += len(part)
		for _, en := range g.Entries {
			matched += len(en.Matches)
		}
		for _, en := range g.Entries {
			if private[en.ID] {
				continue
			}
			gv := r.Governed[en.ID]
			if gv == nil {
				gv = &Governed{Specificity: -1}
				r.Governed[en.ID] = gv
				if engine.Broad(en.Paths) {
					r.AlwaysOn++
					r.broad[en.ID] = true
				}
			}
			for _, m := range en.Matches {
				f := byPath[m.Path]
				if f == nil {
					continue
				}
				if perFile {
					f.Governing = append(f.Governing, Governs{ID: en.ID, Rule: m.Rule, Specificity: m.Specificity})
				}
				gv.Count++
				if m.Specificity > gv.Specificity || (m.Specificity == gv.Specificity && m.Path < gv.Best) {
					gv.Best, gv.Specificity = m.Path, m.Specificity
				}
				if len(gv.Files) <= MaxFiles {
					gv.Files = append(gv.Files, m.Path)
				}
			}
			en.Matches = nil // not kept: the report's entries are shared views
			if _, ok := r.Entries[en.ID]; !ok {
				r.Entries[en.ID] = en
			}
		}
	}
	for _, f := range r.Files {
		sort.SliceStable(f.Governing, func(i, j int) bool {
			a, b := f.Governing[i], f.Governing[j]
			if a.Specificity != b.Specificity {
				return a.Specificity > b.Specificity
			}
			return a.ID < b.ID
		})
	}
	r.Results = findings(r, o.Notice)
	// rules.lint's findings: notes after the rest, never a failure.
	lint, err := lintResults(ctx, head, r.Scoped, changed)
	if err != nil {
		return nil, err
	}
	r.Results = append(r.Results, lint...)
	return r, nil
}

// governingSlice is how many paths the first governing question asks
// (and the fewest any asks); governingMatches how many matches a later
// one is sized to hold.
const (
	governingSlice   = 256
	governingMatches = 1 << 18
)

// warn adds a warning once.
func (r *Report) warn(w string) {
	if w != "" && !contains(r.Warnings, w) {
		r.Warnings = append(r.Warnings, w)
	}
}

// entries are every entry at a head: the visible ones by id, which ids
// and files are private, and the diagnostics.
type entries struct {
	visible map[string]*api.Entry
	private map[string]bool // ids and files
	diags   []Diagnostic
}

// listEntries lists every entry at head, without the fields history
// gives (landed, since…): no format shows them, and matching every
// entry's paths against the commit log was the list's costliest part.
func listEntries(ctx context.Context, head *engine.Engine) (*entries, error) {
	out := &entries{visible: map[string]*api.Entry{}, private: map[string]bool{}}
	limit, no := 500, false
	for offset := 0; ; {
		l, err := head.List(ctx, &api.ListInput{Limit: &limit, Offset: offset, History: &no})
		if err != nil {
			return nil, err
		}
		for _, en := range l.Entries {
			if en.Visibility == "private" {
				out.private[en.ID], out.private[en.File] = true, true
				continue
			}
			out.visible[en.ID] = en
		}
		if offset == 0 {
			for _, d := range l.Diagnostics {
				out.diags = append(out.diags, Diagnostic{File: d.File, Line: d.Line, Severity: d.Severity, Code: d.Code, Message: d.Message})
			}
		}
		if l.NextOffset == nil || *l.NextOffset <= offset {
			return out, nil
		}
		offset = *l.NextOffset
	}
}

func visibleIDs(ids []string, private map[string]bool) []string {
	var out []string
	for _, id := range ids {
		if !private[id] {
			out = append(out, id)
		}
	}
	return out
}

// Label is an entry's short name for people: "ADR-7", else its id.
func Label(e *api.Entry) string {
	if e.ADRNumber != nil {
		return fmt.Sprintf("ADR-%d", *e.ADRNumber)
	}
	return e.ID
}

// Dir is the directory a changed file is listed under ("." for the root).
func Dir(p string) string { return path.Dir(p) }

// plural says "1 file", "2 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return commas(n) + " " + many
}

// commas writes 3000 as 3,000.
func commas(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// WithNotice returns o with Notice set.
func (o Options) WithNotice(on bool) Options {
	o.Notice = on
	return o
}

// touchesKnowledge says whether a changed path can change what entries
// say: a file in a knowledge directory (head's layout), a configuration
// candidate, or anything when a source reads the whole tree.
func touchesKnowledge(paths []string, k *engine.Knowledge) bool {
	configs := map[string]bool{}
	for _, c := range engine.ConfigCandidates() {
		configs[c] = true
	}
	for _, d := range k.Dirs {
		if d == "" || d == "." {
			return true
		}
	}
	for _, p := range paths {
		if configs[p] || k.Contains(p) {
			return true
		}
		for _, d := range k.Dirs {
			if strings.HasPrefix(p, d+"/") {
				return true
			}
		}
	}
	return false
}
