package entry

import (
	"encoding/json"
	"testing"
)

var (
	decisionADR = Source{Kind: "decision", Dir: "docs/adr", Style: StyleADR}
	decisionFM  = Source{Kind: "decision", Dir: ".ai/decisions", Style: StyleFrontmatter}
	learningFM  = Source{Kind: "learning", Dir: ".ai/learnings", Style: StyleFrontmatter}
)

// parseOK parses and fails the test when the file is not an entry.
func parseOK(t *testing.T, rel, in string, src Source) (*Entry, []Diagnostic) {
	t.Helper()
	e, diags := Parse(rel, []byte(in), src)
	if e == nil {
		t.Fatalf("Parse(%s) = nil entry, diags %+v", rel, diags)
	}
	checkInvariants(t, e, diags, rel, src)
	return e, diags
}

// checkInvariants asserts what every entry promises its callers.
func checkInvariants(t *testing.T, e *Entry, diags []Diagnostic, rel string, src Source) {
	t.Helper()
	for name, s := range map[string][]string{
		"paths": e.Paths, "tags": e.Tags, "supersedes": e.Supersedes,
		"superseded_by": e.SupersededBy, "extends": e.Extends, "commits": e.Commits,
	} {
		if s == nil {
			t.Errorf("%s: %s is nil", rel, name)
		}
	}
	if e.Extra == nil {
		t.Errorf("%s: Extra is nil", rel)
	}
	if e.File != rel || e.Style != FileStyle(rel, src) {
		t.Errorf("%s: File/Style = %q/%q", rel, e.File, e.Style)
	}
	if e.ID == "" || e.Title == "" {
		t.Errorf("%s: empty id %q or title %q", rel, e.ID, e.Title)
	}
	if _, err := json.Marshal(e); err != nil {
		t.Errorf("%s: entry does not marshal: %v", rel, err)
	}
	for _, d := range diags {
		if d.Severity != "warning" && d.Severity != "info" {
			t.Errorf("%s: entry returned with an error diagnostic %+v", rel, d)
		}
		if d.File != rel {
			t.Errorf("%s: diagnostic file %q", rel, d.File)
		}
	}
}

func findDiag(diags []Diagnostic, code string) *Diagnostic {
	for i := range diags {
		if diags[i].Code == code {
			return &diags[i]
		}
	}
	return nil
}

func eq(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseADRNumber(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"7", 7, true}, {"0007", 7, true}, {"ADR-7", 7, true}, {"adr-0007", 7, true},
		{"ADR7", 7, true}, {"ADR 12", 12, true}, {"#3", 3, true}, {" 42 ", 42, true},
		{"", 0, false}, {"ADR-", 0, false}, {"7a", 0, false}, {"-7", 0, false},
		{"x7", 0, false}, {"99999999999999999999", 0, false}, {"0007-use-postgres", 0, false},
	} {
		got, ok := ParseADRNumber(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseADRNumber(%q) = %d,%v want %d,%v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestParseDate(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2024-03-01", "2024-03-01"},
		{"2024-3-1", "2024-03-01"},
		{"2026-03-01T10:00:00Z", "2026-03-01"},
		{"09/04/2018", "2018-04-09"},
		{"9/4/2018", "2018-04-09"},
		{"13/05/19", "2019-05-13"},
		{"13.05.2019", "2019-05-13"},
		{"2019-05-13, updated 2020-01-01", "2019-05-13"},
		{"2019-05-13 (amended later)", "2019-05-13"},
		{"**2019-05-13**", "2019-05-13"},
		{"March 1, 2024", "2024-03-01"},
		{"1 March 2024", "2024-03-01"},
		{"2024-02-29", "2024-02-29"},
		{"2023-02-29", ""},
		{"31/04/2020", ""},
		{"2024-13-01", ""},
		{"2019-05-133", ""},
		{"someday", ""},
		{"", ""},
		{"05/13/2019", ""}, // month first is not a format we read
	} {
		got, ok := ParseDate(c.in)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("ParseDate(%q) = %q,%v want %q", c.in, got, ok, c.want)
		}
	}
}

func TestAddReviewAfter(t *testing.T) {
	for _, c := range []struct{ date, after, want string }{
		{"2026-01-31", "1m", "2026-02-28"},
		{"2024-01-31", "1m", "2024-02-29"},
		{"2026-01-10", "180d", "2026-07-09"},
		{"2026-01-10", "2w", "2026-01-24"},
		{"2026-08-31", "6m", "2027-02-28"},
		{"2024-02-29", "1y", "2025-02-28"},
		{"2026-01-10", "12m", "2027-01-10"},
		{"2026-03-31", "11m", "2027-02-28"},
	} {
		got, err := AddReviewAfter(c.date, c.after)
		if err != nil || got != c.want {
			t.Errorf("AddReviewAfter(%q,%q) = %q,%v want %q", c.date, c.after, got, err, c.want)
		}
	}
	for _, c := range [][2]string{{"x", "1m"}, {"2026-01-01", ""}, {"2026-01-01", "3q"}, {"2026-01-01", "-1m"}} {
		if got, err := AddReviewAfter(c[0], c[1]); err == nil {
			t.Errorf("AddReviewAfter(%q,%q) = %q, want error", c[0], c[1], got)
		}
	}
}

