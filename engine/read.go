package engine

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/kb"
	"github.com/kontext/kontext/engine/internal/match"
	"github.com/kontext/kontext/engine/internal/repopath"
)

// Bounds of the numeric inputs (the schema's maximums say the same): every number a caller
// passes is checked before it is used in arithmetic, so no input can overflow an index.
const (
	MaxOffset         = 1_000_000_000
	MaxGoverningLimit = 100_000
	MaxSpecificity    = 100_000
	MaxBudgetLines    = 1_000_000
)

func limitOf(field string, p *int, def, max int) (int, error) {
	if p == nil {
		return def, nil
	}
	if *p < 1 || (max > 0 && *p > max) {
		if max > 0 {
			return 0, jsonin.Errorf(field, "must be between 1 and %d, got %d", max, *p)
		}
		return 0, jsonin.Errorf(field, "must be at least 1, got %d", *p)
	}
	return *p, nil
}

func normKinds(kinds []string) (map[string]bool, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	out := map[string]bool{}
	for _, k := range kinds {
		n, ok := entry.NormalizeKind(k)
		if !ok {
			return nil, jsonin.Errorf("kinds", "unknown kind %q; kinds are %s (alias adr)", k, strings.Join(entry.Kinds, ", "))
		}
		out[n] = true
	}
	return out, nil
}

