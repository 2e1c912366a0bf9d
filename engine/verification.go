package engine

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/kb"
	"github.com/kontext/kontext/engine/internal/ledger"
	"github.com/kontext/kontext/engine/internal/match"
)

// lineage is the history of one snapshot: the commit log, where ledger
// lines landed, which commits changed which entries' governed files. It is
// computed once per snapshot (HEAD is part of the snapshot id).
type lineage struct {
	log      *CommitLog
	bySHA    map[string]*Commit
	order    map[string]int    // position in log (0 = HEAD)
	landed   map[string]string // ledger line text → first commit in HEAD's history that has it
	lastEdit map[string]string // knowledge file → newest commit that changed it
	code     []codeCommit      // non-merge commits that changed files outside the knowledge base, newest first
	gmu      sync.Mutex
	governed map[string][]governedHit // entry id → commits changing its governed files, newest first (see need)
	scanned  map[string]bool          // entry ids whose governed hits are in governed
	mu       sync.Mutex
	ancestry map[string]map[string]bool // sha → its ancestors (and itself) within the log
}

// codeCommit is a commit with its changed paths outside the knowledge base.
type codeCommit struct {
	commit *Commit
	code   []string
}

type governedHit struct {
	commit *Commit
	paths  []string
}

type lineageCache struct {
	mu       sync.Mutex
	snapshot string
	lin      *lineage
}

// lineage returns the history of st's snapshot, or nil when the engine has
// no history or the repository no commits.
func (e *Engine) lineage(ctx context.Context, st *State) (*lineage, error) {
	if !nativeBuild || e.opts.History == nil || st.Head == "" {
		return nil, nil
	}
	c := &e.lineageCache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snapshot == st.Snap.ID && c.lin != nil {
		return c.lin, nil
	}
	log, err := e.opts.History.Log(ctx, st.Head, st.Cfg.MaxCommits)
	if err != nil || log == nil {
		return nil, err
	}
	lin := &lineage{log: log, bySHA: make(map[string]*Commit, len(log.Commits)), order: make(map[string]int, len(log.Commits)), landed: map[string]string{},
		lastEdit: map[string]string{}, governed: map[string][]governedHit{}, scanned: map[string]bool{}, ancestry: map[string]map[string]bool{}}
	for i, c := range log.Commits {
		lin.bySHA[c.SHA] = c
		lin.order[c.SHA] = i
	}
	knowledge := st.KnowledgeFiles()
	ledgerPath := st.Cfg.Ledger()
	var ledgerCommits []*Commit
	for _, c := range log.Commits {
		if c.Merge {
			continue
		}
		var code []string
		for i, p := range c.Paths {
			if knowledge(p) {
				if _, seen := lin.lastEdit[p]; !seen {
					lin.lastEdit[p] = c.SHA
				}
				if p == ledgerPath {
					ledgerCommits = append(ledgerCommits, c)
				}
				if code == nil {
					code = append(make([]string, 0, len(c.Paths)), c.Paths[:i]...)
				}
				continue
			}
			if code != nil {
				code = append(code, p)
			}
		}
		if code == nil {
			code = c.Paths // no knowledge file: share the commit's list
		}
		if len(code) > 0 {
			lin.code = append(lin.code, codeCommit{c, code})
		}
	}
	// Oldest first: the first committed ledger version holding a line is
	// where it landed.
	for i := len(ledgerCommits) - 1; i >= 0; i-- {
		c := ledgerCommits[i]
		data, ok, err := e.opts.History.FileAt(ctx, c.SHA, ledgerPath)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimRight(line, "\r")
			if _, seen := lin.landed[line]; !seen && strings.TrimSpace(line) != "" {
				lin.landed[line] = c.SHA
			}
		}
	}
	c.snapshot, c.lin = st.Snap.ID, lin
	return lin, nil
}

