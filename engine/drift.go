package engine

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/ledger"
	"github.com/kontext/kontext/engine/internal/match"
)

// Broad reports whether an entry with these paths is broad: a positive
// "**" or "**/*" pattern (a reader's always-on mapping is written so) and
// no negative pattern. entries.drift leaves broad entries out unless its
// input says broad: true; reports count them as always-on rules.
func Broad(paths []string) bool { return match.Broad(paths) }

// driftKinds are the kinds drift and changed look at unless told.
func driftKinds(kinds []string) (map[string]bool, error) {
	if len(kinds) == 0 {
		return map[string]bool{"decision": true, "convention": true, "learning": true, "incident": true}, nil
	}
	return normKinds(kinds)
}

// revision checks a revision input before git sees it.
func revision(field, rev string) (string, error) {
	rev = strings.TrimSpace(rev)
	if rev == "" {
		return "", jsonin.Errorf(field, "is empty; pass a git revision such as origin/main or a commit sha")
	}
	if strings.HasPrefix(rev, "-") {
		return "", jsonin.Errorf(field, "%q starts with '-'; pass a git revision, not an option", rev)
	}
	return rev, nil
}

// historyFor returns the engine's history and the kinds a history
// operation looks at (driftKinds of the input).
func (e *Engine) historyFor(kinds []string) (History, map[string]bool, error) {
	if e.opts.History == nil {
		return nil, nil, apierr.New(apierr.UnsupportedOperation, "history operations need a git repository; run them with the native CLI inside one")
	}
	ks, err := driftKinds(kinds)
	return e.opts.History, ks, err
}

