package drafts

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
)

// addedHeading is the heading of one appended section.
var addedHeading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^## Added \d{4}-\d{2}-\d{2}[ \t]*$`) })

// runAmend is drafts.stage {amends: {id, revision}, entry: {body}}: an
// append-only edit of a convention, learning or incident.
// entry.body is either the current body followed by `## Added <date>`
// sections (the shape drafts.extend returns), only such sections, or plain
// text, which is appended verbatim under `## Added <today>`. Everything
// before the addition stays byte for byte; the file is parsed again and
// every non-body field must read as before.
func (e *draft) runAmend(ctx context.Context, in *api.StageInput) (any, error) {
	switch {
	case in.CandidateID != "":
		return nil, apierr.Invalid("amends cannot be combined with candidate_id; promote the candidate or amend an entry")
	case in.Entry == nil:
		return nil, jsonin.Errorf("entry", "is required with amends: entry.body holds the text to add")
	case len(in.Entry.Supersedes) > 0:
		return nil, apierr.Invalid("amends cannot be combined with entry.supersedes; supersede in a separate drafts.stage")
	case len(in.Entry.Extends) > 0:
		return nil, apierr.Invalid("amends cannot be combined with entry.extends")
	case strings.TrimSpace(in.Amends.ID) == "":
		return nil, jsonin.Errorf("amends.id", "is required: the entry to add to")
	case strings.TrimSpace(in.Amends.Revision) == "":
		return nil, jsonin.Errorf("amends.revision", "is required: the entry's revision as read (entries.get revision)")
	case strings.TrimSpace(in.Entry.Body) == "":
		return nil, jsonin.Errorf("entry.body", "is required with amends: the text to add")
	}
	fp := in.Fingerprint
	if fp == "" {
		fp = fingerprint(in)
	}
	var amended string
	plan := func(st *engine.State) ([]change, string, []string, error) {
		en, err := st.Snap.Lookup(in.Amends.ID)
		if err != nil {
			return nil, "", nil, err
		}
		switch en.Kind {
		case "decision":
			return nil, "", nil, apierr.New(apierr.DecisionNotAmended, "%s is a decision; decisions change only by supersession: stage a new decision with supersedes: [%s]", en.ID, en.ID)
		case "convention", "learning", "incident":
		default:
			return nil, "", nil, jsonin.Errorf("amends.id", "%s is a %s; only conventions, learnings and incidents are amended", en.ID, en.Kind)
		}
		en, err = e.editable(ctx, st, en.ID, in.Amends.Revision, "extending")
		if err != nil {
			if ae := apierr.As(err); ae.Code == apierr.InvalidInput && strings.HasPrefix(ae.Message, `field "entry_revision"`) {
				return nil, "", nil, apierr.Invalid("%s", `field "amends.revision"`+strings.TrimPrefix(ae.Message, `field "entry_revision"`))
			}
			return nil, "", nil, err
		}
		if entry.Inactive(en.Status) {
			return nil, "", nil, apierr.New(apierr.OperationConflict, "%s is %s; only active entries are amended", en.ID, en.Status)
		}
		if err := amendSameFields(en, in.Entry); err != nil {
			return nil, "", nil, err
		}
		data, err := amendText(en, in.Entry.Body, e.Today())
		if err != nil {
			return nil, "", nil, err
		}
		amended = en.ID
		notes := []string{"appended to " + en.ID + " (everything before the addition is unchanged)"}
		if ign := amendIgnored(in.Entry); len(ign) > 0 {
			notes = append(notes, "ignored with amends: entry."+strings.Join(ign, ", entry."))
		}
		return []change{{path: en.File, data: data}}, en.File, notes, nil
	}
	// The input is stored with the plan: a resume by operation_id and
	// fingerprint alone (or the CLI's rerun, StoredInput) sends it again.
	res, err := e.writeOpInput(ctx, "drafts.stage", in.OperationID, fp, in, plan, nil)
	if err != nil {
		return nil, err
	}
	switch r := res.(type) {
	case *api.StageResult:
		if amended == "" && r.Entry != nil {
			amended = r.Entry.ID
		}
		return &api.AmendResult{StageResult: r, Amended: amended}, nil
	case map[string]any: // a replayed receipt
		if _, ok := r["amended"]; !ok {
			if en, ok := r["entry"].(map[string]any); ok {
				r["amended"] = en["id"]
			}
		}
		return r, nil
	}
	return res, nil
}

// amendSameFields refuses an amend whose entry names another title, kind,
// status or paths than the entry has: those change only by supersession.
func amendSameFields(en *entry.Entry, se *api.StageEntry) error {
	var diff []string
	if t := strings.TrimSpace(se.Title); t != "" && t != en.Title {
		diff = append(diff, fmt.Sprintf("title %q (is %q)", t, en.Title))
	}
	if se.Kind != "" {
		if k, ok := entry.NormalizeKind(se.Kind); !ok || k != en.Kind {
			diff = append(diff, fmt.Sprintf("kind %q (is %s)", se.Kind, en.Kind))
		}
	}
	if s := strings.ToLower(strings.TrimSpace(se.Status)); s != "" && s != en.Status {
		diff = append(diff, fmt.Sprintf("status %q (is %s)", se.Status, en.Status))
	}
	if se.Paths != nil && strings.Join(se.Paths, "\x00") != strings.Join(en.OwnPaths(), "\x00") {
		diff = append(diff, fmt.Sprintf("paths %q (are %q)", se.Paths, en.OwnPaths()))
	}
	if len(diff) > 0 {
		return apierr.New(apierr.AmendNotAdditive, "an amend only adds ## Added sections; it cannot change %s of %s: supersede the entry instead (kontext supersede %s)", strings.Join(diff, ", "), en.ID, en.ID)
	}
	return nil
}

