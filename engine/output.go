package engine

import (
	"context"
	"regexp"
	"sort"

	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/ledger"
)

// Publication says how far an entry's file has travelled towards the team.
type Publication struct {
	State    string  `json:"state"`
	Revision *string `json:"revision"`
	BlobHash *string `json:"blob_hash"`
}

// ConfigSource says where the configuration came from.
type ConfigSource struct {
	Kind string  `json:"kind"` // committed | worktree | defaults | snapshot
	Path *string `json:"path"`
}

// Premise is an entry that another active entry relies on and that is no
// longer active.
type Premise struct {
	ID           string   `json:"id"`
	Status       *string  `json:"status"`
	SupersededBy []string `json:"superseded_by"`
}

// Match is one governed path of a governing result.
type Match struct {
	Path        string `json:"path"`
	Rule        string `json:"rule"`
	Specificity int    `json:"specificity"`
}

// Entry is the read shape of an entry in every result.
type Entry struct {
	ID           string         `json:"id"`
	Kind         string         `json:"kind"`
	Title        string         `json:"title"`
	Body         string         `json:"body"`
	Summary      *string        `json:"summary"`
	Status       *string        `json:"status"`
	StatusRaw    *string        `json:"status_raw"`
	Date         *string        `json:"date"`
	DateRaw      *string        `json:"date_raw"`
	ReviewBy     *string        `json:"review_by"`
	ReviewDue    bool           `json:"review_due"`
	Authority    bool           `json:"authority"`
	ReadOnly     bool           `json:"read_only"`
	Checked      *string        `json:"checked"`
	Verify       *string        `json:"verify"`
	Visibility   string         `json:"visibility"`
	Paths        []string       `json:"paths"`
	PathsSource  string         `json:"paths_source"` // file | overlay | both (the committed path overlay)
	Tags         []string       `json:"tags"`
	Supersedes   []string       `json:"supersedes"`
	SupersededBy []string       `json:"superseded_by"`
	Extends      []string       `json:"extends"`
	Commits      []string       `json:"commits"`
	File         string         `json:"file"`
	Markdown     string         `json:"markdown"`
	Style        string         `json:"style"`
	ADRNumber    *int           `json:"adr_number"`
	Revision     string         `json:"revision"`
	Publication  Publication    `json:"publication"`
	Extra        map[string]any `json:"extra"`
	// History-derived fields (03-reads.md); null without git history.
	Verification  *Verification `json:"verification"`
	LastVerified  *Verification `json:"last_verified"`
	Since         *Since        `json:"since"`
	SinceVerified *Since        `json:"since_verified"`
	Premises      []Premise     `json:"premises"`
	Failing       bool          `json:"failing,omitempty"`
	AmendedSince  bool          `json:"amended_since,omitempty"`
	// Set by search and governing only.
	Score       *float64 `json:"score,omitempty"`
	Specificity *int     `json:"specificity,omitempty"`
	Matches     []Match  `json:"matches,omitempty"`
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// publish computes the publication of files (entry files or the config)
// that are not known yet. Only what a result shows is asked of git.
func (e *Engine) publish(ctx context.Context, st *state, files []string) error {
	var todo []string
	for _, f := range files {
		if _, ok := st.pub[f]; !ok && f != "" {
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	sort.Strings(todo)
	if e.opts.Git == nil {
		for _, f := range todo {
			st.pub[f] = Publication{State: "snapshot", Revision: strp(st.head), BlobHash: strp(e.blob(st, f))}
		}
		return nil
	}
	index, head, err := e.opts.Git.Blobs(ctx, todo)
	if err != nil {
		return err
	}
	for _, f := range todo {
		wt := e.blob(st, f)
		p := Publication{Revision: strp(st.head)}
		idx, inIndex := index[f]
		switch {
		case !inIndex:
			p.State = "untracked"
		case idx != wt:
			p.State = "modified"
		case head[f] != idx:
			p.State, p.BlobHash = "staged", strp(idx)
		default:
			p.State, p.BlobHash = "committed", strp(idx)
		}
		st.pub[f] = p
	}
	return nil
}

// blob is the git blob id of a knowledge file's working-tree content.
func (e *Engine) blob(st *state, file string) string {
	if file == st.cfg.Path {
		return blobOf(st.snap.ConfigText)
	}
	return st.snap.Blobs[file]
}

// views publishes and renders entries in order.
func (e *Engine) views(ctx context.Context, st *state, ens []*entry.Entry) ([]*Entry, error) {
	files := make([]string, len(ens))
	for i, en := range ens {
		files[i] = en.File
	}
	if err := e.publish(ctx, st, files); err != nil {
		return nil, err
	}
	lin, err := e.lineage(ctx, st)
	if err != nil {
		return nil, err
	}
	byID := ledger.ByID(st.snap.LedgerLines)
	out := make([]*Entry, len(ens))
	for i, en := range ens {
		out[i] = e.view(st, en)
		if err := e.verify(ctx, st, lin, en, out[i], byID[en.ID]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (e *Engine) configSource(ctx context.Context, st *state) (ConfigSource, error) {
	if st.cfg.Path == "" {
		return ConfigSource{Kind: "defaults"}, nil
	}
	if err := e.publish(ctx, st, []string{st.cfg.Path}); err != nil {
		return ConfigSource{}, err
	}
	kind := "worktree"
	switch st.pub[st.cfg.Path].State {
	case "committed":
		kind = "committed"
	case "snapshot":
		kind = "snapshot"
	}
	return ConfigSource{Kind: kind, Path: strp(st.cfg.Path)}, nil
}

var wikiLink = regexp.MustCompile(`\[\[([^\[\]\s|]+)(?:\|[^\]]*)?\]\]`)

// view builds the read shape of en.
func (e *Engine) view(st *state, en *entry.Entry) *Entry {
	v := &Entry{
		ID: en.ID, Kind: en.Kind, Title: en.Title, Body: en.Body,
		Summary: strp(en.Summary), Status: strp(en.Status), StatusRaw: strp(en.StatusRaw),
		Date: strp(en.Date), DateRaw: strp(en.DateRaw), ReviewBy: strp(en.ReviewBy),
		ReadOnly: en.ReadOnly, Checked: strp(en.Checked), Verify: strp(en.Verify),
		Visibility: en.Visibility, Paths: nonNil(en.Paths), PathsSource: en.PathsSource, Tags: nonNil(en.Tags),
		Supersedes: nonNil(en.Supersedes), SupersededBy: nonNil(en.SupersededBy),
		Extends: nonNil(en.Extends), Commits: nonNil(en.Commits),
		File: en.File, Markdown: en.Markdown, Style: en.Style,
		Revision: st.snap.Blobs[en.File], Publication: st.pub[en.File], Extra: en.Extra,
		Premises: e.premises(st, en),
	}
	if v.Visibility == "" {
		v.Visibility = "team"
	}
	if v.PathsSource == "" {
		v.PathsSource = "file" // an entry parsed outside a knowledge-base read
	}
	if v.Extra == nil {
		v.Extra = map[string]any{}
	}
	if en.HasADRNumber {
		n := en.ADRNumber
		v.ADRNumber = &n
	}
	v.ReviewDue = en.ReviewBy != "" && e.now().Format("2006-01-02") > en.ReviewBy
	v.Authority = authority(en)
	return v
}

// authority: an accepted decision, or any other active team-visible entry.
func authority(en *entry.Entry) bool {
	if en.Visibility == "private" || entry.Inactive(en.Status) {
		return false
	}
	if en.Kind == "decision" {
		return en.Status == "accepted"
	}
	return true
}

// premises lists the inactive entries an active entry relies on, except
// the one it superseded itself.
func (e *Engine) premises(st *state, en *entry.Entry) []Premise {
	out := []Premise{}
	if entry.Inactive(en.Status) {
		return out
	}
	seen := map[string]bool{en.ID: true}
	var refs []string
	for _, m := range wikiLink.FindAllStringSubmatch(en.Body, -1) {
		refs = append(refs, m[1])
	}
	refs = append(refs, en.Supersedes...)
	refs = append(refs, en.Extends...)
	for _, id := range refs {
		if seen[id] {
			continue
		}
		seen[id] = true
		dep, ok := st.snap.ByID(id)
		if !ok || !entry.Inactive(dep.Status) {
			continue
		}
		if contains(dep.SupersededBy, en.ID) {
			continue
		}
		out = append(out, Premise{ID: dep.ID, Status: strp(dep.Status), SupersededBy: nonNil(dep.SupersededBy)})
	}
	return out
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
