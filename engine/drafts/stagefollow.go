package drafts

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/drafts/inbox"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

// stageEvidence validates an entry's evidence refs and verifies their
// quotes. It returns the results, the refs for extra.external_refs and
// the `## Evidence` section written into the body for the reviewer.
func (e *draft) stageEvidence(ctx context.Context, raw json.RawMessage) ([]api.EvidenceResult, []string, string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return []api.EvidenceResult{}, nil, "", nil
	}
	var refs []api.CaptureEvidence
	if err := json.Unmarshal(raw, &refs); err != nil {
		return nil, nil, "", jsonin.Errorf("entry.evidence", "must be an array of {ref, quote?}")
	}
	if len(refs) > inbox.MaxEvidence {
		return nil, nil, "", jsonin.Errorf("entry.evidence", "holds %d references; the limit is %d", len(refs), inbox.MaxEvidence)
	}
	var ids []string
	for i, r := range refs {
		if err := inbox.ParseRef(r.Ref); err != nil {
			return nil, nil, "", jsonin.Errorf(fmt.Sprintf("entry.evidence[%d].ref", i), "%v", err)
		}
		if len([]rune(r.Quote)) > 200 || strings.ContainsAny(r.Quote, "\r\n") {
			return nil, nil, "", jsonin.Errorf(fmt.Sprintf("entry.evidence[%d].quote", i), "must be one line of at most 200 characters")
		}
		ids = append(ids, r.Ref)
	}
	results := inbox.Evidence(ctx, e.Engine, refs)
	var b strings.Builder
	b.WriteString("\n\n## Evidence\n\n")
	for _, r := range results {
		fmt.Fprintf(&b, "- `%s`", r.Ref)
		if r.Quote != "" {
			fmt.Fprintf(&b, " — “%s” (%s)", r.Quote, strings.ReplaceAll(r.Verification, "_", " "))
		}
		b.WriteString("\n")
	}
	return results, ids, b.String(), nil
}

// resolveChallenges dismisses this worktree's pending challenges against
// ids (superseded or retired by this write) and lists them.
func (e *draft) resolveChallenges(w engine.Writer, ids []string, by string) ([]any, error) {
	out := []any{}
	if len(ids) == 0 {
		return out, nil
	}
	against := map[string]bool{}
	for _, id := range ids {
		against[id] = true
	}
	names, err := w.ListState("inbox")
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "listing the inbox")
	}
	for _, name := range names {
		id := strings.TrimSuffix(strings.TrimPrefix(name, "inbox/"), ".json")
		c, err := inbox.Load(e.Engine, w, id)
		if err != nil {
			continue // another worktree's or unreadable: not ours to resolve
		}
		target, _ := c.Extra["against"].(string)
		if c.Kind != "challenge" || c.State != "pending" || !against[target] {
			continue
		}
		c.State = "dismissed"
		c.History = append(c.History, api.InboxEvent{At: inbox.Stamp(e.Engine), Event: "resolved", Reason: "resolved by " + by})
		if err := inbox.Save(w, c); err != nil {
			return nil, err
		}
		out = append(out, api.ResolvedChallenge{ID: c.ID, Against: target, ResolvedBy: by})
	}
	return out, nil
}
