package kb

import (
	"sort"
	"strings"
	"testing"
)

func diagCodes(s *Snapshot) []string {
	var out []string
	for _, d := range s.Diagnostics {
		out = append(out, d.Severity+" "+d.Code+" "+d.File)
	}
	sort.Strings(out)
	return out
}

func TestRelationsResolveAndReciprocate(t *testing.T) {
	s := read(t, map[string]string{
		".kontext.toml":                 adrConfig,
		"docs/adr/0002-use-sqlite.md":   "# 2. Use SQLite\n\n## Status\n\nAccepted\n",
		"docs/adr/0003-use-mysql.md":    "# 3. Use MySQL\n\n## Status\n\nSuperseded by #8\n",
		"docs/adr/0008-use-postgres.md": "# 8. Use PostgreSQL\n\n## Status\n\nAccepted\n\nSupersedes ADR-0002\n\nAmends [3](0003-use-mysql.md)\n\nDepends on [ADR-99](0099-gone.md)\n",
	})
	pg, _ := s.ByID("0008-use-postgres")
	if strings.Join(pg.Supersedes, ",") != "0002-use-sqlite,0003-use-mysql" {
		t.Errorf("supersedes %v", pg.Supersedes)
	}
	if len(pg.Links) != 2 || pg.Links[0].Target != "0003-use-mysql" || pg.Links[1].Target != "0099-gone" {
		t.Errorf("links %+v", pg.Links)
	}
	for _, id := range []string{"0002-use-sqlite", "0003-use-mysql"} {
		e, _ := s.ByID(id)
		if e.Status != "superseded" || strings.Join(e.SupersededBy, ",") != "0008-use-postgres" {
			t.Errorf("%s: %s %v", id, e.Status, e.SupersededBy)
		}
	}
	want := []string{
		"info inferred_link docs/adr/0002-use-sqlite.md",
		// 0008 lists what it supersedes and leaves 0003 out: the files disagree.
		"warning supersede_mismatch docs/adr/0008-use-postgres.md",
		"warning unresolved_link docs/adr/0008-use-postgres.md",
	}
	if got := diagCodes(s); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("diagnostics %v", got)
	}
}

func TestSupersedeMismatchAndDuplicateNumbers(t *testing.T) {
	s := read(t, map[string]string{
		".kontext.toml":               adrConfig,
		"docs/adr/0001-a.md":          "# 1. A\n\n## Status\n\nSuperseded by [2. B](0002-b.md)\n",
		"docs/adr/0002-b.md":          "# 2. B\n\n## Status\n\nAccepted\n",
		"docs/adr/0003-c.md":          "# 3. C\n\n## Status\n\nAccepted\n\nSupersedes [1. A](0001-a.md)\n",
		"docs/adr/0004-kafka.md":      "# 4. Kafka\n\n## Status\n\nAccepted\n",
		"docs/adr/0004-nats.md":       "# 4. NATS\n\n## Status\n\nAccepted\n",
		"docs/adr/0005-uses-four.md":  "# 5. D\n\n## Status\n\nAccepted\n\nAmends ADR-4\n\nSupersedes ADR-4\n",
		"docs/adr/templates/x.md":     "# 9. Not a record\n",
		"docs/adr/[short title].md":   "# [short title of solved problem and solution]\n",
		"docs/adr/adr-template-x.md":  "# Template\n",
		"docs/adr/0006-template-x.md": "# 6. A real record\n\n## Status\n\nAccepted\n",
	})
	got := diagCodes(s)
	want := []string{
		"info inferred_link docs/adr/0002-b.md",
		"warning duplicate_number docs/adr/0004-kafka.md",
		"warning duplicate_number docs/adr/0004-nats.md",
		"warning supersede_mismatch docs/adr/0001-a.md",
		"warning unresolved_link docs/adr/0005-uses-four.md",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("diagnostics\n got %v\nwant %v", got, want)
	}
	a, _ := s.ByID("0001-a")
	if strings.Join(a.SupersededBy, ",") != "0002-b,0003-c" {
		t.Errorf("0001 superseded_by %v", a.SupersededBy)
	}
	var skipped []string
	for _, sk := range s.Skipped {
		skipped = append(skipped, sk.File+" ("+sk.Reason+")")
	}
	wantSkip := "docs/adr/[short title].md (title is a template placeholder)|docs/adr/adr-template-x.md (template file name)|docs/adr/templates/x.md (under a templates folder)"
	if strings.Join(skipped, "|") != wantSkip {
		t.Errorf("skipped %v", skipped)
	}
	if _, ok := s.ByID("0006-template-x"); !ok {
		t.Error("a numbered record was skipped for its name")
	}
}
