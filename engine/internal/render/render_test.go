package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/internal/entry"
)

func TestFrontmatterExact(t *testing.T) {
	got := string(Frontmatter(Entry{
		Title: "Use cron for nightly exports", Status: "proposed", Date: "2026-01-10",
		Summary: "One line: for lists", Paths: []string{"src/export/**", "!src/export/testdata/**"},
		Tags: []string{"ops", "exports"}, Supersedes: []string{"2025-11-02-use-systemd-timers"},
		ReviewBy: "2026-07-01", Verify: "go test ./internal/export -run Nightly",
		Body: "Body Markdown…\n",
	}))
	want := `---
status: proposed
date: 2026-01-10
summary: "One line: for lists"
paths: ["src/export/**", "!src/export/testdata/**"]
tags: [ops, exports]
supersedes: [2025-11-02-use-systemd-timers]
review_by: 2026-07-01
verify: go test ./internal/export -run Nightly
---
# Use cron for nightly exports

Body Markdown…
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestADRExact(t *testing.T) {
	got := string(ADR(6, 4, Entry{
		Title: "Use managed PostgreSQL", Status: "proposed", Date: "2026-11-30",
		Paths: []string{"db/**"}, Links: []Link{{Text: "5. Use PostgreSQL for storage", Target: "0005-use-postgresql-for-storage.md"}},
		Body: "## Context\n\nWhy.\n",
	}))
	want := `# 6. Use managed PostgreSQL

Date: 2026-11-30

<!-- kontext
paths: ["db/**"]
-->

## Status

Proposed

Supersedes [5. Use PostgreSQL for storage](0005-use-postgresql-for-storage.md)

## Context

Why.
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if n := FileName(6, 4, "use-managed-postgresql"); n != "0006-use-managed-postgresql.md" {
		t.Fatal(n)
	}
	noMeta := string(ADR(12, 4, Entry{Title: "T", Status: "accepted", Date: "2026-11-30"}))
	if noMeta != "# 12. T\n\nDate: 2026-11-30\n\n## Status\n\nAccepted\n" {
		t.Fatalf("%q", noMeta)
	}
}

var tricky = []string{"yes", "No", "null", "~", "123", "1.5", "0x1f", "2026-01-10", "a: b", "a #b", "- x", "*star",
	"&anchor", "!tag", "'q'", "\"dq\"", "trailing:", "[x]", "{y}", "% pct", "@at", "`tick", "ok, comma", "plain words",
	"Ümlaut café", "x\\y", " lead", "a\tb", "#hash", "|pipe", ">gt", "?q", ",c"}

func TestRoundTrip(t *testing.T) {
	for _, s := range tricky {
		in := Entry{
			Title: "Title " + s, Status: "active", Date: "2026-11-30", Summary: s,
			Paths: []string{"src/**", "**/*.sql", s}, Tags: []string{s, "t"}, Supersedes: []string{s},
			SupersededBy: []string{"x-" + s}, Extends: []string{"e"}, Visibility: "private",
			ReviewBy: "2027-01-01", Checked: "2026-11-30T12:00:00Z", Verify: "make " + s,
			Commits: []string{strings.Repeat("a", 40)}, Body: "Some body.\n\n## More\n\ntext",
		}
		if strings.TrimSpace(s) != s || strings.ContainsAny(s, "\t") {
			in.Summary, in.Verify = "s", "v" // the parser trims these
			in.Title = "Title"
			in.Paths, in.Tags, in.Supersedes, in.SupersededBy = []string{}, []string{}, []string{}, []string{} // list items are trimmed too
		}
		got, diags := entry.Parse(".ai/conventions/x.md", Frontmatter(in), entry.Source{Kind: "convention", Style: entry.StyleFrontmatter})
		if got == nil {
			t.Fatalf("%q: %v\n%s", s, diags, Frontmatter(in))
		}
		check(t, s, in, got, true)

		in.Visibility = ""
		adr, diags := entry.Parse("docs/adr/0006-x.md", ADR(6, 4, in), entry.Source{Kind: "decision", Style: entry.StyleADR})
		if adr == nil {
			t.Fatalf("%q: %v", s, diags)
		}
		if adr.ADRNumber != 6 || adr.Title != in.Title || adr.Status != "active" || adr.Date != in.Date {
			t.Fatalf("%q: adr %+v\n%s", s, adr, ADR(6, 4, in))
		}
		check(t, s, in, adr, false)
	}
}

func check(t *testing.T, s string, in Entry, got *entry.Entry, fm bool) {
	t.Helper()
	eq := func(what string, a, b any) {
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%q %s: got %#v want %#v", s, what, a, b)
		}
	}
	eq("title", got.Title, in.Title)
	eq("summary", got.Summary, in.Summary)
	eq("paths", got.Paths, in.Paths)
	eq("tags", got.Tags, in.Tags)
	eq("extends", got.Extends, in.Extends)
	eq("review_by", got.ReviewBy, in.ReviewBy)
	eq("checked", got.Checked, in.Checked)
	eq("verify", got.Verify, in.Verify)
	eq("commits", got.Commits, in.Commits)
	if fm {
		eq("status", got.Status, in.Status)
		eq("date", got.Date, in.Date)
		eq("supersedes", got.Supersedes, in.Supersedes)
		eq("superseded_by", got.SupersededBy, in.SupersededBy)
		eq("visibility", got.Visibility, in.Visibility)
		eq("body", got.Body, strings.TrimSpace(in.Body))
	}
}