func runList(ctx context.Context, e *Engine, in *api.ListInput) (*api.ListResult, error) {
	limit, err := limitOf("limit", in.Limit, 100, 500)
	if err != nil {
		return nil, err
	}
	if in.Offset < 0 || in.Offset > MaxOffset {
		return nil, jsonin.Errorf("offset", "must be between 0 and %d, got %d", MaxOffset, in.Offset)
	}
	if in.Cursor != "" && in.Offset != 0 {
		return nil, apierr.Invalid("pass offset or cursor, not both")
	}
	kinds, err := normKinds(in.Kinds)
	if err != nil {
		return nil, err
	}
	compact, err := viewOf(in.View)
	if err != nil {
		return nil, err
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	q := fingerprint("list", in.Kinds, in.Tags, strconv.FormatBool(in.ActiveOnly))
	if in.Cursor != "" {
		if in.Offset, err = readCursor(in.Cursor, st.Snap.ID, q); err != nil {
			return nil, err
		}
	}
	var picked []*entry.Entry
	for _, en := range st.Snap.Entries() {
		if in.ActiveOnly && entry.Inactive(en.Status) {
			continue
		}
		if kinds != nil && !kinds[en.Kind] {
			continue
		}
		if len(in.Tags) > 0 && !anyIn(en.Tags, in.Tags) {
			continue
		}
		picked = append(picked, en)
	}
	res := &api.ListResult{Entries: []*api.Entry{}, Total: len(picked), Snapshot: st.Snap.ID, Diagnostics: st.Snap.Diagnostics}
	if res.Diagnostics == nil {
		res.Diagnostics = []entry.Diagnostic{}
	}
	page := picked[min(in.Offset, len(picked)):min(in.Offset+limit, len(picked))]
	// The compact view sends no history-derived field: it never reads the commit index.
	views, err := e.pageViews(ctx, st, page, (in.History == nil || *in.History) && !compact, compact)
	if err != nil {
		return nil, err
	}
	res.Entries, res.Items = inView(views, compact, false)
	if res.NextCursor = nextCursor(st.Snap.ID, q, in.Offset+limit, len(picked)); res.NextCursor != "" {
		next := in.Offset + limit
		res.NextOffset = &next
	}
	return res, nil
}

// viewOf checks a view input: true for compact.
func viewOf(v string) (bool, error) {
	switch v {
	case "", "full":
		return false, nil
	case "compact":
		return true, nil
	}
	return false, jsonin.Errorf("view", "must be full or compact, got %q", v)
}

func anyIn(have, want []string) bool {
	for _, w := range want {
		for _, h := range have {
			if strings.EqualFold(h, w) {
				return true
			}
		}
	}
	return false
}

func runGet(ctx context.Context, e *Engine, in *api.GetInput) (*api.Entry, error) {
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	id := in.ID
	if repopath.IsAbs(strings.ReplaceAll(id, "\\", "/")) {
		// An entry file named by its absolute path, as agents send them.
		if id, err = e.repoPath(id); err != nil {
			return nil, jsonin.Errorf("id", "%v", err)
		}
	}
	en, err := st.Snap.Lookup(id)
	if err != nil {
		return nil, err
	}
	vs, err := e.Views(ctx, st, []*entry.Entry{en})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

func runSearch(ctx context.Context, e *Engine, in *api.SearchInput) (*api.SearchResult, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, jsonin.Errorf("query", "is empty; pass the words to search for")
	}
	limit, err := limitOf("limit", in.Limit, 20, 500)
	if err != nil {
		return nil, err
	}
	compact, err := viewOf(in.View)
	if err != nil {
		return nil, err
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	q := fingerprint("search", []string{in.Query}, nil, strconv.FormatBool(in.ActiveOnly))
	offset, err := readCursor(in.Cursor, st.Snap.ID, q)
	if err != nil {
		return nil, err
	}
	res := &api.SearchResult{Snapshot: st.Snap.ID}
	var hits []*entry.Entry
	var scores []float64
	for _, h := range st.Snap.Search().Search(in.Query) {
		en := st.Snap.Entries()[h.Doc]
		if in.ActiveOnly && entry.Inactive(en.Status) {
			continue
		}
		res.Total++
		if res.Total > offset && len(hits) < limit {
			hits = append(hits, en)
			scores = append(scores, h.Score)
		}
	}
	res.NextCursor = nextCursor(st.Snap.ID, q, offset+limit, res.Total)
	views, err := e.pageViews(ctx, st, hits, !compact, compact)
	if err != nil {
		return nil, err
	}
	for i := range views {
		views[i].Score = &scores[i]
	}
	res.Entries, res.Items = inView(views, compact, false)
	return res, nil
}

// fingerprint is the question a cursor belongs to (operation and
// inputs), so a cursor is never applied to another question's answer: a
// 64-bit FNV-1a of the length-prefixed inputs (a guard against mistakes,
// not a secret; written out so the WASM engine links no hash code for it).
func fingerprint(op string, a, b []string, flags string) string {
	h := uint64(14695981039346656037)
	add := func(s string) {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
	}
	add(op)
	for _, xs := range [][]string{a, b} {
		add("\x00")
		for _, x := range xs {
			add(strconv.Itoa(len(x)) + ":" + x)
		}
	}
	add("\x00" + flags)
	return strconv.FormatUint(h, 16)
}

func runGoverning(ctx context.Context, e *Engine, in *api.GoverningInput) (*api.GoverningResult, error) {
	if in.Paths == nil {
		return nil, jsonin.Errorf("paths", "is required: pass the repo-relative paths to look up")
	}
	paths, err := e.normPaths("paths", in.Paths)
	if err != nil {
		return nil, err
	}
	limit, err := limitOf("limit", in.Limit, 0, MaxGoverningLimit)
	if err != nil {
		return nil, err
	}
	if in.MinSpecificity < 0 || in.MinSpecificity > MaxSpecificity {
		return nil, jsonin.Errorf("min_specificity", "must be between 0 and %d, got %d", MaxSpecificity, in.MinSpecificity)
	}
	compact, err := viewOf(in.View)
	if err != nil {
		return nil, err
	}
	var cq *clientQuery
	if in.Client != "" {
		rule, cwd, err := e.normClient(in.Client, in.Cwd)
		if err != nil {
			return nil, err
		}
		cq = &clientQuery{rule: rule, cwd: cwd}
	} else if in.Cwd != "" {
		return nil, jsonin.Errorf("cwd", "is the start directory of a client: pass client too (one of %s)", clientNames())
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	flags := strconv.Itoa(in.MinSpecificity)
	if cq != nil {
		flags += "\x00" + cq.rule.Name + "\x00" + cq.cwd
	}
	q := fingerprint("governing", paths, in.ExcludeIDs, flags)
	offset, err := readCursor(in.Cursor, st.Snap.ID, q)
	if err != nil {
		return nil, err
	}
	// The compact view sends no history-derived field: it never reads the commit index.
	history := (in.History == nil || *in.History) && !compact
	res, err := e.governingPage(ctx, st, paths, in.ExcludeIDs, in.MinSpecificity, offset, limit, history, compact, cq)
	if err != nil {
		return nil, err
	}
	if limit > 0 {
		res.NextCursor = nextCursor(st.Snap.ID, q, offset+limit, res.Total)
	}
	res.Entries, res.Items = inView(res.Entries, compact, len(paths) > 1)
	return res, nil
}

// inView is a page in the asked view: the entries as they are (never nil,
// so the full view always sends entries, [] when nothing matches), or
// (compact) no entries (nil: the key is left out) and their short records
// (never nil: items is always sent).
func inView(es []*api.Entry, compact, manyPaths bool) ([]*api.Entry, []*api.CompactEntry) {
	if !compact {
		if es == nil {
			es = []*api.Entry{}
		}
		return es, nil
	}
	return nil, compactEntries(es, manyPaths)
}

// compactEntries is the compact view of entries (view: compact): one
// short record each, the body only when it is short; manyPaths adds the
// asked paths a governing entry matched.
func compactEntries(es []*api.Entry, manyPaths bool) []*api.CompactEntry {
	out := make([]*api.CompactEntry, len(es))
	for i, v := range es {
		c := &api.CompactEntry{ID: v.ID, Kind: v.Kind, Title: v.Title, Summary: v.Summary, Status: v.Status, File: v.File,
			ReviewDue: v.ReviewDue, Specificity: v.Specificity, Score: v.Score, Load: v.Load, BytesLoaded: v.BytesLoaded, Reason: v.Reason}
		var seen map[string]bool // only when the paths are listed
		if manyPaths {
			seen = map[string]bool{}
		}
		for _, m := range v.Matches {
			if v.Specificity != nil && m.Specificity == *v.Specificity && c.Rule == "" {
				c.Rule = m.Rule
			}
			if manyPaths && !seen[m.Path] {
				seen[m.Path] = true
				c.Paths = append(c.Paths, m.Path)
			}
		}
		if body := strings.TrimSpace(v.Body); len(body) <= api.CompactBodyMax {
			c.Body = body
		} else {
			c.BodyBytes = len(body)
		}
		out[i] = c
	}
	return out
}

// nextCursor is the cursor of the page from next, "" when next is past
// the answer's total. A cursor is opaque to clients: base64url of
// "g1 <snapshot> <query> <offset>".
func nextCursor(snapshot, query string, next, total int) string {
	if next >= total {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte("g1 " + snapshot + " " + query + " " + strconv.Itoa(next)))
}

// readCursor is the offset a cursor names (0 without one), checked
// against the question and the snapshot it was made for.
func readCursor(c, snapshot, query string) (int, error) {
	if c == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	f := strings.Fields(string(raw))
	if err != nil || len(f) != 4 || f[0] != "g1" {
		return 0, jsonin.Errorf("cursor", "is not a cursor kontext made; pass next_cursor of the previous page, or leave it out for the first page")
	}
	off, err := strconv.Atoi(f[3])
	if err != nil || off < 0 || off > MaxOffset {
		return 0, jsonin.Errorf("cursor", "is not a cursor kontext made; pass next_cursor of the previous page, or leave it out for the first page")
	}
	if f[2] != query {
		return 0, jsonin.Errorf("cursor", "belongs to another question (other inputs than the page it came from); ask with the same inputs, or leave it out for the first page")
	}
	if f[1] != snapshot {
		return 0, apierr.New(apierr.StaleCursor, "the knowledge changed since this cursor was made (snapshot %s, now %s); ask again without cursor for the current answer", short(f[1]), short(snapshot))
	}
	return off, nil
}

func (e *Engine) governing(ctx context.Context, st *State, paths, exclude []string, minSpec, limit int, history bool) (*api.GoverningResult, error) {
	return e.governingPage(ctx, st, paths, exclude, minSpec, 0, limit, history, false, nil)
}

// governingPage is the governing answer from offset, at most limit entries
// (0: all); compact: its entries only as the compact view shows them;
// cq: as that client loads them (nil: as kontext orders them).
func (e *Engine) governingPage(ctx context.Context, st *State, paths, exclude []string, minSpec, offset, limit int, history, compact bool, cq *clientQuery) (*api.GoverningResult, error) {
	var skip func(owner int) bool // nil when nothing is excluded: no entry decoded to ask
	if len(exclude) > 0 {
		excluded := map[string]bool{}
		for _, id := range exclude {
			excluded[id] = true
		}
		skip = func(o int) bool { return excluded[st.Snap.Entry(o).ID] }
	}
	res := &api.GoverningResult{Snapshot: st.Snap.ID}
	hits := governingHits(st.Snap.Governing().Lookup(paths), minSpec, skip,
		func(o int) (int, string) { en := st.Snap.Entry(o); return kb.KindRank(en.Kind), en.ID })
	if cq != nil {
		return e.clientPage(ctx, st, paths, exclude, hits, offset, limit, history, compact, cq)
	}
	res.Total = len(hits)
	hits = hits[min(offset, len(hits)):]
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	ens := make([]*entry.Entry, len(hits))
	for i, h := range hits {
		ens[i] = st.Snap.Entry(h.Owner)
	}
	views, err := e.pageViews(ctx, st, ens, history, compact)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, h := range hits {
		n += len(h.Matches)
	}
	all := make([]api.Match, 0, n) // one array for the page's matches
	for i, v := range views {
		start := len(all)
		for _, m := range hits[i].Matches {
			all = append(all, api.Match{Path: m.Path, Rule: m.Rule, Specificity: m.Specificity})
		}
		v.Matches = all[start:len(all):len(all)]
		v.Specificity = &hits[i].Best
	}
	res.Entries = views
	if e.boundaries != nil {
		res.Boundaries = e.boundaries(e.FS(), paths)
	}
	return res, nil
}

// governingHit is one governing entry of an answer: its owner (the
// entry's index in the snapshot), the matches at or above the minimum
// specificity, and the best of them.
type governingHit struct {
	Owner   int
	Matches []match.Match
	Best    int
}

// governingHits filters and orders index lookup results as
// entries.governing answers them: matches below minSpec dropped (and
// entries left with none), skip(owner) entries left out, then the most
// specific first and, among equals, kind rank and id ascending (key).
func governingHits(rs []match.Result, minSpec int, skip func(owner int) bool, key func(owner int) (rank int, id string)) []governingHit {
	var hits []governingHit
	for _, r := range rs {
		if skip != nil && skip(r.Owner) {
			continue
		}
		ms := r.Matches // kept as the lookup laid them out when none is dropped
		best := -1
		if minSpec > 0 {
			ms = nil
		}
		for _, m := range r.Matches {
			if m.Specificity < minSpec {
				continue
			}
			if minSpec > 0 {
				ms = append(ms, m)
			}
			best = max(best, m.Specificity)
		}
		if len(ms) > 0 {
			hits = append(hits, governingHit{Owner: r.Owner, Matches: ms, Best: best})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Best != b.Best {
			return a.Best > b.Best
		}
		ra, ida := key(a.Owner)
		rb, idb := key(b.Owner)
		if ra != rb {
			return ra < rb
		}
		return ida < idb
	})
	return hits
}

const maxRelated = 5

func runRelated(ctx context.Context, e *Engine, in *api.RelatedInput) (*api.RelatedResult, error) {
	useModel, err := wantsModel(in.LLM)
	if err != nil {
		return nil, err
	}
	if useModel && e.opts.RelatedModel == nil {
		return nil, apierr.New(apierr.ModelUnavailable, "entries.related with llm needs the native CLI with a locally configured model; call it without llm here")
	}
	if strings.TrimSpace(in.Text) == "" && len(in.Paths) == 0 {
		return nil, apierr.Invalid("pass text, paths or both to find related entries")
	}
	var patterns []match.Pattern
	for _, raw := range in.Paths {
		n, err := e.repoPath(strings.TrimPrefix(raw, "!"))
		if err != nil {
			return nil, jsonin.Errorf("paths", "%v", err)
		}
		p, err := match.Compile(n)
		if err != nil {
			return nil, jsonin.Errorf("paths", "%q: %v", raw, err)
		}
		patterns = append(patterns, p)
	}
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	excluded := map[string]bool{}
	for _, id := range in.ExcludeIDs {
		excluded[id] = true
	}
	res := &api.RelatedResult{Candidates: []api.Candidate{}, Snapshot: st.Snap.ID}
	seen := map[string]bool{}
	add := func(en *entry.Entry, reason string) {
		if len(res.Candidates) >= maxRelated || seen[en.ID] || excluded[en.ID] || entry.Inactive(en.Status) {
			return
		}
		seen[en.ID] = true
		res.Candidates = append(res.Candidates, api.Candidate{ID: en.ID, Title: en.Title, Kind: en.Kind, Status: strp(en.Status),
			Reason: reason, Label: "related, check", Revision: st.Snap.Blob(en.File)})
	}
	if strings.TrimSpace(in.Text) != "" {
		ix, active := st.Snap.ActiveSearch()
		for _, h := range ix.Similar(in.Text) {
			add(active[h.Doc], "similar wording: "+strings.Join(h.Terms, ", "))
		}
	}
	if len(patterns) > 0 {
		// Narrow overlaps first: a catch-all "**" rule is the weakest relation.
		type hit struct {
			en   *entry.Entry
			rule string
			spec int
		}
		var hits []hit
		for _, en := range st.Snap.Entries() {
			if rule, spec, ok := overlapping(en, patterns); ok {
				hits = append(hits, hit{en, rule, spec})
			}
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].spec > hits[j].spec })
		for _, h := range hits {
			add(h.en, "overlapping paths: "+h.rule)
		}
	}
	addLinked(st, res.Candidates, in.ExcludeIDs, add)
	if useModel {
		if err := e.opts.RelatedModel(ctx, e, in, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// overlapping returns the most specific positive pattern of en that can
// match a path one of with can match.
func overlapping(en *entry.Entry, with []match.Pattern) (string, int, bool) {
	best, spec, found := "", -1, false
	for _, raw := range en.Paths {
		p, err := match.Compile(raw)
		if err != nil || p.Negated || p.Specificity <= spec {
			continue
		}
		for _, q := range with {
			if match.Overlap(p, q) {
				best, spec, found = raw, p.Specificity, true
				break
			}
		}
	}
	return best, spec, found
}

// WantsModel reads an llm input: false/absent, true (the selected
// adapter, name "") or an adapter name.
func WantsModel(raw json.RawMessage) (use bool, name string, err error) {
	use, err = wantsModel(raw)
	if use {
		_ = json.Unmarshal(raw, &name)
	}
	return use, name, err
}

func wantsModel(raw json.RawMessage) (bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err == nil {
		return b, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s != "", nil
	}
	return false, jsonin.Errorf("llm", "must be a boolean or an adapter name, got %s", fmt.Sprint(string(raw)))
}