func runDrift(ctx context.Context, e *Engine, in *api.DriftInput) (*api.DriftResult, error) {
	h, kinds, err := e.historyFor(in.Kinds)
	if err != nil {
		return nil, err
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	if st.Head == "" {
		return nil, apierr.New(apierr.NoCommits, "the repository has no commits yet; drift compares commits")
	}
	res := &api.DriftResult{Head: "working", Entries: []*api.DriftEntry{}, Warnings: []string{}}
	working := in.Head == ""
	eng := e
	if !working {
		rev, err := revision("head", in.Head)
		if err != nil {
			return nil, err
		}
		sha, err := h.Resolve(ctx, rev)
		if err != nil {
			return nil, err
		}
		res.Head = sha
		// A head without a configuration is read with the working
		// tree's (spec 04), and the result says so.
		var warning string
		if eng, warning, err = e.AtRevision(ctx, sha, sha); err != nil {
			return nil, err
		}
		if warning != "" {
			res.Warnings = append(res.Warnings, warning)
		}
		if st, err = eng.Read(ctx); err != nil {
			return nil, err
		}
	}
	var base Base
	if in.Base != "" {
		rev, err := revision("base", in.Base)
		if err != nil {
			return nil, err
		}
		sha, err := h.Resolve(ctx, rev)
		if err != nil {
			return nil, err
		}
		base = Base{SHA: sha, Source: "explicit"}
	} else if base, err = h.DefaultBase(ctx); err != nil {
		return nil, err
	}
	res.BaseSource, res.Warning = base.Source, base.Warning
	res.Base = strp(base.SHA)
	res.Snapshot = st.Snap.ID
	lin, err := eng.lineage(ctx, st)
	if err != nil {
		return nil, err
	}
	if lin == nil {
		return res, nil
	}
	if base.SHA == "" {
		res.Base = strp(st.Head) // fallback-none: an empty range
	}
	inBase := lin.ancestors(*res.Base)
	var uncommitted []string
	dirtyFiles := map[string]bool{} // every uncommitted path, knowledge files included
	if working {
		all, err := h.Uncommitted(ctx)
		if err != nil {
			return nil, err
		}
		knowledge := st.KnowledgeFiles()
		for _, p := range all {
			dirtyFiles[p] = true
			if !knowledge(p) {
				uncommitted = append(uncommitted, p)
			}
		}
	}
	var dirtyHits = map[string][]string{}
	if len(uncommitted) > 0 {
		for _, r := range st.Snap.Governing().Lookup(uncommitted) {
			id := st.Snap.Entry(r.Owner).ID
			for _, m := range r.Matches {
				dirtyHits[id] = append(dirtyHits[id], m.Path)
			}
		}
	}
	byID := ledger.ByID(st.Snap.LedgerLines)
	var candidates []*entry.Entry
	for _, en := range st.Snap.Entries() {
		if kinds[en.Kind] && !entry.Inactive(en.Status) && len(en.Paths) > 0 {
			candidates = append(candidates, en)
		}
	}
	lin.need(st, candidates)
	var drifted []*entry.Entry
	details := map[string]*api.DriftEntry{}
	for _, en := range candidates {
		d := &api.DriftEntry{Path: en.File, Changed: []string{}, Commits: []api.CommitLine{}}
		var last *Commit
		var inRange [][]string // the governed paths of each commit of the range, and the uncommitted ones
		for _, hit := range lin.hits(en) {
			if inBase[hit.commit.SHA] {
				continue
			}
			if last == nil {
				last = hit.commit // newest first: the last commit of the range that changed governed files
			}
			d.Commits = append(d.Commits, api.CommitLine{SHA: hit.commit.SHA, Subject: hit.commit.Subject})
			inRange = append(inRange, hit.paths)
		}
		if dirty := dirtyHits[en.ID]; len(dirty) > 0 {
			inRange = append(inRange, dirty)
		}
		if len(inRange) == 0 {
			continue
		}
		editing := dirtyFiles[en.File] // an uncommitted edit of its own file is an uncommitted look
		if covered(lin, en, byID[en.ID], last, len(dirtyHits[en.ID]) > 0, editing, working) {
			continue
		}
		d.Changed = changedPaths(inRange)
		if sha, ok := lin.lastEdit[en.File]; ok {
			if c := lin.bySHA[sha]; c != nil {
				d.LastEdited = &api.Edit{SHA: c.SHA, At: c.Time.UTC().Format(time.RFC3339), By: c.Author}
			}
		}
		broad := match.Broad(en.Paths)
		if broad && !in.Broad {
			res.BroadOmitted++ // every change touches what it governs
			continue
		}
		d.Broad = broad
		drifted = append(drifted, en)
		details[en.ID] = d
	}
	sort.Slice(drifted, func(i, j int) bool { return drifted[i].ID < drifted[j].ID })
	views, err := eng.Views(ctx, st, drifted)
	if err != nil {
		return nil, err
	}
	for i, v := range views {
		d := details[drifted[i].ID]
		d.Entry = v
		res.Entries = append(res.Entries, d)
	}
	return res, nil
}

// changedPaths are the distinct paths of lists, sorted. One sorted list
// (one commit changed the entry's files) is shared, not copied: drift over
// a large change holds each path once, however many entries govern it.
func changedPaths(lists [][]string) []string {
	if len(lists) == 1 && sort.StringsAreSorted(lists[0]) {
		return lists[0]
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, p := range l {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// covered reports whether a look at en happened in or after last (the last
// commit of the range that changed its governed files). Uncommitted
// changes are covered only by an uncommitted look: an edit of the entry's
// own file not committed yet (editing), or a ledger line not landed.
func covered(lin *lineage, en *entry.Entry, lines []*ledger.Line, last *Commit, dirty, editing, working bool) bool {
	uncommittedLook := editing
	var lookCommits []string
	if sha, ok := lin.lastEdit[en.File]; ok {
		lookCommits = append(lookCommits, sha)
	}
	for _, l := range lines {
		if l.FailedVerify() {
			continue
		}
		if _, ok := lin.landed[l.Text]; !ok {
			if working {
				uncommittedLook = true // a ledger line only staged or in the working tree
			}
			continue
		}
		lookCommits = append(lookCommits, lineLook(lin, l).commit)
	}
	if uncommittedLook {
		return true
	}
	if dirty {
		return false
	}
	if last == nil {
		return true
	}
	for _, c := range lookCommits {
		if c != "" && lin.ancestors(c)[last.SHA] {
			return true
		}
	}
	return false
}