func TestNormalizeKind(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"adr", "decision", true}, {"ADR", "decision", true}, {"decision", "decision", true},
		{" Convention ", "convention", true}, {"architecture", "architecture", true},
		{"decisions", "", false}, {"note", "", false}, {"", "", false},
	} {
		got, ok := NormalizeKind(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("NormalizeKind(%q) = %q,%v", c.in, got, ok)
		}
	}
}

func TestCanonicalStatus(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Accepted", "accepted"},
		{"✅ Accepted", "accepted"},
		{"❌ Rejected (see [19](0019-x.md))", "rejected"},
		{"Reverted by [12. Foo](0012-foo.md)", "deprecated"},
		{"Retired", "deprecated"},
		{"OBSOLETE", "deprecated"},
		{"Superseded by [9](0009-x.md)", "superseded"},
		{"**Proposed**", "proposed"},
		{"Accepted on 2024-03-01", "accepted"},
		{"Status: Accepted", "accepted"},
		{"Draft", "draft"},
		{"In progress", "in progress"},
		{"Approved by the CTO", "approved"},
		{"Won't do", "won't do"},
		{"", ""},
		{"✅", ""},
	} {
		if got := CanonicalStatus(c.in); got != c.want {
			t.Errorf("CanonicalStatus(%q) = %q want %q", c.in, got, c.want)
		}
	}
}

// Inactive answers the canonical statuses without CanonicalStatus; the
// answer must be the one CanonicalStatus gives.
func TestInactiveCanonicalShortcut(t *testing.T) {
	for _, s := range []string{"superseded", "deprecated", "rejected", "accepted", "active", "proposed", ""} {
		c := CanonicalStatus(s)
		if c != s {
			t.Errorf("CanonicalStatus(%q) = %q: not canonical", s, c)
		}
		if want := c == "superseded" || c == "deprecated" || c == "rejected"; Inactive(s) != want {
			t.Errorf("Inactive(%q) = %v, want %v", s, !want, want)
		}
	}
}

func TestInactiveAndDefault(t *testing.T) {
	for s, want := range map[string]bool{
		"superseded": true, "deprecated": true, "rejected": true, "retired": true,
		"reverted": true, "obsolete": true, "accepted": false, "proposed": false,
		"active": false, "draft": false, "": false,
	} {
		if Inactive(s) != want {
			t.Errorf("Inactive(%q) != %v", s, want)
		}
	}
	if DefaultStatus("decision") != "proposed" || DefaultStatus("adr") != "proposed" ||
		DefaultStatus("learning") != "active" || DefaultStatus("convention") != "active" {
		t.Error("DefaultStatus")
	}
}

func TestIsRecordFile(t *testing.T) {
	adr := Source{Style: StyleADR}
	fm := Source{Style: StyleFrontmatter}
	for _, c := range []struct {
		rel  string
		src  Source
		want bool
	}{
		{"docs/adr/0007-use-postgres.md", adr, true},
		{"docs/adr/README.md", adr, false},
		{"docs/adr/readme.MD", adr, false},
		{"docs/adr/index.md", adr, false},
		{"docs/adr/template.md", adr, false},
		{"docs/adr/adr-template.md", adr, false},
		{"docs/adr/0000-use-this-template.md", adr, false},
		{"docs/adr/0000-Template-Short.md", adr, false},
		{"docs/adr/0000-first.md", adr, true},
		{"docs/adr/diagram.png", adr, false},
		{".ai/decisions/2026-01-10-use-cron.md", fm, true},
		{".ai/decisions/notes.txt", fm, false},
		{".cursor/rules/ts.mdc", Source{Style: StyleCursor}, true},
		{".cursor/rules/ts.md", Source{Style: StyleCursor}, false},
		{".github/instructions/go.instructions.md", Source{Style: StyleCopilot}, true},
		{".github/instructions/go.md", Source{Style: StyleCopilot}, false},
		{"AGENTS.md", Source{Style: StyleAgents}, true},
		{"web/CLAUDE.md", Source{Style: StyleAgents}, true},
		{"web/README.md", Source{Style: StyleAgents}, false},
		{".claude/rules/go.md", Source{Style: StyleAgents}, true},
		{".claude/rules/go.md", Source{Style: StyleClaude}, true},
		{"web/.claude/rules/a/b.md", Source{Style: StyleClaude}, true},
		{"web/.claude/CLAUDE.md", Source{Style: StyleClaude}, true},
		{"CLAUDE.local.md", Source{Style: StyleClaude}, true},
		{"AGENTS.md", Source{Style: StyleClaude}, false},
		{".claude/commands/x.md", Source{Style: StyleClaude}, false},
		{".claude/rules/notes.txt", Source{Style: StyleClaude}, false},
		{"x.claude/rules/a.md", Source{Style: StyleClaude}, false},
	} {
		if got := IsRecordFile(c.rel, c.src); got != c.want {
			t.Errorf("IsRecordFile(%q, %s) = %v", c.rel, c.src.Style, got)
		}
	}
}

func TestStemID(t *testing.T) {
	for in, want := range map[string]string{
		"docs/adr/0007-use-postgres.md": "0007-use-postgres",
		"a.b.md":                        "a.b",
		"noext":                         "noext",
		".hidden":                       ".hidden",
	} {
		if got := StemID(in); got != want {
			t.Errorf("StemID(%q) = %q want %q", in, got, want)
		}
	}
}
