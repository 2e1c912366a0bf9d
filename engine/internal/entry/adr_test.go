package entry

import (
	"reflect"
	"strings"
	"testing"
)

// adrCase is one messy ADR file and what must be read from it.
type adrCase struct {
	name, file, in string
	id, title      string
	num            int // 0 = no ADR number
	status, raw    string
	date, dateRaw  string
	supersedes     []string
	supersededBy   []string
	links          []Link
	warn           []string // warning codes expected (exactly)
	check          func(t *testing.T, e *Entry)
}

func TestParseADR(t *testing.T) {
	cases := []adrCase{
		{
			name: "nygard with both supersede links",
			file: "0007-use-postgres.md",
			in: "# 7. Use PostgreSQL\n\nDate: 2024-03-01\n\n## Status\n\n" +
				"Superseded by [9. Use managed PostgreSQL](0009-use-managed-postgresql.md)\n\n" +
				"Supersedes [3. Use SQLite](0003-use-sqlite.md)\n\n## Context\n\nWe need a database.\n",
			title: "Use PostgreSQL", num: 7, status: "superseded",
			raw:  "Superseded by [9. Use managed PostgreSQL](0009-use-managed-postgresql.md)",
			date: "2024-03-01", dateRaw: "2024-03-01",
			supersedes: []string{"0003-use-sqlite"}, supersededBy: []string{"0009-use-managed-postgresql"},
			check: func(t *testing.T, e *Entry) {
				if strings.Contains(e.Body, "# 7. Use PostgreSQL") || !strings.HasPrefix(e.Body, "Date: 2024-03-01") ||
					!strings.HasSuffix(e.Body, "We need a database.") {
					t.Errorf("body = %q", e.Body)
				}
			},
		},
		{
			name: "emoji status", file: "0002-x.md",
			in:    "# 2. X\n\n## Status\n\n✅ Accepted\n",
			title: "X", num: 2, status: "accepted", raw: "✅ Accepted",
		},
		{
			name: "rejected with trailing link is not a relation", file: "0018-y.md",
			in:    "# 18. Y\n\n## Status\n\n❌ Rejected (see [19](0019-z.md))\n",
			title: "Y", num: 18, status: "rejected", raw: "❌ Rejected (see [19](0019-z.md))",
		},
		{
			name: "reverted by", file: "0011-cache.md",
			in:    "# 11. Cache\n\n## Status\n\nReverted by [12. No cache](0012-no-cache.md)\n",
			title: "Cache", num: 11, status: "deprecated", raw: "Reverted by [12. No cache](0012-no-cache.md)",
			links: []Link{{Relation: "reverted by", Target: "0012-no-cache"}},
		},
		{
			name: "unknown status word kept lower-cased", file: "0004-a.md",
			in:    "# 4. A\n\n## Status\n\nDraft\n",
			title: "A", num: 4, status: "draft", raw: "Draft",
			check: func(t *testing.T, e *Entry) {
				if Inactive(e.Status) {
					t.Error("draft must be active")
				}
			},
		},
		{
			name: "no status section", file: "0005-b.md",
			in:    "# 5. B\n\nDate: 2020-01-01\n\n## Context\n\nStuff.\n",
			title: "B", num: 5, status: "", raw: "", date: "2020-01-01", dateRaw: "2020-01-01",
			warn: []string{CodeMissingStatus},
		},
		{
			name: "status example in fenced code is not status", file: "0006-c.md",
			in:    "# 6. C\n\n## Context\n\n```markdown\n## Status\n\nAccepted\nStatus: Accepted\n```\n",
			title: "C", num: 6, warn: []string{CodeMissingStatus},
		},
		{
			name: "fenced example inside status section skipped", file: "0008-d.md",
			in:    "# 8. D\n\n## Status\n\n```\nAccepted\n```\n\nProposed\n",
			title: "D", num: 8, status: "proposed", raw: "Proposed",
		},
		{
			name: "Replaces is Supersedes; relation line before the status word", file: "0010-e.md",
			in:    "# 10. E\n\n## Status\n\nReplaces: [3. Old](0003-old.md)\n\nAccepted\n",
			title: "E", num: 10, status: "accepted", raw: "Accepted",
			supersedes: []string{"0003-old"},
		},
		{
			name: "other relations go to links", file: "0013-f.md",
			in: "# 13. F\n\n## Status\n\nAccepted\n\nAmends [4. A](0004-a.md)\n\n" +
				"Clarified by [14. G](./0014-g.md#context), [15. H](0015-h.md)\n\nAmended by [ADR-16](https://example.com/16)\n",
			title: "F", num: 13, status: "accepted", raw: "Accepted",
			links: []Link{{"amends", "0004-a"}, {"clarified by", "0014-g"}, {"clarified by", "0015-h"}, {"amended by", "16"}},
		},
		{
			name: "supersede links without a file use the ADR number", file: "0020-g.md",
			in:    "# 20. G\n\n## Status\n\nAccepted\n\nSupersedes ADR-3\n\nSuperseded by [ADR 21](#)\n",
			title: "G", num: 20, status: "accepted", raw: "Accepted",
			supersedes: []string{"3"}, supersededBy: []string{"21"},
		},
		{
			name: "zero-padded heading number", file: "0007-pad.md",
			in:    "# 007. Padded\n\n## Status\n\nAccepted\n",
			title: "Padded", num: 7, status: "accepted", raw: "Accepted",
		},
		{
			name: "heading number without dot", file: "0023-logging.md",
			in:    "# 23 Logging\n\n## Status\n\nAccepted\n",
			title: "Logging", num: 23, status: "accepted", raw: "Accepted",
		},
		{
			name: "heading without number", file: "0030-plain.md",
			in:    "# Plain title\n\n## Status\n\nAccepted\n",
			title: "Plain title", num: 30, status: "accepted", raw: "Accepted",
		},
		{
			name: "number only in the title", file: "use-kafka.md",
			in:    "# ADR 7: Use Kafka\n\n## Status\n\nAccepted\n",
			title: "Use Kafka", num: 7, status: "accepted", raw: "Accepted",
		},
		{
			name: "year-leading title is kept when the file disagrees", file: "0005-roadmap.md",
			in:    "# 2024 roadmap\n\n## Status\n\nAccepted\n",
			title: "2024 roadmap", num: 5, status: "accepted", raw: "Accepted",
		},
		{
			name: "date-named file has no ADR number", file: "2024-03-01-use-x.md",
			in:    "# Use X\n\n## Status\n\nAccepted\n",
			title: "Use X", num: 0, status: "accepted", raw: "Accepted",
		},
		{
			name: "leading blank lines and lower-case status heading", file: "0031-h.md",
			in:    "\n\n\n# 31. H\n\nDate: 2021-02-03\n\n## status\n\naccepted\n",
			title: "H", num: 31, status: "accepted", raw: "accepted", date: "2021-02-03", dateRaw: "2021-02-03",
		},
		{
			name: "date DD/MM/YYYY without colon", file: "0032-i.md",
			in:    "# 32. I\n\nDate 09/04/2018\n\n## Status\n\nAccepted\n",
			title: "I", num: 32, status: "accepted", raw: "Accepted", date: "2018-04-09", dateRaw: "09/04/2018",
		},
		{
			name: "date DD/MM/YY", file: "0033-j.md",
			in:    "# 33. J\n\nDate: 13/05/19\n\n## Status\n\nAccepted\n",
			title: "J", num: 33, status: "accepted", raw: "Accepted", date: "2019-05-13", dateRaw: "13/05/19",
		},
		{
			name: "date with text after it", file: "0034-k.md",
			in:    "# 34. K\n\nDate: 2019-05-13, updated 2020-01-02\n\n## Status\n\nAccepted\n",
			title: "K", num: 34, status: "accepted", raw: "Accepted",
			date: "2019-05-13", dateRaw: "2019-05-13, updated 2020-01-02",
		},
		{
			name: "unreadable date", file: "0035-l.md",
			in:    "# 35. L\n\nDate: sometime in spring\n\n## Status\n\nAccepted\n",
			title: "L", num: 35, status: "accepted", raw: "Accepted", dateRaw: "sometime in spring",
			warn: []string{CodeBadDate},
		},
		{
			name: "Status: line instead of a section", file: "0036-m.md",
			in:    "# 36. M\n\nStatus: Accepted\nDate: 2022-01-01\n\n## Context\n",
			title: "M", num: 36, status: "accepted", raw: "Accepted", date: "2022-01-01", dateRaw: "2022-01-01",
		},
		{
			name: "MADR 2 bullets", file: "0037-n.md",
			in: "# Use N\n\n* Status: superseded by [ADR-0040](0040-example.md)\n* Deciders: Ana\n* Date: 2020-01-01\n\n" +
				"## Context and Problem Statement\n",
			title: "Use N", num: 37, status: "superseded", raw: "superseded by [ADR-0040](0040-example.md)",
			date: "2020-01-01", dateRaw: "2020-01-01", supersededBy: []string{"0040-example"},
		},
		{
			name: "MADR frontmatter takes precedence", file: "0038-o.md",
			in: "---\nstatus: accepted\ndate: 2024-05-01\ndeciders: [ana, bo]\nid: ignored\n---\n# Use O\n\nDate: 2020-01-01\n\n" +
				"## Status\n\nProposed\n",
			title: "Use O", num: 38, status: "accepted", raw: "accepted", date: "2024-05-01", dateRaw: "2024-05-01",
			check: func(t *testing.T, e *Entry) {
				if !reflect.DeepEqual(e.Extra["deciders"], []any{"ana", "bo"}) || e.Extra["id"] != "ignored" {
					t.Errorf("extra = %#v", e.Extra)
				}
				if e.ID != "0038-o" {
					t.Errorf("id = %q", e.ID)
				}
			},
		},
		{
			name: "status heading with value", file: "0039-p.md",
			in:    "# 39. P\n\n## Status: Accepted\n\n## Context\n",
			title: "P", num: 39, status: "accepted", raw: "Accepted",
		},
		{
			name: "emphasised status and emoji heading", file: "0041-q.md",
			in:    "# 41. Q\n\n## 📌 Status\n\n**Deprecated**\n",
			title: "Q", num: 41, status: "deprecated", raw: "Deprecated",
		},
		{
			name: "CRLF line ends", file: "0042-r.md",
			in:    "# 42. R\r\n\r\nDate: 2024-01-02\r\n\r\n## Status\r\n\r\nAccepted\r\n",
			title: "R", num: 42, status: "accepted", raw: "Accepted", date: "2024-01-02", dateRaw: "2024-01-02",
		},
		{
			name: "kontext metadata block after the date", file: "0043-s.md",
			in: "# 43. S\n\nDate: 2024-03-01\n<!-- kontext\npaths: [\"src/db/**\", \"!src/db/testdata/**\"]\ntags: [db]\n" +
				"verify: go test ./db\nchecked: 2024-04-01\nreview_by: 2024-09-01\nsummary: One line.\nextends: 0001-base\n" +
				"commits: [abc]\nowner: team-db\n-->\n\n## Status\n\nAccepted\n",
			title: "S", num: 43, status: "accepted", raw: "Accepted", date: "2024-03-01", dateRaw: "2024-03-01",
			check: func(t *testing.T, e *Entry) {
				if !eq(e.Paths, []string{"src/db/**", "!src/db/testdata/**"}) || !eq(e.Tags, []string{"db"}) ||
					e.Verify != "go test ./db" || e.Checked != "2024-04-01" || e.ReviewBy != "2024-09-01" ||
					e.Summary != "One line." || !eq(e.Extends, []string{"0001-base"}) || !eq(e.Commits, []string{"abc"}) ||
					e.Extra["owner"] != "team-db" {
					t.Errorf("metadata not read: %+v", e)
				}
			},
		},
		{
			name: "kontext block with an unquoted glob", file: "0044-t.md",
			in:    "# 44. T\n\nDate: 2024-03-01\n\n<!-- kontext\npaths: src/**\n-->\n\n## Status\n\nAccepted\n",
			title: "T", num: 44, status: "accepted", raw: "Accepted", date: "2024-03-01", dateRaw: "2024-03-01",
			check: func(t *testing.T, e *Entry) {
				if !eq(e.Paths, []string{"src/**"}) {
					t.Errorf("paths = %q", e.Paths)
				}
			},
		},
		{
			name: "no title heading", file: "0045-no-title.md",
			in:    "## Status\n\nAccepted\n",
			title: "0045-no-title", num: 45, status: "accepted", raw: "Accepted",
		},
		{
			name: "level-2 title heading first", file: "0046-u.md",
			in:    "## 46. U\n\n### Status\n\nRejected\n",
			title: "U", num: 46, status: "rejected", raw: "Rejected",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rel := "docs/adr/" + c.file
			e, diags := parseOK(t, rel, c.in, decisionADR)
			id := c.id
			if id == "" {
				id = StemID(c.file)
			}
			if e.ID != id || e.Title != c.title || e.Kind != "decision" {
				t.Errorf("id/title/kind = %q/%q/%q", e.ID, e.Title, e.Kind)
			}
			if c.num == 0 && e.HasADRNumber || c.num != 0 && (!e.HasADRNumber || e.ADRNumber != c.num) {
				t.Errorf("adr number = %d,%v want %d", e.ADRNumber, e.HasADRNumber, c.num)
			}
			if e.Status != c.status || e.StatusRaw != c.raw {
				t.Errorf("status = %q raw %q, want %q raw %q", e.Status, e.StatusRaw, c.status, c.raw)
			}
			if e.Date != c.date || e.DateRaw != c.dateRaw {
				t.Errorf("date = %q raw %q, want %q raw %q", e.Date, e.DateRaw, c.date, c.dateRaw)
			}
			if !eq(e.Supersedes, c.supersedes) || !eq(e.SupersededBy, c.supersededBy) {
				t.Errorf("supersedes %q superseded_by %q", e.Supersedes, e.SupersededBy)
			}
			links, _ := e.Extra["links"].([]Link)
			if !reflect.DeepEqual(links, c.links) {
				t.Errorf("links = %+v want %+v", links, c.links)
			}
			var codes []string
			for _, d := range diags {
				codes = append(codes, d.Code)
			}
			if !reflect.DeepEqual(codes, c.warn) {
				t.Errorf("diagnostics = %+v want codes %v", diags, c.warn)
			}
			if e.Markdown != c.in || e.Visibility != "team" {
				t.Error("markdown/visibility")
			}
			if c.check != nil {
				c.check(t, e)
			}
		})
	}
}

