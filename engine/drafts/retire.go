package drafts

import (
	"context"
	"fmt"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/edit"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/kb"
	"github.com/kontext/kontext/engine/internal/render"
)

func runRetire(ctx context.Context, e *draft, in *api.RetireInput) (any, error) {
	reason := strings.TrimSpace(in.Reason)
	if reason == "" {
		return nil, jsonin.Errorf("reason", "is required: say why the entry no longer applies")
	}
	if len(reason) > 4000 {
		return nil, jsonin.Errorf("reason", "is longer than 4000 characters")
	}
	plan := func(st *engine.State) ([]change, string, []string, error) {
		en, err := e.editable(ctx, st, in.EntryID, in.EntryRevision, "retiring")
		if err != nil {
			return nil, "", nil, err
		}
		if entry.Inactive(en.Status) {
			return nil, "", nil, apierr.New(apierr.OperationConflict, "%s is already %s", en.ID, en.Status)
		}
		text := en.Markdown
		var edited string
		if en.Style == entry.StyleADR && !strings.HasPrefix(strings.TrimPrefix(text, "\ufeff"), "---") {
			edited, err = adrStatusEdit(en, "Deprecated")
		} else {
			edited, err = edit.SetFrontmatter(text, "status", "deprecated")
		}
		if err != nil {
			return nil, "", nil, apierr.Wrap(apierr.OperationFailed, err, "retiring %s", en.File)
		}
		nl := "\n"
		if strings.Contains(text, "\r\n") {
			nl = "\r\n"
		}
		if !strings.HasSuffix(edited, "\n") {
			edited += nl
		}
		edited += nl + "## Retired " + e.Today() + nl + nl + strings.ReplaceAll(reason, "\n", nl) + nl
		if err := checkEdited(en, edited, "deprecated"); err != nil {
			return nil, "", nil, apierr.Wrap(apierr.OperationFailed, err, "retiring %s", en.File)
		}
		return []change{{path: en.File, data: []byte(edited)}}, en.File, []string{en.ID + " is now deprecated"}, nil
	}
	after := func(st *engine.State, res *api.StageResult) error {
		resolved, err := e.resolveChallenges(e.Options().Writer, []string{res.Entry.ID}, "retirement")
		res.ResolvedChallenges = resolved
		return err
	}
	return e.writeOpInput(ctx, "drafts.retire", in.OperationID, fingerprint(in), in, plan, after)
}

func runSetVerify(ctx context.Context, e *draft, in *api.SetVerifyInput) (any, error) {
	if err := validVerify("verify", in.Verify); err != nil {
		return nil, err
	}
	verify := strings.TrimSpace(in.Verify)
	plan := func(st *engine.State) ([]change, string, []string, error) {
		en, err := e.editable(ctx, st, in.EntryID, in.EntryRevision, "setting the verify of")
		if err != nil {
			return nil, "", nil, err
		}
		adr := en.Style == entry.StyleADR && !strings.HasPrefix(strings.TrimPrefix(en.Markdown, "\ufeff"), "---")
		var edited, note string
		switch {
		case verify == "":
			edited = removeMetaLine(en.Markdown, "verify", adr)
			note = "removed verify of " + en.ID
		case adr:
			edited, err = edit.SetADRMeta(en.Markdown, "verify", render.Scalar(verify))
			note = "set verify of " + en.ID
		default:
			edited, err = edit.SetFrontmatter(en.Markdown, "verify", render.Scalar(verify))
			note = "set verify of " + en.ID
		}
		if err == nil {
			err = checkEdited(en, edited, en.Status)
		}
		if err == nil {
			after, _ := entry.Parse(en.File, []byte(edited), entry.Source{Kind: en.Kind, Style: en.Style, ReadOnly: en.ReadOnly})
			if after.Verify != verify {
				err = fmt.Errorf("verify reads back as %q", after.Verify)
			}
		}
		if err != nil {
			return nil, "", nil, apierr.Wrap(apierr.OperationFailed, err, "setting verify in %s", en.File)
		}
		return []change{{path: en.File, data: []byte(edited)}}, en.File, []string{note}, nil
	}
	return e.writeOpInput(ctx, "drafts.set_verify", in.OperationID, fingerprint(in), in, plan, nil)
}

