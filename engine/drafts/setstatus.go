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
)

// runSetStatus is drafts.set_status: a proposed decision becomes accepted
// or rejected. It is a metadata-line edit like set_verify: the status word
// is replaced on the line the parser read it from (a frontmatter key, a
// kontext comment line, an ADR's status heading or section line, a MADR
// "Status:" bullet), in the file's own case; every other byte stays. A
// decision that states no status (proposed by default) gets a status line:
// a frontmatter key, or in an ADR without frontmatter a line of the
// kontext comment block (an ADR that states none reads as no status, and
// is treated as proposed here).
//
// Refused: another status than accepted/rejected (invalid_input: proposed
// is the start, superseded and deprecated have their own writes); an
// entry that is not a decision (invalid_input); a decision that is not
// proposed, the target status included (operation_conflict); a stale
// revision (stale_entry); local or staged changes (operation_conflict).
func runSetStatus(ctx context.Context, e *draft, in *api.SetStatusInput) (any, error) {
	status := strings.ToLower(strings.TrimSpace(in.Status))
	switch status {
	case "accepted", "rejected":
	case "":
		return nil, jsonin.Errorf("status", "is required: accepted or rejected")
	case "superseded":
		return nil, jsonin.Errorf("status", "superseded is set by staging the decision that replaces it (drafts.stage with entry.supersedes), not here")
	case "deprecated":
		return nil, jsonin.Errorf("status", "deprecated is set by retiring the decision (drafts.retire), not here")
	default:
		return nil, jsonin.Errorf("status", "a proposed decision becomes accepted or rejected, not %q", in.Status)
	}
	plan := func(st *engine.State) ([]change, string, []string, error) {
		// Kind and status first: "already accepted" says more than the
		// staged change that accepted it.
		en, err := st.Snap.Lookup(in.EntryID)
		if err != nil {
			return nil, "", nil, err
		}
		if en.Kind != "decision" {
			return nil, "", nil, apierr.Invalid("%s is a %s; only decisions go from proposed to accepted or rejected (retire other entries with drafts.retire)", en.ID, en.Kind)
		}
		switch {
		case en.Status == status:
			return nil, "", nil, apierr.New(apierr.OperationConflict, "%s is already %s", en.ID, status)
		case en.Status != "proposed" && en.Status != "":
			return nil, "", nil, apierr.New(apierr.OperationConflict, "%s is %s, not proposed; only a proposed decision is accepted or rejected (stage a decision that supersedes it, or retire it)", en.ID, en.Status)
		}
		if en, err = e.editable(ctx, st, in.EntryID, in.EntryRevision, strings.TrimSuffix(status, "ed")+"ing"); err != nil {
			return nil, "", nil, err
		}
		edited, err := statusEdit(en, status)
		if err == nil {
			err = checkEdited(en, edited, status)
		}
		if err != nil {
			return nil, "", nil, apierr.Wrap(apierr.OperationFailed, err, "setting the status of %s", en.File)
		}
		return []change{{path: en.File, data: []byte(edited)}}, en.File, []string{en.ID + " is now " + status}, nil
	}
	return e.writeOpInput(ctx, "drafts.set_status", in.OperationID, fingerprint(in), in, plan, nil)
}

// statusEdit replaces the word "proposed" where the file states it, or
// adds a status line where it states none.
func statusEdit(en *entry.Entry, status string) (string, error) {
	text := en.Markdown
	src := entry.Source{Kind: en.Kind, Style: en.Style, ReadOnly: en.ReadOnly}
	if line := entry.FieldLine(en.File, []byte(text), src, "status"); line > 0 {
		return edit.ReplaceStatusWord(text, line, "proposed", status)
	}
	if en.StatusRaw != "" {
		return "", fmt.Errorf("the status %q was read from no single line", en.StatusRaw)
	}
	if en.Style == entry.StyleADR && !strings.HasPrefix(strings.TrimPrefix(text, "\ufeff"), "---") {
		return edit.SetADRMeta(text, "status", status)
	}
	return edit.SetFrontmatter(text, "status", status)
}

// adrStatusEdit sets the status phrase of an ADR without frontmatter
// ("Deprecated", "Superseded by [3. …](0003-….md)") on the line the parser
// read its status from — a status section line, a "Status:" bullet or
// heading, a kontext comment line — so a Date line in the status section
// or a MADR bullet is never taken for it. A record that states no status
// gets one in its status section.
func adrStatusEdit(en *entry.Entry, value string) (string, error) {
	src := entry.Source{Kind: en.Kind, Style: en.Style, ReadOnly: en.ReadOnly}
	if line := entry.FieldLine(en.File, []byte(en.Markdown), src, "status"); line > 0 {
		return edit.SetStatusLine(en.Markdown, line, value)
	}
	return edit.SetADRStatus(en.Markdown, value)
}