func TestParseADRReviewAfterAndErrors(t *testing.T) {
	src := decisionADR
	src.ReviewAfter = "1m"
	e, _ := parseOK(t, "docs/adr/0001-a.md", "# 1. A\n\nDate: 2026-01-31\n\n## Status\n\nAccepted\n", src)
	if e.ReviewBy != "2026-02-28" {
		t.Errorf("review_by = %q", e.ReviewBy)
	}
	e, diags := Parse("docs/adr/0002-b.md", []byte("---\nstatus: [unclosed\n---\n# 2. B\n"), decisionADR)
	if e != nil || findDiag(diags, CodeBadFrontmatter) == nil || diags[0].Severity != "error" {
		t.Errorf("bad MADR frontmatter: %v %+v", e, diags)
	}
}

func TestParseADRPreambleProseIsNotALink(t *testing.T) {
	in := "# 50. V\n\nThis ADR builds on [3. Base](0003-base.md).\nAmends: [4. A](0004-a.md)\n\n## Status\n\nAccepted\n"
	e, _ := parseOK(t, "docs/adr/0050-v.md", in, decisionADR)
	links, _ := e.Extra["links"].([]Link)
	if !reflect.DeepEqual(links, []Link{{"amends", "0004-a"}}) {
		t.Errorf("links = %+v", links)
	}
}
