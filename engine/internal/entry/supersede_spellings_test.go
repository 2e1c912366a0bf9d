package entry

import "testing"

// Every supersession spelling seen in real ADR logs is read as an edge:
// the status word (with or without emoji, with or without "by") followed
// by a link, an ADR number or a record's file name.
func TestSupersedeSpellings(t *testing.T) {
	cases := []struct {
		name, status        string
		status2             string // canonical status
		supersedes, superBy []string
	}{
		{"hourglass emoji, no by", "⌛️ Superseded [0020](0020-new.md)", "superseded", nil, []string{"0020-new"}},
		{"hourglass without variation selector", "⌛ Superseded [0020](0020-new.md)", "superseded", nil, []string{"0020-new"}},
		{"no by", "Superseded [0020](0020-new.md)", "superseded", nil, []string{"0020-new"}},
		{"adr-tools spelling, no by", "Superceded [20. New](0020-new.md)", "superseded", nil, []string{"0020-new"}},
		{"by ADR-number link", "Superseded by [ADR-0020](0020-new.md)", "superseded", nil, []string{"0020-new"}},
		{"by link without a file", "Superseded by [ADR-0020](#)", "superseded", nil, []string{"0020"}},
		{"by bare number", "Superseded by 0020", "superseded", nil, []string{"0020"}},
		{"colon and number", "Superseded: 20", "superseded", nil, []string{"20"}},
		{"number without by", "Superseded 20", "superseded", nil, []string{"20"}},
		{"file name without by", "Superseded 0020-new.md", "superseded", nil, []string{"0020-new"}},
		{"status line bullet", "* Status: ⌛️ Superseded [0020](0020-new.md)", "superseded", nil, []string{"0020-new"}},
		{"a date is no target", "Superseded 2019-05-13", "superseded", nil, nil},
		{"a slashed date is no target", "Superseded 13/05/2019", "superseded", nil, nil},
		{"accepted, supersedes link", "Accepted\n\nSupersedes [0005](0005-old.md)", "accepted", []string{"0005-old"}, nil},
		{"accepted, supersedes number", "Accepted\n\nSupersedes 5", "accepted", []string{"5"}, nil},
		{"emoji accepted, supercedes", "✅ Accepted\n\nSupercedes [5. Old](0005-old.md)", "accepted", []string{"0005-old"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := "# 19. Old\n\nDate: 2024-03-01\n\n## Status\n\n" + c.status + "\n\n## Context\n\nText.\n"
			if c.status[0] == '*' {
				in = "# 19. Old\n\n" + c.status + "\n* Date: 2024-03-01\n\n## Context\n\nText.\n"
			}
			e, _ := parseOK(t, "docs/adr/0019-old.md", in, decisionADR)
			if e.Status != c.status2 {
				t.Errorf("status = %q (raw %q), want %q", e.Status, e.StatusRaw, c.status2)
			}
			if !eq(e.Supersedes, c.supersedes) || !eq(e.SupersededBy, c.superBy) {
				t.Errorf("supersedes %q superseded_by %q, want %q %q", e.Supersedes, e.SupersededBy, c.supersedes, c.superBy)
			}
			for _, l := range e.Links {
				if l.Type == "superseded" || l.Type == "superceded" {
					t.Errorf("supersession kept as a typed link: %+v", l)
				}
			}
		})
	}
}
