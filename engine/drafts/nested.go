package drafts

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/worktree"
)

// nestedRepository returns the directory of the nested git repository (a
// submodule or a nested checkout: a directory below the root holding its
// own .git) that holds every path of an entry, or "" when the paths are
// not all inside one. A glob counts by its literal directory prefix (the
// segments before the first wildcard); an exclusion (!) is ignored.
func nestedRepository(fsys billy.Filesystem, globs []string) string {
	owner := ""
	n := 0
	for _, g := range globs {
		if strings.HasPrefix(g, "!") {
			continue
		}
		n++
		repo := worktree.NestedRepository(fsys, literalPrefix(g))
		if repo == "" || (owner != "" && repo != owner) {
			return ""
		}
		owner = repo
	}
	if n == 0 {
		return ""
	}
	return owner
}

// spansNested names the nested repositories that some (not all) positive
// globs of an entry reach into: such an entry stays in this repository,
// and the nested repository's own reads never see it.
func spansNested(fsys billy.Filesystem, globs []string) []string {
	var repos []string
	for _, g := range globs {
		if strings.HasPrefix(g, "!") {
			continue
		}
		if repo := worktree.NestedRepository(fsys, literalPrefix(g)); repo != "" && !contains(repos, repo) {
			repos = append(repos, repo)
		}
	}
	return repos
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// literalPrefix is the directory part of a glob before its first wildcard.
func literalPrefix(glob string) string {
	glob = strings.TrimPrefix(glob, "/")
	var segs []string
	for _, s := range strings.Split(glob, "/") {
		if strings.ContainsAny(s, "*?[{") {
			break
		}
		segs = append(segs, s)
	}
	return strings.Join(segs, "/")
}

// rebase makes an entry's globs relative to the nested repository repo
// (lib/**/*.go → **/*.go; lib/ or lib itself → **). An exclusion outside
// repo excludes nothing there: it is dropped and returned.
func rebase(repo string, globs []string) (out, dropped []string) {
	for _, g := range globs {
		neg := strings.HasPrefix(g, "!")
		body := strings.TrimPrefix(strings.TrimPrefix(g, "!"), "/")
		var rel string
		switch {
		case body == repo || body == repo+"/":
			rel = "**"
		case strings.HasPrefix(body, repo+"/"):
			rel = body[len(repo)+1:]
		default:
			dropped = append(dropped, g)
			continue
		}
		if neg {
			rel = "!" + rel
		}
		out = append(out, rel)
	}
	return out, dropped
}

// nestedError refuses to stage an entry that belongs to a nested
// repository into this one's storage when the write cannot be routed
// there (no nested opener).
func nestedError(repo string) error {
	err := apierr.Invalid("every path of this entry lies inside the nested repository %s (it has its own .git): it belongs in that repository's knowledge, not this one's; stage it there (kontext -C %s new …, paths relative to %s)", repo, repo, repo)
	err.Extra = map[string]any{"repository": repo}
	return err
}

// openNested opens the nested repository repo for a routed write and
// checks that it is that repository: a directory that lost its .git opens
// the outer repository again, and a receipt is never used to write into
// another checkout.
func (e *draft) openNested(repo, operationID string) (*engine.Engine, error) {
	open := e.Options().Nested
	if open == nil {
		return nil, nestedError(repo)
	}
	n, err := open(repo)
	if err != nil {
		return nil, err
	}
	got := filepath.Clean(n.Options().Root)
	for _, root := range append([]string{e.Options().Root}, e.Options().RootAliases...) {
		if got == filepath.Join(root, filepath.FromSlash(repo)) {
			return n, nil
		}
	}
	err2 := apierr.New(apierr.WorktreeConflict, "%s is not a repository of its own (it opens as %s): operation %q was not written there; check the directory, then retry", repo, got, operationID)
	err2.Extra = map[string]any{"repository": repo}
	return nil, err2
}

// routedNote is the first note of a routed write's result.
func routedNote(repo string, dropped []string) []string {
	notes := []string{"routed to the nested repository " + repo + ": written, staged and receipted there; paths relative to " + repo}
	for _, d := range dropped {
		notes = append(notes, "exclusion "+d+" lies outside "+repo+" and was dropped")
	}
	return notes
}

// withRepository marks the result of a routed write with its repository
// and the routing notes. A replayed result (a map) is marked the same way.
func withRepository(res any, repo string, notes []string) any {
	switch r := res.(type) {
	case *api.StageResult:
		r.Repository = repo
		r.Notes = append(append([]string{}, notes...), r.Notes...)
	case *api.CaptureResult:
		r.Repository = repo
		r.Notes = append(append([]string{}, notes...), r.Notes...)
	case map[string]any:
		r["repository"] = repo
		old, _ := r["notes"].([]any)
		list := []any{}
		for _, n := range notes {
			if !containsAny(old, n) {
				list = append(list, n)
			}
		}
		r["notes"] = append(list, old...)
	}
	return res
}

func containsAny(list []any, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// routeStage routes drafts.stage of a new entry se (the input's, or the
// candidate's it promotes) whose paths all lie inside the nested
// repository repo: its globs rebased, its requested_path made relative to
// repo, the same operation_id and fingerprint. A promoted candidate stays
// in this repository's inbox and is marked promoted once the nested
// repository staged it (under this repository's lock; a retry after a
// crash marks it then).
func (e *draft) routeStage(ctx context.Context, repo string, in *api.StageInput, se *api.StageEntry, fp string) (any, error) {
	fwd := api.StageInput{OperationID: in.OperationID, Source: in.Source, Fingerprint: fp}
	en := *se
	var dropped []string
	en.Paths, dropped = rebase(repo, se.Paths)
	fwd.Entry = &en
	if rp := strings.TrimPrefix(in.RequestedPath, "./"); rp != "" {
		if !strings.HasPrefix(rp, repo+"/") {
			err := apierr.Invalid("requested_path %q is outside the nested repository %s, where this entry is routed (every path of it lies inside %s): pass a path inside %s or none", in.RequestedPath, repo, repo, repo)
			err.Extra = map[string]any{"repository": repo}
			return nil, err
		}
		fwd.RequestedPath = rp[len(repo)+1:]
	}
	return e.routed(ctx, "drafts.stage", in.OperationID, fp, repo, in, routedNote(repo, dropped), func(n *engine.Engine) (any, error) {
		res, err := Stage(ctx, n, &fwd)
		if err != nil || in.CandidateID == "" {
			return res, err
		}
		// the candidate is this repository's: mark it promoted here
		_, cand, name, cerr := e.stageCandidate(in.CandidateID)
		if cerr != nil {
			return res, nil // already promoted by the crashed attempt
		}
		if err := e.markPromoted(cand, name, in.CandidateID, stagedID(res)); err != nil {
			return nil, err
		}
		note := "promoted candidate " + in.CandidateID
		switch r := res.(type) {
		case *api.StageResult:
			r.Notes = append(r.Notes, note)
		case map[string]any:
			old, _ := r["notes"].([]any)
			r["notes"] = append(old, note)
		}
		return res, nil
	})
}

// routedPlan is the nested repository of operationID's unfinished routed
// receipt of the same request, "" when there is none.
func (e *draft) routedPlan(operationID, fp string) string {
	w, err := e.writer()
	if err != nil || strings.TrimSpace(operationID) == "" {
		return ""
	}
	r, err := loadReceipt(w, operationID)
	if err != nil || r == nil || r.State == "done" || r.Operation != "drafts.stage" || r.Fingerprint != fp {
		return ""
	}
	return r.Routed
}

// resumeRouted completes a routed drafts.stage from the nested
// repository's own receipt (operation_id and fingerprint), when the input
// here can no longer be planned again (its candidate is already promoted).
func (e *draft) resumeRouted(ctx context.Context, repo string, in *api.StageInput, fp string) (any, error) {
	fwd := api.StageInput{OperationID: in.OperationID, Fingerprint: fp}
	return e.routed(ctx, "drafts.stage", in.OperationID, fp, repo, in, routedNote(repo, nil), func(n *engine.Engine) (any, error) {
		return Stage(ctx, n, &fwd)
	})
}

// stagedID is the entry id of a drafts.stage result (typed or replayed).
func stagedID(res any) string {
	switch r := res.(type) {
	case *api.StageResult:
		if r.Entry != nil {
			return r.Entry.ID
		}
	case map[string]any:
		if en, ok := r["entry"].(map[string]any); ok {
			id, _ := en["id"].(string)
			return id
		}
	}
	return ""
}

// RouteCapture routes drafts.capture of an entry whose paths all lie
// inside a nested repository into that repository's inbox (inbox.Tx);
// routed is false when the paths do not.
func (e *draft) RouteCapture(ctx context.Context, in *api.CaptureInput, fp string) (any, bool, error) {
	repo := nestedRepository(e.FS(), in.Entry.Paths)
	if repo == "" || e.Options().Nested == nil {
		return nil, false, nil
	}
	fwd := *in
	en := *in.Entry
	var dropped []string
	en.Paths, dropped = rebase(repo, in.Entry.Paths)
	fwd.Entry, fwd.DirInput = &en, api.DirInput{}
	res, err := e.routed(ctx, "drafts.capture", in.OperationID, fp, repo, in, routedNote(repo, dropped), func(n *engine.Engine) (any, error) {
		return Capture(ctx, n, &fwd)
	})
	return res, true, err
}

// routedGet answers operations.get for a routed write whose receipt here
// is unfinished: the nested repository's receipt is the truth.
func (e *draft) routedGet(ctx context.Context, r *receipt, in *api.OperationsGetInput) (any, error) {
	n, err := e.openNested(r.Routed, in.OperationID)
	if err != nil {
		return nil, err
	}
	// The fingerprint was checked against the receipt here; a routed
	// capture's nested receipt has its own (of the rebased input).
	res, err := runOperationsGet(ctx, &draft{n}, &api.OperationsGetInput{OperationID: in.OperationID})
	if err != nil {
		if ae := apierr.As(err); ae != nil {
			if ae.Extra == nil {
				ae.Extra = map[string]any{}
			}
			ae.Extra["repository"] = r.Routed
		}
		return nil, err
	}
	m := map[string]any{}
	data, _ := json.Marshal(res)
	_ = json.Unmarshal(data, &m)
	m["repository"] = r.Routed
	return m, nil
}