// amendIgnored names the entry fields an amend does not use.
func amendIgnored(se *api.StageEntry) []string {
	var out []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"summary", se.Summary != ""}, {"tags", len(se.Tags) > 0}, {"visibility", se.Visibility != ""},
		{"commits", len(se.Commits) > 0}, {"review_by", se.ReviewBy != ""}, {"verify", se.Verify != ""}} {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}

// amendText is the amended file: the old bytes (plus a line break when
// they lack a final one), a blank line and the added sections.
func amendText(en *entry.Entry, body, today string) ([]byte, error) {
	old := en.Markdown
	nl := "\n"
	if strings.Contains(old, "\r\n") {
		nl = "\r\n"
	}
	notAdditive := func(format string, args ...any) error {
		return apierr.New(apierr.AmendNotAdditive, "%s; an amend only appends ## Added <YYYY-MM-DD> sections after the current body: supersede the entry to change what it says (kontext supersede %s)",
			fmt.Sprintf(format, args...), en.ID)
	}
	cur := strings.TrimSpace(en.Body)
	b := strings.Trim(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	curLF := strings.ReplaceAll(cur, "\r\n", "\n")
	if strings.TrimSpace(b) == curLF {
		return nil, jsonin.Errorf("entry.body", "equals the current body of %s; nothing to add", en.ID)
	}
	var add string
	switch {
	case curLF != "" && strings.HasPrefix(strings.TrimLeft(b, " \t\n"), curLF):
		// The current body followed by ## Added sections.
		add = strings.Trim(strings.TrimPrefix(strings.TrimLeft(b, " \t\n"), curLF), "\n")
		if err := onlyAddedSections(add); err != nil {
			return nil, notAdditive("the text after the current body %s", err)
		}
	case addedHeading().MatchString(firstLine(b)):
		add = b
		if err := onlyAddedSections(add); err != nil {
			return nil, notAdditive("entry.body %s", err)
		}
	case curLF != "" && firstLine(b) == firstLine(curLF):
		return nil, notAdditive("entry.body starts like the current body but does not contain it unchanged")
	case hasAddedHeading(b):
		return nil, notAdditive("entry.body has ## Added sections but does not start with the current body unchanged")
	default:
		// Plain text: appended verbatim under today's heading.
		add = "## Added " + today + "\n\n" + b
	}
	if nl != "\n" {
		add = strings.ReplaceAll(add, "\n", nl)
	}
	prefix := old
	if !strings.HasSuffix(prefix, "\n") {
		prefix += nl
	}
	sep := nl
	if strings.HasSuffix(prefix, nl+nl) || prefix == nl {
		sep = ""
	}
	text := prefix + sep + add + nl
	if !strings.HasPrefix(text, prefix) || !strings.HasPrefix(text, old) {
		return nil, notAdditive("the amended file does not start with the old file")
	}
	if err := amendReparse(en, text); err != nil {
		return nil, notAdditive("%v", err)
	}
	return []byte(text), nil
}

// onlyAddedSections checks that text consists of `## Added <date>`
// sections only: it starts with such a heading, and every other heading of
// level one or two outside code fences is one too.
func onlyAddedSections(text string) error {
	if !addedHeading().MatchString(firstLine(text)) {
		return fmt.Errorf("does not start with a ## Added <YYYY-MM-DD> heading")
	}
	inFence := false
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if (strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "## ")) && !addedHeading().MatchString(strings.TrimRight(l, "\r")) {
			return fmt.Errorf("has the heading %q, which is not ## Added <YYYY-MM-DD>", strings.TrimSpace(l))
		}
	}
	return nil
}

// hasAddedHeading reports whether text has a `## Added <date>` heading
// outside code fences.
func hasAddedHeading(text string) bool {
	inFence := false
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if !inFence && addedHeading().MatchString(strings.TrimRight(l, "\r")) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s = strings.TrimLeft(s, " \t\r\n")
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimRight(l, " \t\r")
}

// amendReparse parses the amended file: id, title, kind, status and every
// other non-body field read as before, and the old body is still its start.
func amendReparse(en *entry.Entry, text string) error {
	src := entry.Source{Kind: en.Kind, Style: en.Style, ReadOnly: en.ReadOnly}
	before, _ := entry.Parse(en.File, []byte(en.Markdown), src)
	after, _ := entry.Parse(en.File, []byte(text), src)
	if before == nil || after == nil {
		return fmt.Errorf("the amended file does not read as an entry")
	}
	j := func(xs []string) string { return strings.Join(xs, "\x00") }
	for _, f := range []struct{ name, was, is string }{
		{"id", before.ID, after.ID}, {"title", before.Title, after.Title}, {"kind", before.Kind, after.Kind},
		{"status", before.Status + "\x00" + before.StatusRaw, after.Status + "\x00" + after.StatusRaw},
		{"paths", j(before.Paths), j(after.Paths)}, {"tags", j(before.Tags), j(after.Tags)},
		{"summary", before.Summary, after.Summary}, {"date", before.DateRaw, after.DateRaw},
		{"supersedes", j(before.Supersedes), j(after.Supersedes)}, {"superseded_by", j(before.SupersededBy), j(after.SupersededBy)},
		{"extends", j(before.Extends), j(after.Extends)}, {"review_by", before.ReviewBy, after.ReviewBy},
		{"checked", before.Checked, after.Checked}, {"verify", before.Verify, after.Verify},
		{"visibility", before.Visibility, after.Visibility}, {"commits", j(before.Commits), j(after.Commits)},
	} {
		if f.was != f.is {
			return fmt.Errorf("the amended file reads with another %s", f.name)
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(after.Body), strings.TrimSpace(before.Body)) {
		return fmt.Errorf("the amended body does not start with the old body")
	}
	return nil
}
