package drafts

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/kb"
	"github.com/kontext/kontext/engine/internal/match"
)

// runSetPaths adds globs to and removes globs from an entry's paths in the
// path overlay (<storage>/paths.toml), the only write of that file. The
// entry's own file is never touched: the overlay exists for files kontext
// must not edit.
func runSetPaths(ctx context.Context, e *draft, in *api.SetPathsInput) (any, error) {
	if len(in.Add) == 0 && len(in.Remove) == 0 {
		return nil, apierr.Invalid("nothing to do: pass globs in add or remove (or both)")
	}
	var hints []string
	for _, field := range []struct {
		name  string
		globs []string
	}{{"add", in.Add}, {"remove", in.Remove}} {
		for _, g := range field.globs {
			p, err := match.Compile(g)
			if err != nil || strings.TrimSpace(g) == "" || strings.ContainsAny(g, "\r\n") {
				msg := "empty pattern"
				if err != nil {
					msg = err.Error()
				} else if strings.TrimSpace(g) != "" {
					msg = "a pattern is one line"
				}
				return nil, jsonin.Errorf(field.name, "invalid pattern %q: %s", g, msg)
			}
			if field.name == "add" && !p.Negated && match.RootOnly(p) {
				hints = append(hints, fmt.Sprintf("pattern %q only matches files at the repository root; write %q to match at any depth", g, "**/"+p.Glob))
			}
		}
	}
	for _, g := range in.Add {
		if slices.Contains(in.Remove, g) {
			return nil, apierr.Invalid("%q is both added and removed; pass it once", g)
		}
	}
	plan := func(st *engine.State) ([]change, string, []string, error) {
		en, err := st.Snap.Lookup(in.EntryID)
		if err != nil {
			return nil, "", nil, err
		}
		file := st.Cfg.Overlay()
		text := st.Snap.Overlay
		if text != nil {
			if err := e.Publish(ctx, st, []string{file}); err != nil {
				return nil, "", nil, err
			}
			switch st.Pub[file].State {
			case "modified", "untracked":
				return nil, "", nil, apierr.New(apierr.OperationConflict, "%s has changes that are not staged; stage them (git add %s) or discard them first", file, file)
			}
		}
		var ov *kb.Overlay
		if text != nil {
			o, diags := kb.ParseOverlay(file, text)
			if o == nil {
				return nil, "", nil, apierr.New(apierr.OperationConflict, "%s is not valid (%s); fix it first", file, diags[0].Message)
			}
			ov = o
		}
		keys, held := overlayOf(ov, en)
		own := en.OwnPaths()
		for _, g := range in.Remove {
			if slices.Contains(held, g) {
				continue
			}
			if slices.Contains(own, g) {
				return nil, "", nil, jsonin.Errorf("remove", "%q is declared by %s itself, not by the overlay; kontext does not edit that file, so it cannot be removed here", g, en.File)
			}
			if len(held) == 0 {
				return nil, "", nil, jsonin.Errorf("remove", "the overlay holds no globs for %s, so it cannot remove %q", en.ID, g)
			}
			return nil, "", nil, jsonin.Errorf("remove", "the overlay holds no %q for %s; it holds %s", g, en.ID, quoteAll(held))
		}
		key := overlayKey(en)
		if len(keys) > 0 {
			key = keys[0]
		}
		notes := append([]string{}, hints...)
		next := map[string][]string{}
		for _, k := range keys {
			for _, g := range ov.Globs[k] {
				if !slices.Contains(in.Remove, g) {
					next[k] = append(next[k], g)
				}
			}
		}
		for _, g := range in.Remove {
			notes = append(notes, fmt.Sprintf("removed %s from the overlay paths of %s", g, en.ID))
		}
		for _, g := range in.Add {
			switch {
			case slices.Contains(held, g) && !slices.Contains(in.Remove, g):
				notes = append(notes, fmt.Sprintf("%s is already in the overlay paths of %s", g, en.ID))
			case slices.Contains(own, g):
				notes = append(notes, fmt.Sprintf("%s is already declared by %s", g, en.File))
			case slices.Contains(next[key], g):
			default:
				next[key] = append(next[key], g)
				notes = append(notes, fmt.Sprintf("added %s to the overlay paths of %s", g, en.ID))
			}
		}
		out := text
		changedKeys := append([]string{}, keys...)
		if !slices.Contains(changedKeys, key) {
			changedKeys = append(changedKeys, key)
		}
		for _, k := range changedKeys {
			var before []string
			if ov != nil {
				before = ov.Globs[k]
			}
			if slices.Equal(before, next[k]) {
				continue
			}
			edited, rewritten, err := kb.SetOverlayKey(out, k, next[k])
			if err != nil {
				return nil, "", nil, apierr.Wrap(apierr.OperationFailed, err, "editing %s", file)
			}
			if rewritten {
				notes = append(notes, file+" was laid out in a way kontext cannot edit in place; it is rewritten in the canonical form (comments dropped)")
			}
			out = edited
		}
		if string(out) == string(text) {
			notes = append(notes, "nothing changed: "+file+" already says this")
			return nil, en.ID, notes, nil
		}
		return []change{{path: file, data: out, isNew: text == nil}}, en.ID, notes, nil
	}
	result := func(st2 *engine.State, files []change, target string, notes []string) (any, error) {
		en, err := st2.Snap.Lookup(target)
		if err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "%s was written but %s does not read back", st2.Cfg.Overlay(), target)
		}
		views, err := e.Views(ctx, st2, []*entry.Entry{en})
		if err != nil {
			return nil, err
		}
		var ov *kb.Overlay
		if st2.Snap.Overlay != nil {
			ov, _ = kb.ParseOverlay(st2.Cfg.Overlay(), st2.Snap.Overlay)
		}
		keys, held := overlayOf(ov, en)
		key := overlayKey(en)
		if len(keys) > 0 {
			key = keys[0]
		}
		if notes == nil {
			notes = []string{}
		}
		return &api.SetPathsResult{Entry: views[0], Path: st2.Cfg.Overlay(), Key: key, OverlayPaths: nonNil(held),
			Staged: len(files) > 0, Notes: notes}, nil
	}
	return e.transact(ctx, "drafts.set_paths", in.OperationID, fingerprint(in), in, plan, result)
}

// overlayOf returns the overlay keys naming en (its id first, then its
// file) and the globs they hold, in order, without repeats.
func overlayOf(ov *kb.Overlay, en *entry.Entry) (keys, globs []string) {
	if ov == nil {
		return nil, nil
	}
	for _, k := range ov.Keys {
		if k == en.ID {
			keys = append([]string{k}, keys...)
		} else if strings.TrimPrefix(k, "./") == en.File {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		for _, g := range ov.Globs[k] {
			if !slices.Contains(globs, g) {
				globs = append(globs, g)
			}
		}
	}
	return keys, globs
}

// overlayKey is the key a new overlay line of en gets: its id, or its
// file for agent rule files (whose ids come from their file names anyway).
func overlayKey(en *entry.Entry) string {
	if en.ReadOnly && en.Style != entry.StyleADR {
		return en.File
	}
	return en.ID
}

func quoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