// need computes the governed hits of the entries with the ids of ens that
// are not computed yet: one pass over the commits with a match index of
// just those entries. An answer about a few entries (governing one file,
// get) so matches a long history against a few globs, not against every
// entry's; the hits are kept for the snapshot's later calls.
func (l *lineage) need(st *State, ens []*entry.Entry) {
	l.gmu.Lock()
	defer l.gmu.Unlock()
	want := map[string]bool{}
	for _, en := range ens {
		if !l.scanned[en.ID] {
			want[en.ID] = true
		}
	}
	if len(want) == 0 {
		return
	}
	// The snapshot's entry with each wanted id takes part (a read's ids are
	// distinct; found by id, so a stored snapshot decodes only these);
	// inactive entries govern nothing.
	var sets []match.Set
	var owners []*entry.Entry
	for _, asked := range ens {
		en, ok := st.Snap.ByID(asked.ID)
		if !ok || !want[en.ID] || entry.Inactive(en.Status) {
			continue
		}
		want[en.ID] = false // once
		set := match.Set{Owner: len(owners)}
		owners = append(owners, en)
		for _, raw := range en.Paths {
			if p, err := match.Compile(raw); err == nil {
				set.Patterns = append(set.Patterns, p)
			}
		}
		if len(set.Patterns) > 0 {
			sets = append(sets, set)
		}
	}
	for _, en := range ens {
		l.scanned[en.ID] = true
	}
	if len(sets) == 0 {
		return
	}
	ix := match.NewIndex(sets)
	at := make([][]int32, len(owners)) // per owner: its governed paths in the commit, as indexes
	var hit []int                      // owners with paths in this commit
	for _, cc := range l.code {
		// In slices of paths: a lookup answers every (entry, path) match
		// at once, so a large commit over many entries would hold them all.
		for start := 0; start < len(cc.code); start += lookupSlice {
			part := cc.code[start:min(start+lookupSlice, len(cc.code))]
			for _, r := range ix.Lookup(part) {
				if len(at[r.Owner]) == 0 {
					hit = append(hit, r.Owner)
				}
				j := 0 // a result's matches come in input path order
				for _, m := range r.Matches {
					for j < len(part) && part[j] != m.Path {
						j++
					}
					if j < len(part) {
						at[r.Owner] = append(at[r.Owner], int32(start+j))
						j++
					}
				}
			}
		}
		sort.Ints(hit)
		for _, o := range hit {
			// An entry governing every path of the commit shares its list;
			// others get their own.
			ps := cc.code
			if len(at[o]) < len(cc.code) {
				ps = make([]string, len(at[o]))
				for k, i := range at[o] {
					ps[k] = cc.code[i]
				}
			}
			l.governed[owners[o].ID] = append(l.governed[owners[o].ID], governedHit{cc.commit, slices.Clip(ps)})
			at[o] = at[o][:0]
		}
		hit = hit[:0]
	}
}

// lookupSlice is how many paths of a commit one lookup asks about.
const lookupSlice = 256

// hits are en's governed hits; need must have been called for it.
func (l *lineage) hits(en *entry.Entry) []governedHit {
	l.gmu.Lock()
	defer l.gmu.Unlock()
	if !l.scanned[en.ID] {
		panic("engine: lineage hits of " + en.ID + " read before need")
	}
	return l.governed[en.ID]
}

// KnowledgeFiles returns the predicate for files excluded from drift and
// since counting: every file under a source dir, the config and the ledger.
func (st *State) KnowledgeFiles() func(string) bool {
	sources := st.Cfg.Sources()
	cfgPath, ledgerPath, overlayPath := st.Cfg.Path, st.Cfg.Ledger(), st.Cfg.Overlay()
	return func(p string) bool {
		if p == cfgPath || p == ledgerPath || p == overlayPath {
			return true
		}
		for _, src := range sources {
			d := src.Dir
			if d == "" {
				// A whole-tree source (AGENTS.md, Claude Code's files):
				// only the files it reads.
				if entry.IsRecordFile(p, src) {
					return true
				}
				continue
			}
			if p == d || strings.HasPrefix(p, d+"/") {
				return true
			}
		}
		return false
	}
}

// ancestors returns sha and every commit reachable from it within the log.
func (l *lineage) ancestors(sha string) map[string]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a, ok := l.ancestry[sha]; ok {
		return a
	}
	a := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if a[s] {
			continue
		}
		c, ok := l.bySHA[s]
		if !ok {
			continue
		}
		a[s] = true
		stack = append(stack, c.Parents...)
	}
	l.ancestry[sha] = a
	return a
}

// newer returns whichever of two commits is newer: the descendant when one
// reaches the other, else the later committer time.
func (l *lineage) newer(a, b string) string {
	if a == "" || l.bySHA[a] == nil {
		return b
	}
	if b == "" || l.bySHA[b] == nil {
		return a
	}
	if l.ancestors(a)[b] {
		return a
	}
	if l.ancestors(b)[a] {
		return b
	}
	if l.bySHA[b].Time.After(l.bySHA[a].Time) {
		return b
	}
	return a
}

// look is a point from which since counts.
type look struct {
	commit string    // a commit in HEAD's history, or ""
	at     time.Time // the look's time, for counting by time
}

// since counts commits changing en's governed files after lk.
func (l *lineage) since(en *entry.Entry, lk look) *api.Since {
	res := &api.Since{Head: l.log.Head, Paths: []string{}, Recent: []api.CommitLine{}, LowerBound: l.log.Shallow}
	var after func(c *Commit) bool
	switch {
	case lk.commit != "" && l.bySHA[lk.commit] != nil:
		anc := l.ancestors(lk.commit)
		after = func(c *Commit) bool { return !anc[c.SHA] }
	case lk.commit != "" && l.log.Truncated:
		// The look lies beyond the walked window: everything walked is after it.
		res.Truncated = true
		after = func(*Commit) bool { return true }
	default:
		after = func(c *Commit) bool { return c.Time.After(lk.at) }
	}
	paths := map[string]bool{}
	for _, h := range l.hits(en) {
		if !after(h.commit) {
			continue
		}
		res.Commits++
		for _, p := range h.paths {
			paths[p] = true
		}
		if len(res.Recent) < 5 {
			res.Recent = append(res.Recent, api.CommitLine{SHA: h.commit.SHA, Subject: h.commit.Subject})
		}
	}
	for p := range paths {
		res.Paths = append(res.Paths, p)
	}
	sort.Strings(res.Paths)
	if len(res.Paths) > 20 {
		res.Paths = res.Paths[:20]
	}
	return res
}

