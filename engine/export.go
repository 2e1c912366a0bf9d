package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

func runChanged(ctx context.Context, e *Engine, in *api.ChangedInput) (*api.ChangedResult, error) {
	h, kinds, err := e.historyFor(in.Kinds)
	if err != nil {
		return nil, err
	}
	var shas [2]string
	for i, f := range []struct{ name, rev string }{{"base", in.Base}, {"head", in.Head}} {
		rev, err := revision(f.name, f.rev)
		if err != nil {
			return nil, err
		}
		if shas[i], err = h.Resolve(ctx, rev); err != nil {
			return nil, err
		}
	}
	// A revision without a configuration is read with head's, else the
	// working tree's (spec 04): a range from before adoption compares the
	// entries the configuration names, with a warning per such revision.
	var warnings []string
	var engs [2]*Engine
	for i, sha := range shas {
		eng, warning, err := e.AtRevision(ctx, sha, shas[1])
		if err != nil {
			return nil, err
		}
		engs[i] = eng
		if warning != "" && (i == 0 || shas[0] != shas[1]) {
			warnings = append(warnings, warning)
		}
	}
	res, err := changed(ctx, engs[0], engs[1])
	if err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, warnings...)
	kept := res.Changes[:0]
	for _, c := range res.Changes {
		if kinds[c.Kind] {
			kept = append(kept, c)
		}
	}
	res.Changes = kept
	return res, nil
}

func runExport(ctx context.Context, e *Engine, in *api.ExportInput) (*api.ExportResult, error) {
	if !fullSHA(in.Revision) {
		return nil, jsonin.Errorf("revision", "%q is not a full 40-hex commit sha; export pins an exact reviewed commit", in.Revision)
	}
	if !strings.HasPrefix(in.ReviewRef, "refs/") || strings.HasPrefix(in.ReviewRef, "-") || !refNameOK(in.ReviewRef) {
		return nil, jsonin.Errorf("review_ref", "%q is not a full ref name such as refs/remotes/origin/main", in.ReviewRef)
	}
	var patterns []string
	if in.Paths != nil {
		var err error
		if patterns, err = e.normPaths("paths", in.Paths); err != nil {
			return nil, err
		}
	}
	h, _, err := e.historyFor(nil)
	if err != nil {
		return nil, err
	}
	tip, err := h.RefTip(ctx, in.ReviewRef)
	if err != nil {
		return nil, err
	}
	if tip != in.Revision {
		return nil, apierr.New(apierr.StaleEntry, "%s now points at %s, not %s; export the current tip", in.ReviewRef, tip, in.Revision)
	}
	eng, err := e.atCommit(ctx, in.Revision)
	if err != nil {
		return nil, err
	}
	st, err := eng.Read(ctx)
	if err != nil {
		return nil, err
	}
	res := &api.ExportResult{Revision: in.Revision, ReviewRef: in.ReviewRef, Entries: []api.ExportEntry{}}
	if st.Cfg.Path != "" {
		res.ConfigSource = api.ExportSource{Kind: "committed", Path: strp(st.Cfg.Path), Blob: strp(blobOf(st.Snap.ConfigText))}
	} else {
		res.ConfigSource = api.ExportSource{Kind: "defaults", Storage: strp(st.Cfg.Storage)}
	}
	lin, err := eng.lineage(ctx, st)
	if err != nil {
		return nil, err
	}
	keep := func(*entry.Entry) bool { return true }
	if patterns != nil {
		governs := map[int]bool{}
		for _, r := range st.Snap.Governing().Lookup(patterns) {
			governs[r.Owner] = true
		}
		index := map[*entry.Entry]int{}
		for i, en := range st.Snap.Entries() {
			index[en] = i
		}
		keep = func(en *entry.Entry) bool { return governs[index[en]] }
	}
	authors := map[string]string{}
	if lin != nil {
		for _, c := range lin.log.Commits {
			for _, p := range c.Paths {
				if _, ok := authors[p]; !ok {
					authors[p] = c.Author
				}
			}
		}
	}
	for _, en := range st.Snap.Entries() {
		if !authority(en) || en.Status == "proposed" || !keep(en) {
			continue
		}
		x := api.ExportEntry{ID: en.ID, Kind: en.Kind, Title: en.Title, Status: strp(en.Status), File: en.File,
			Paths: nonNil(en.Paths), Markdown: en.Markdown, Blob: st.Snap.Blob(en.File), Checked: strp(en.Checked),
			Date: strp(en.Date), Verify: strp(en.Verify), ReviewBy: strp(en.ReviewBy), Supersedes: nonNil(en.Supersedes),
			Commits: nonNil(en.Commits), Extra: en.Extra}
		if a, ok := authors[en.File]; ok && a != "" {
			x.Author = &a
		}
		res.Entries = append(res.Entries, x)
	}
	sort.SliceStable(res.Entries, func(i, j int) bool { return res.Entries[i].ID < res.Entries[j].ID })
	return res, nil
}

// refNameOK applies git's ref name rules (check-ref-format): no "..", no
// "@{", no control characters, space or ~^:?*[\, no component starting
// with "." or ending with ".lock", no empty component or trailing "/" or ".".
func refNameOK(ref string) bool {
	if strings.Contains(ref, "..") || strings.Contains(ref, "@{") || strings.HasSuffix(ref, ".") || strings.HasSuffix(ref, "/") {
		return false
	}
	if strings.IndexFunc(ref, func(r rune) bool { return r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) }) >= 0 {
		return false
	}
	for _, c := range strings.Split(ref, "/") {
		if c == "" || strings.HasPrefix(c, ".") || strings.HasSuffix(c, ".lock") {
			return false
		}
	}
	return true
}

// fullSHA reports whether s is a full commit sha: 40 lowercase hex digits.
func fullSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
