package entry

import (
	"path"
	"reflect"
	"strings"
	"testing"
)

// Relations, bullets, names and templates as adr-tools, MADR and log4brains
// write them.
func TestParseADRToolSpellings(t *testing.T) {
	for _, c := range []struct {
		name, file, in      string
		status              string
		supersedes, supByID []string
		links               []TypedLink
	}{
		{
			name: "upstream adr-tools spelling", file: "0002-a.md",
			in:     "# 2. A\n\nDate: 2024-01-01\n\n## Status\n\nSuperceded by [4. B](0004-b.md)\n\nSupercedes [1. Z](0001-z.md)\n",
			status: "superseded", supersedes: []string{"0001-z"}, supByID: []string{"0004-b"},
		},
		{
			name: "bracketed link title", file: "0005-r.md",
			in:     "# 5. R\n\n## Status\n\nAccepted\n\nRefines [3. Mark [BETA] endpoints](0003-mark-beta-endpoints.md)\n",
			status: "accepted",
			links:  []TypedLink{{"refines", "0003-mark-beta-endpoints", "3. Mark [BETA] endpoints"}},
		},
		{
			name: "bare numbers and an id", file: "0009-n.md",
			in:     "# 9. N\n\n## Status\n\nSuperseded by #12\n\nSupersedes ADR-0002\n\nReplaces: 0003-use-x.md\n",
			status: "superseded", supersedes: []string{"0002", "0003-use-x"}, supByID: []string{"12"},
		},
		{
			name: "MADR front matter superseded by ADR-N", file: "0003-m.md",
			in:     "---\nstatus: superseded by ADR-0008\ndate: 2024-01-01\n---\n# Use M\n",
			status: "superseded", supByID: []string{"0008"},
		},
		{
			name: "MADR front matter superseded by a link", file: "0004-m.md",
			in:     "---\nstatus: \"superseded by [ADR-0012](0012-use-y.md)\"\n---\n# Use M\n",
			status: "superseded", supByID: []string{"0012-use-y"},
		},
		{
			name: "MADR 2 Links bullets", file: "0006-l.md",
			in: "# Use L\n\n* Status: accepted\n\n## Links <!-- optional -->\n\n* Refined by [ADR-0007](0007-x.md)\n" +
				"* Relates to [ADR-0001](0001-a.md)\n* [Link type] [Link to ADR] <!-- example -->\n",
			status: "accepted",
			links:  []TypedLink{{"refined by", "0007-x", "ADR-0007"}, {"relates to", "0001-a", "ADR-0001"}},
		},
		{
			// A link into another directory points at a document (a scenario,
			// a guide), not at a record of this log: no typed link, so no
			// unresolved_link either. Supersession still resolves anywhere.
			name: "MADR 2 Links to documents elsewhere", file: "0007-d.md",
			in: "# Use D\n\n- Status: accepted\n\n## Links\n\n- See [Fibonacci scenario](../../scenarios/fibonacci.md) for the first use\n" +
				"- Refines [ADR-0003](./0003-x.md)\n- Relates to [guide](guides/setup.md)\n",
			status: "accepted",
			links:  []TypedLink{{"refines", "0003-x", "ADR-0003"}},
		},
		{
			name: "MADR 4 More Information: only relation lines", file: "0010-i.md",
			in: "---\nstatus: accepted\n---\n# Use I\n\n## More Information\n\nSee [ADR-0013](0013-x.md) for the background.\n\n" +
				"Depends on [ADR-0002](0002-y.md)\n\nDocs at [the wiki](https://example.com/adr/4).\n",
			status: "accepted",
			links:  []TypedLink{{"depends on", "0002-y", "ADR-0002"}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, _ := parseOK(t, "docs/adr/"+c.file, c.in, decisionADR)
			if e.Status != c.status {
				t.Errorf("status %q", e.Status)
			}
			if !eq(e.Supersedes, c.supersedes) || !eq(e.SupersededBy, c.supByID) {
				t.Errorf("supersedes %q superseded_by %q", e.Supersedes, e.SupersededBy)
			}
			want := c.links
			if want == nil {
				want = []TypedLink{}
			}
			if !reflect.DeepEqual(e.Links, want) {
				t.Errorf("links %+v want %+v", e.Links, want)
			}
		})
	}
}