// ParseLookTime reads a checked value (YYYY-MM-DD or RFC 3339).
func ParseLookTime(s string) (time.Time, bool) {
	if s == "" { // most entries: no time.Parse (and its two errors) per entry shown
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), true
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// verify fills the history-derived fields of v.
func (e *Engine) verify(ctx context.Context, st *State, lin *lineage, en *entry.Entry, v *api.Entry, lines []*ledger.Line) error {
	var newest, newestConfirm, newestLook, newestVerified, newestVerify *ledger.Line
	for _, l := range lines {
		if newest == nil || !l.At.Before(newest.At) {
			newest = l
		}
		if l.Kind != ledger.KindVerify && (newestConfirm == nil || !l.At.Before(newestConfirm.At)) {
			newestConfirm = l
		}
		if !l.FailedVerify() && (newestLook == nil || !l.At.Before(newestLook.At)) {
			newestLook = l
		}
		if l.Verified() && (newestVerified == nil || !l.At.Before(newestVerified.At)) {
			newestVerified = l
		}
		if l.Kind == ledger.KindVerify && (newestVerify == nil || !l.At.Before(newestVerify.At)) {
			newestVerify = l
		}
	}
	checkedAt, hasChecked := ParseLookTime(en.Checked)
	if newestConfirm != nil && (!hasChecked || newestConfirm.At.After(checkedAt)) {
		at := newestConfirm.AtRaw
		v.Checked = &at
	}
	fileLanded := e.fileLanded(st, lin, en.File)
	cacheLook := func() *api.Verification {
		return &api.Verification{At: en.Checked, Kind: "cache", Source: "frontmatter", Landed: fileLanded}
	}
	switch {
	case newest != nil && (!hasChecked || !checkedAt.After(newest.At)):
		v.Verification = lineVerification(lin, newest)
	case hasChecked:
		v.Verification = cacheLook()
	}
	if newestVerified != nil {
		v.LastVerified = lineVerification(lin, newestVerified)
	}
	if newestVerify != nil && newestVerify.FailedVerify() {
		v.Failing = true
	}
	if !nativeBuild || lin == nil || entry.Inactive(en.Status) || len(en.Paths) == 0 {
		return nil
	}
	// since: from the newest look that is not a failed verify.
	var from *look
	if newestLook != nil {
		from = lineLook(lin, newestLook)
	}
	if hasChecked && (newestLook == nil || checkedAt.After(newestLook.At)) {
		lk := look{at: checkedAt}
		if fileLanded != nil {
			lk.commit = *fileLanded
		}
		from = &lk
	}
	if from != nil {
		v.Since = lin.since(en, *from)
	}
	if newestVerified != nil {
		lk := lineLook(lin, newestVerified)
		v.SinceVerified = lin.since(en, *lk)
		amended, err := e.amendedSince(ctx, st, en, lk.commit)
		if err != nil {
			return err
		}
		v.AmendedSince = amended
	}
	return nil
}

// lineLook is the point a ledger line looked from: the newer of the commit
// it names and the commit that landed it.
func lineLook(lin *lineage, l *ledger.Line) *look {
	named := ""
	if l.Commit != nil {
		named = *l.Commit
	}
	return &look{commit: lin.newer(named, lin.landed[l.Text]), at: l.At}
}

func lineVerification(lin *lineage, l *ledger.Line) *api.Verification {
	v := &api.Verification{At: l.AtRaw, Kind: l.Kind, Commit: l.Commit, By: strp(l.By), Because: strp(l.Because),
		Source: "ledger", Verified: l.Verified()}
	if l.Kind == ledger.KindVerify {
		p := l.Passed != nil && *l.Passed
		v.Passed = &p
	}
	if lin != nil {
		if sha, ok := lin.landed[l.Text]; ok {
			v.Landed = &sha
		}
	}
	return v
}

// fileLanded is the last commit that changed file, or nil while the file
// has uncommitted changes (or no history is known).
func (e *Engine) fileLanded(st *State, lin *lineage, file string) *string {
	if lin == nil {
		return nil
	}
	if p := st.Pub[file]; p.State != "committed" {
		return nil
	}
	if sha, ok := lin.lastEdit[file]; ok {
		return &sha
	}
	return nil
}

// amendedSince reports whether en's body differs from its body in commit
// (the last verifying look).
func (e *Engine) amendedSince(ctx context.Context, st *State, en *entry.Entry, commit string) (bool, error) {
	if commit == "" {
		return false, nil
	}
	data, ok, err := e.opts.History.FileAt(ctx, commit, en.File)
	if err != nil || !ok {
		return false, err // not committed yet at the look: nothing to compare
	}
	if kb.BlobID(data) == st.Snap.Blob(en.File) {
		return false, nil
	}
	src := entry.Source{Kind: en.Kind, Style: en.Style}
	old, _ := entry.Parse(en.File, data, src)
	return old == nil || strings.TrimSpace(old.Body) != strings.TrimSpace(en.Body), nil
}
