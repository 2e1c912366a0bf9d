package mcptools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kontext/kontext/engine/api"
)

// What each client gets. structuredContent is always the answer object
// ({schema_version, ok, result | error}), the result the operation's or,
// for ctx_governing, its own short page. The text block is for clients
// that show the model text only: ctx_api, ctx_capture, ctx_challenge and
// ctx_prepare_commit put the answer's JSON there (small answers, or the
// API's own shape); ctx_governing and ctx_brief put a plain-text reading
// there (a line per entry, the brief document), never a second copy of the
// JSON. Errors are always the JSON error.

// governingAnswer is ctx_governing's whole answer: the result its
// structuredContent carries and its text block, both made from
// entries.governing's result (one function, so every server of the tool —
// stdio, HTTP, the edge's /mcp — answers the same). The compact answer is
// an api.GoverningPage: per entry id, kind, title, status, rule and
// specificity (paths when several were asked, review_due when due); the
// text block says the same but kind as one line per entry, then how to
// read more (entries.get {id}) and the cursor of the next page. The
// summary, file, short body and snapshot of the compact view are left
// out: one more call gives them. detail: true answers whole entries, the
// result as entries.governing sends it, and reads them as text.
func governingAnswer(result json.RawMessage, args map[string]json.RawMessage) (json.RawMessage, string) {
	var r api.GoverningResult
	if err := json.Unmarshal(result, &r); err != nil {
		return result, string(result)
	}
	var paths []string
	_ = json.Unmarshal(args["paths"], &paths)
	var cursor string
	_ = json.Unmarshal(args["cursor"], &cursor)
	if r.Items == nil {
		return result, governingDetailText(r, paths, cursor)
	}
	page := api.GoverningPage{Total: r.Total, Items: make([]api.GoverningItem, len(r.Items)), NextCursor: r.NextCursor, Boundaries: r.Boundaries, Client: r.Client}
	for i, c := range r.Items {
		it := api.GoverningItem{ID: c.ID, Kind: c.Kind, Title: c.Title, Rule: c.Rule, Paths: c.Paths, ReviewDue: c.ReviewDue,
			Load: c.Load, BytesLoaded: c.BytesLoaded, Reason: c.Reason}
		if c.Status != nil {
			it.Status = *c.Status
		}
		if c.Specificity != nil {
			it.Specificity = *c.Specificity
		}
		page.Items[i] = it
	}
	var sb strings.Builder
	if !governingHead(&sb, r, len(page.Items), paths, cursor) {
		return plainJSON(page), sb.String()
	}
	for _, it := range page.Items {
		fmt.Fprintf(&sb, "- %s", it.ID)
		if it.Status != "" {
			fmt.Fprintf(&sb, " (%s)", it.Status)
		}
		fmt.Fprintf(&sb, ": %s; rule %s, specificity %d", it.Title, it.Rule, it.Specificity)
		if len(it.Paths) > 0 {
			fmt.Fprintf(&sb, ", for %s", strings.Join(it.Paths, ", "))
		}
		if it.ReviewDue {
			sb.WriteString(", review due")
		}
		if it.Load != "" {
			fmt.Fprintf(&sb, "; load %s: %s", it.Load, it.Reason)
		}
		sb.WriteString("\n")
	}
	if len(page.Items) > 0 {
		sb.WriteString("Read one: ctx_api entries.get {\"id\": ID}.\n")
	}
	governingTail(&sb, r)
	return plainJSON(page), sb.String()
}

// governingHead writes the text block's first line: how many entries
// govern; false when nothing does (the line says so and nothing follows).
func governingHead(sb *strings.Builder, r api.GoverningResult, shown int, paths []string, cursor string) bool {
	// The asked path is not echoed: it may be absolute, and the answer is
	// the same for either form.
	what := "the asked paths"
	if len(paths) == 1 {
		what = "the asked path"
	}
	switch {
	case r.Client != nil:
		start := r.Client.Cwd
		if start == "" {
			start = "the repository root"
		}
		fmt.Fprintf(sb, "%s started in %s: %d %s in the order it loads them (%d here); not-loaded ones govern and are never read by it:\n", r.Client.Client, start, r.Total, plural(r.Total, "entry", "entries"), shown)
		for _, n := range r.Client.Notes {
			fmt.Fprintf(sb, "Assumed: %s.\n", n)
		}
		return r.Total > 0
	case r.Total == 0 && len(r.Boundaries) == 0:
		fmt.Fprintf(sb, "No entry governs %s.\n", what)
		return false
	case r.Total == 0:
		fmt.Fprintf(sb, "No entry of this repository governs %s.\n", what)
	case shown < r.Total || cursor != "":
		fmt.Fprintf(sb, "%d entries govern; %d here, most specific first:\n", r.Total, shown)
	default:
		fmt.Fprintf(sb, "%d %s, most specific first:\n", r.Total, plural(r.Total, "entry governs", "entries govern"))
	}
	return true
}

// governingTail writes the nested repositories and the next page's cursor.
func governingTail(sb *strings.Builder, r api.GoverningResult) {
	for _, b := range r.Boundaries {
		fmt.Fprintf(sb, "%s lies in the nested repository %s: ask there (dir %q) for the rules of %s.\n", b.Path, b.Repository, b.Repository, b.RepositoryPath)
	}
	if r.NextCursor != "" {
		fmt.Fprintf(sb, "More: call again with cursor %q.\n", r.NextCursor)
	}
}

// governingDetailText reads a detail: true answer (whole entries) as text.
func governingDetailText(r api.GoverningResult, paths []string, cursor string) string {
	var sb strings.Builder
	if !governingHead(&sb, r, len(r.Entries), paths, cursor) {
		return sb.String()
	}
	for _, e := range r.Entries {
		fmt.Fprintf(&sb, "\n## %s [%s%s] %s\n", e.Title, e.Kind, statusOf(e.Status), e.ID)
		rule, spec := "", 0
		if e.Specificity != nil {
			spec = *e.Specificity
		}
		for _, m := range e.Matches {
			if m.Specificity == spec {
				rule = m.Rule
				break
			}
		}
		fmt.Fprintf(&sb, "rule %s (specificity %d); file %s\n", rule, spec, e.File)
		if e.Load != "" {
			fmt.Fprintf(&sb, "load %s: %s\n", e.Load, e.Reason)
		}
		if e.Summary != nil && *e.Summary != "" {
			fmt.Fprintf(&sb, "%s\n", oneLine(*e.Summary))
		}
		if b := strings.TrimSpace(e.Body); b != "" {
			fmt.Fprintf(&sb, "\n%s\n", b)
		}
	}
	if len(r.Boundaries) > 0 || r.NextCursor != "" {
		sb.WriteString("\n")
	}
	governingTail(&sb, r)
	return sb.String()
}

// briefAnswer is ctx_brief's answer: the result as context.brief sends it,
// and as text the brief document itself.
func briefAnswer(result json.RawMessage, _ map[string]json.RawMessage) (json.RawMessage, string) {
	var b api.Brief
	if err := json.Unmarshal(result, &b); err != nil {
		return result, string(result)
	}
	var sb strings.Builder
	for _, s := range b.Sections {
		sb.WriteString(s.Text)
	}
	return result, sb.String()
}

// plainJSON is v's JSON as the dispatcher writes it (no HTML escaping).
func plainJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // a GoverningPage always encodes
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func statusOf(s *string) string {
	if s == nil || *s == "" {
		return ""
	}
	return ", " + *s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
