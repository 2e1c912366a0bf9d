package mcptools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kontext/kontext/engine/api"
)

// What each client gets. structuredContent is always the answer object
// ({schema_version, ok, result | error}); clients that read it need nothing
// else. The text block is for clients that show the model text only:
// ctx_api, ctx_capture, ctx_challenge and ctx_prepare_commit put the
// answer's JSON there (small answers, or the API's own shape); ctx_governing
// and ctx_brief put a plain-text reading of the same answer there (the
// entries as short lines, the brief document), so a model gets the facts
// once in each channel and never a second copy of the JSON. Errors are
// always the JSON error.

// governingText is ctx_governing's text block: one short block per entry,
// then how to get more.
func governingText(result json.RawMessage, args map[string]json.RawMessage) string {
	var r api.GoverningResult
	if err := json.Unmarshal(result, &r); err != nil {
		return string(result)
	}
	var paths []string
	_ = json.Unmarshal(args["paths"], &paths)
	var cursor string
	_ = json.Unmarshal(args["cursor"], &cursor)
	var sb strings.Builder
	// The asked path is not echoed: it may be absolute, and the answer is
	// the same for either form.
	what := "the asked paths"
	if len(paths) == 1 {
		what = "the asked path"
	}
	shown := len(r.Items) + len(r.Entries)
	switch {
	case r.Total == 0 && len(r.Boundaries) == 0:
		fmt.Fprintf(&sb, "No entry governs %s.\n", what)
		return sb.String()
	case r.Total == 0:
		fmt.Fprintf(&sb, "No entry of this repository governs %s.\n", what)
	case shown < r.Total || cursor != "":
		fmt.Fprintf(&sb, "%d entries govern %s; %d here, most specific first.\n", r.Total, what, shown)
	default:
		fmt.Fprintf(&sb, "%d %s %s, most specific first.\n", r.Total, plural(r.Total, "entry governs", "entries govern"), what)
	}
	for _, c := range r.Items {
		fmt.Fprintf(&sb, "\n- %s [%s%s] %s\n", c.Title, c.Kind, statusOf(c.Status), c.ID)
		spec := 0
		if c.Specificity != nil {
			spec = *c.Specificity
		}
		fmt.Fprintf(&sb, "  rule %s (specificity %d)", c.Rule, spec)
		if len(c.Paths) > 0 {
			fmt.Fprintf(&sb, " for %s", strings.Join(c.Paths, ", "))
		}
		if c.ReviewDue {
			sb.WriteString("; review due")
		}
		fmt.Fprintf(&sb, "; file %s\n", c.File)
		if c.Summary != nil && *c.Summary != "" {
			fmt.Fprintf(&sb, "  %s\n", oneLine(*c.Summary))
		}
		switch {
		case c.Body != "":
			fmt.Fprintf(&sb, "  %s\n", indent(c.Body))
		case c.BodyBytes > 0:
			fmt.Fprintf(&sb, "  (body %d bytes: detail: true)\n", c.BodyBytes)
		}
	}
	for _, e := range r.Entries { // detail: whole entries
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
		if e.Summary != nil && *e.Summary != "" {
			fmt.Fprintf(&sb, "%s\n", oneLine(*e.Summary))
		}
		if b := strings.TrimSpace(e.Body); b != "" {
			fmt.Fprintf(&sb, "\n%s\n", b)
		}
	}
	for _, b := range r.Boundaries {
		fmt.Fprintf(&sb, "\n%s lies in the nested repository %s: ask there (dir %q) for the rules of %s.\n", b.Path, b.Repository, b.Repository, b.RepositoryPath)
	}
	if r.NextCursor != "" {
		fmt.Fprintf(&sb, "\nMore: call again with cursor %q.\n", r.NextCursor)
	}
	return sb.String()
}

// briefText is ctx_brief's text block: the brief document itself.
func briefText(result json.RawMessage, _ map[string]json.RawMessage) string {
	var b api.Brief
	if err := json.Unmarshal(result, &b); err != nil {
		return string(result)
	}
	var sb strings.Builder
	for _, s := range b.Sections {
		sb.WriteString(s.Text)
	}
	return sb.String()
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

func indent(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}