func TestParseADRBulletsAndDates(t *testing.T) {
	in := "# Use X\n\n* Status: accepted\n* Deciders: Ann, Bob <!-- optional -->\n* Date: 2021-03-04\n\nTechnical Story: TICKET-7\n\n## Context\n\nx\n"
	e, _ := parseOK(t, "docs/decisions/0001-use-x.md", in, decisionADR)
	if e.Status != "accepted" || e.Date != "2021-03-04" || e.Extra["deciders"] != "Ann, Bob" || e.Extra["technical_story"] != "TICKET-7" {
		t.Errorf("MADR 2 bullets: %q %q %v", e.Status, e.Date, e.Extra)
	}
	// log4brains: date-named, "- Tags:", a fresh record's placeholders.
	in = "# Use Y\n\n- Status: accepted\n- Tags: dev-tools, doc\n\n## Context\n"
	e, diags := parseOK(t, "docs/adr/20241201-use-y.md", in, decisionADR)
	if e.HasADRNumber || e.Date != "2024-12-01" || e.DateRaw != "" || !eq(e.Tags, []string{"dev-tools", "doc"}) || len(diags) != 0 {
		t.Errorf("log4brains: number %v date %q raw %q tags %q diags %+v", e.HasADRNumber, e.Date, e.DateRaw, e.Tags, diags)
	}
	in = "# Use Z\n\n- Status: accepted\n- Date: [YYYY-MM-DD when the decision was last updated] <!-- optional -->\n- Tags: [space and/or comma separated list of tags]\n"
	e, diags = parseOK(t, "docs/adr/20241202-use-z.md", in, decisionADR)
	if e.Date != "2024-12-02" || len(e.Tags) != 0 || len(diags) != 0 {
		t.Errorf("placeholders: date %q tags %q diags %+v", e.Date, e.Tags, diags)
	}
	// Not a date: 20241350 is no calendar day.
	e, _ = parseOK(t, "docs/adr/20241350-x.md", "# X\n\n## Status\n\nAccepted\n", decisionADR)
	if !e.HasADRNumber || e.ADRNumber != 20241350 {
		t.Errorf("20241350: %v %d", e.HasADRNumber, e.ADRNumber)
	}
}

func TestSkipReasonAndPlaceholders(t *testing.T) {
	src := Source{Kind: "decision", Dir: "docs/decisions", Style: StyleADR}
	for rel, want := range map[string]string{
		"docs/decisions/adr-template.md":              SkipTemplate,
		"docs/decisions/adr-template-bare-minimal.md": SkipTemplate,
		"docs/decisions/template.md":                  SkipTemplate,
		"docs/decisions/my-template.md":               SkipTemplate,
		"docs/decisions/templates/madr.md":            SkipTemplateDir,
		"docs/decisions/README.md":                    SkipReadme,
		"docs/decisions/index.md":                     SkipIndex,
		"docs/decisions/0012-template-engine.md":      "",
		"docs/decisions/0013-adr-template.md":         "",
		"docs/decisions/use-x.md":                     "",
	} {
		if got := SkipReason(rel, src); got != want {
			t.Errorf("SkipReason(%s) = %q want %q", rel, got, want)
		}
	}
	for _, c := range []struct {
		file, in string
		tmpl     bool
	}{
		{"docs/adr/new.md", "# [short title of solved problem and solution]\n\n* Status: proposed\n", true},
		{"docs/adr/new.md", "---\nstatus: proposed\n---\n# {short title, representative of solved problem}\n", true},
		{"docs/adr/new.md", "# <!-- short title -->\n\n## Status\n", true},
		{"docs/adr/new.md", "# TITLE\n", true},
		{"docs/adr/0007-x.md", "# TITLE\n", false}, // a numbered record is never skipped
		{"docs/adr/new.md", "# Use [gRPC] for RPC\n\n## Status\n\nAccepted\n", false},
	} {
		e, _ := Parse(c.file, []byte(c.in), decisionADR)
		if e == nil || e.IsTemplate() != c.tmpl {
			t.Errorf("%s %q: template %v want %v", c.file, c.in, e != nil && e.IsTemplate(), c.tmpl)
		}
	}
}

// TestSkipTemplateDirSegments: the folder walk of SkipReason (written not
// to allocate) says what splitting the path says.
func TestSkipTemplateDirSegments(t *testing.T) {
	split := func(rel string, src Source) bool {
		inner := strings.TrimPrefix(rel, strings.TrimSuffix(src.Dir, "/")+"/")
		if src.Dir == "" || src.Dir == "." {
			inner = rel
		}
		for _, seg := range strings.Split(path.Dir(inner), "/") {
			if s := strings.ToLower(seg); s == "templates" || s == "template" {
				return true
			}
		}
		return false
	}
	for _, dir := range []string{"", ".", "/", "docs/adr", "docs/adr/", "templates", "a/Templates"} {
		for _, rel := range []string{"x.md", "docs/adr/x.md", "docs/adr/templates/x.md", "docs/adr/Template/y/x.md", "templates/x.md",
			"templates/a/x.md", "a/Templates/x.md", "a/Templates/templates/x.md", "docs/adr/", "/x.md", "docs/adrx/templates/x.md", "a//templates/x.md"} {
			src := Source{Dir: dir, Style: StyleFrontmatter}
			if got, want := SkipReason(rel, src) == SkipTemplateDir, split(rel, src); got != want {
				t.Errorf("SkipReason(%q, dir %q) under a templates folder: %t, want %t", rel, dir, got, want)
			}
		}
	}
}
