package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/ledger"
)

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Publish computes the publication of files (entry files or the config)
// that are not known yet. Only what a result shows is asked of git.
func (e *Engine) Publish(ctx context.Context, st *State, files []string) error {
	var todo []string
	for _, f := range files {
		if _, ok := st.Pub[f]; !ok && f != "" {
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	sort.Strings(todo)
	if !nativeBuild || e.opts.Git == nil {
		for _, f := range todo {
			st.Pub[f] = api.Publication{State: "snapshot", Revision: strp(st.Head), BlobHash: strp(e.blob(st, f))}
		}
		return nil
	}
	index, head, err := e.opts.Git.Blobs(ctx, todo)
	if err != nil {
		return err
	}
	for _, f := range todo {
		wt := e.blob(st, f)
		p := api.Publication{Revision: strp(st.Head)}
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
		st.Pub[f] = p
	}
	return nil
}

// blob is the git blob id of a knowledge file's working-tree content.
func (e *Engine) blob(st *State, file string) string {
	if file == st.Cfg.Path {
		return blobOf(st.Snap.ConfigText)
	}
	if file == st.Cfg.Overlay() && st.Snap.Overlay != nil {
		return blobOf(st.Snap.Overlay)
	}
	return st.Snap.Blob(file)
}

// Views publishes and renders entries in order.
func (e *Engine) Views(ctx context.Context, st *State, ens []*entry.Entry) ([]*api.Entry, error) {
	return e.views(ctx, st, ens, true)
}

// views is Views; without history the commit index is not read and the
// fields it fills stay null (as on an engine without git history).
func (e *Engine) views(ctx context.Context, st *State, ens []*entry.Entry, history bool) ([]*api.Entry, error) {
	files := make([]string, len(ens))
	for i, en := range ens {
		files[i] = en.File
	}
	if err := e.Publish(ctx, st, files); err != nil {
		return nil, err
	}
	byID := ledger.ByID(st.Snap.LedgerLines)
	var lin *lineage
	if history && nativeBuild {
		// Only an entry with a look (a ledger line, a checked date) has
		// history fields to fill: since counts from a look, and landed is
		// where one was committed. An answer without one reads no history.
		var looked []*entry.Entry
		for _, en := range ens {
			if _, checked := ParseLookTime(en.Checked); checked || len(byID[en.ID]) > 0 {
				looked = append(looked, en)
			}
		}
		if len(looked) > 0 {
			var err error
			if lin, err = e.lineage(ctx, st); err != nil {
				return nil, err
			}
			if lin != nil {
				lin.need(st, looked)
			}
		}
	}
	out := make([]*api.Entry, len(ens))
	for i, en := range ens {
		out[i] = e.View(st, en)
		if err := e.verify(ctx, st, lin, en, out[i], byID[en.ID]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pageViews is views, or for the compact view only the fields it shows:
// no publication, premises or verification state, which it sends none of
// (building them was nearly half of a compact governing answer's work in
// WASM).
func (e *Engine) pageViews(ctx context.Context, st *State, ens []*entry.Entry, history, compact bool) ([]*api.Entry, error) {
	if !compact {
		return e.views(ctx, st, ens, history)
	}
	out := make([]*api.Entry, len(ens))
	for i, en := range ens {
		out[i] = &api.Entry{ID: en.ID, Kind: en.Kind, Title: en.Title, Body: en.Body, File: en.File,
			Summary: strp(en.Summary), Status: strp(en.Status), ReviewDue: en.ReviewBy != "" && e.Today() > en.ReviewBy}
	}
	return out, nil
}

func (e *Engine) ConfigSource(ctx context.Context, st *State) (api.ConfigSource, error) {
	if st.Cfg.Path == "" {
		return api.ConfigSource{Kind: "defaults"}, nil
	}
	if err := e.Publish(ctx, st, []string{st.Cfg.Path}); err != nil {
		return api.ConfigSource{}, err
	}
	kind := "worktree"
	switch st.Pub[st.Cfg.Path].State {
	case "committed":
		kind = "committed"
	case "snapshot":
		kind = "snapshot"
	}
	return api.ConfigSource{Kind: kind, Path: strp(st.Cfg.Path)}, nil
}

// View builds the read shape of en.
func (e *Engine) View(st *State, en *entry.Entry) *api.Entry {
	v := &api.Entry{
		ID: en.ID, Kind: en.Kind, Title: en.Title, Body: en.Body,
		Summary: strp(en.Summary), Status: strp(en.Status), StatusRaw: strp(en.StatusRaw),
		Date: strp(en.Date), DateRaw: strp(en.DateRaw), ReviewBy: strp(en.ReviewBy),
		ReadOnly: en.ReadOnly, Checked: strp(en.Checked), Verify: strp(en.Verify),
		Visibility: en.Visibility, Paths: nonNil(en.Paths), PathsSource: en.PathsSource, Tags: nonNil(en.Tags),
		Supersedes: nonNil(en.Supersedes), SupersededBy: nonNil(en.SupersededBy),
		Extends: nonNil(en.Extends), Commits: nonNil(en.Commits),
		File: en.File, Markdown: en.Markdown, Style: en.Style,
		Revision: st.Snap.Blob(en.File), Publication: st.Pub[en.File], Extra: en.Extra,
		Premises: e.premises(st, en), Links: []api.Link{},
	}
	for _, l := range en.Links {
		v.Links = append(v.Links, api.Link(l))
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
	v.ReviewDue = en.ReviewBy != "" && e.Today() > en.ReviewBy
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
func (e *Engine) premises(st *State, en *entry.Entry) []api.Premise {
	out := []api.Premise{}
	if entry.Inactive(en.Status) {
		return out
	}
	var refs []string
	refs = wikiLinks(refs, en.Body)
	refs = append(refs, en.Supersedes...)
	refs = append(refs, en.Extends...)
	for _, l := range en.Links {
		refs = append(refs, l.Target) // a record this one amends, depends on, …
	}
	if len(refs) == 0 {
		return out
	}
	seen := map[string]bool{en.ID: true}
	for _, id := range refs {
		if seen[id] {
			continue
		}
		seen[id] = true
		dep, ok := st.Snap.ByID(id)
		if !ok || !entry.Inactive(dep.Status) {
			continue
		}
		if contains(dep.SupersededBy, en.ID) {
			continue
		}
		out = append(out, api.Premise{ID: dep.ID, Status: strp(dep.Status), SupersededBy: nonNil(dep.SupersededBy)})
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

// wikiLinks appends the ids of the [[id]] and [[id|label]] links in body:
// an id has no brackets, spaces or "|", a label no "]".
func wikiLinks(ids []string, body string) []string {
	for i := 0; i+1 < len(body); {
		k := strings.Index(body[i:], "[[")
		if k < 0 {
			break
		}
		i += k
		j := i + 2
		for j < len(body) && !strings.ContainsRune("[]|\t\n\f\r ", rune(body[j])) {
			j++
		}
		end := j
		if j > i+2 && j < len(body) && body[j] == '|' {
			end = j + 1 + strings.IndexByte(body[j+1:], ']')
			if end == j {
				end = len(body) // no "]": no match
			}
		}
		if j > i+2 && strings.HasPrefix(body[end:], "]]") {
			ids = append(ids, body[i+2:j])
			i = end + 2
			continue
		}
		i++
	}
	return ids
}