// editable resolves an entry that a write changes in place: writable, at
// the revision the caller read, committed once, without local or staged
// changes. verb names the write for the never-committed message
// ("retiring").
func (e *draft) editable(ctx context.Context, st *engine.State, ref, rev, verb string) (*entry.Entry, error) {
	en, err := st.Snap.Lookup(ref)
	if err != nil {
		return nil, err
	}
	if en.ReadOnly && en.Style != entry.StyleADR {
		return nil, apierr.Invalid("%s is a read-only %s rule file; kontext does not rewrite it", en.ID, en.Style)
	}
	if err := e.checkRevision(ctx, st, en, rev); err != nil {
		return nil, err
	}
	if err := e.committedOnce(ctx, st, en, verb); err != nil {
		return nil, err
	}
	switch st.Pub[en.File].State {
	case "modified", "staged":
		return nil, apierr.New(apierr.OperationConflict, "%s has %s changes; commit or discard them first", en.File, st.Pub[en.File].State)
	}
	return en, nil
}

// checkRevision applies the one notion of revision (README "The application API"): the blob
// id, its 12-hex prefix, or a full commit sha in which the file's blob is
// the current one.
func (e *draft) checkRevision(ctx context.Context, st *engine.State, en *entry.Entry, rev string) error {
	cur := st.Snap.Blob(en.File)
	r := strings.ToLower(strings.TrimSpace(rev))
	hex := r != ""
	for _, c := range r {
		hex = hex && (c >= '0' && c <= '9' || c >= 'a' && c <= 'f')
	}
	if !hex {
		return jsonin.Errorf("entry_revision", "%q is not an entry revision; pass the entry's revision (its blob id) or a full commit sha, not HEAD or a ref name", rev)
	}
	switch {
	case r == cur:
		return nil
	case len(r) == 12:
		if strings.HasPrefix(cur, r) {
			return nil
		}
		// A well-formed legacy revision that no longer matches is stale, like a full one:
		// the client re-reads and retries.
		return apierr.New(apierr.StaleEntry, "%s changed since revision %s; read it again (entries.get) and retry with its current revision", en.ID, rev)
	case len(r) == 40 || len(r) == 64:
		if e.Options().History != nil {
			data, ok, err := e.Options().History.FileAt(ctx, r, en.File)
			if err == nil && ok && kb.BlobID(data) == cur {
				return nil
			}
		}
		return apierr.New(apierr.StaleEntry, "%s changed since revision %s; read it again (entries.get) and retry with its current revision", en.ID, rev)
	}
	return jsonin.Errorf("entry_revision", "%q is a short hash; pass the entry's full revision (blob id) or a full commit sha", rev)
}

// removeMetaLine drops the key's line from the frontmatter or the kontext
// comment block; nothing else changes.
func removeMetaLine(text, key string, adr bool) string {
	lines := strings.SplitAfter(text, "\n")
	in := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case !adr && i == 0:
			in = strings.TrimPrefix(t, "\ufeff") == "---"
			continue
		case !adr && in && (t == "---" || t == "..."):
			return text
		case adr && !in && (t == "<!-- kontext" || strings.HasPrefix(t, "<!-- kontext ") && !strings.HasSuffix(t, "-->")):
			in = true
			continue
		case adr && in && t == "-->":
			return text
		}
		if !in {
			continue
		}
		k, _, ok := strings.Cut(l, ":")
		if ok && strings.TrimSpace(k) == key && (adr || l[0] != ' ' && l[0] != '\t') {
			return strings.Join(append(lines[:i:i], lines[i+1:]...), "")
		}
	}
	return text
}
