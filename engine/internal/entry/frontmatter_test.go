package entry

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestFrontmatterFull(t *testing.T) {
	in := `---
id: 2026-01-10-use-cron
kind: decision
title: Use cron for nightly exports
status: accepted
date: 2026-01-10
summary: One line for lists and briefs.
paths: ["src/export/**", "!src/export/testdata/**"]
tags: [ops, exports]
supersedes: [2025-11-02-use-systemd-timers]
superseded_by: []
extends: []
visibility: team
review_by: 2026-07-01
checked: 2026-03-01T10:00:00Z
verify: go test ./internal/export -run Nightly
commits: [0123456789abcdef0123456789abcdef01234567]
---
# Use cron for nightly exports

Body Markdown…
`
	e, diags := parseOK(t, ".ai/decisions/x.md", in, decisionFM)
	if len(diags) != 0 {
		t.Errorf("diags = %+v", diags)
	}
	want := Entry{
		ID: "2026-01-10-use-cron", Kind: "decision", Title: "Use cron for nightly exports",
		// The title came from frontmatter, so the heading stays in the body.
		Body:    "# Use cron for nightly exports\n\nBody Markdown…",
		Summary: "One line for lists and briefs.", Status: "accepted", StatusRaw: "accepted",
		Date: "2026-01-10", DateRaw: "2026-01-10", ReviewBy: "2026-07-01", Checked: "2026-03-01T10:00:00Z",
		Verify: "go test ./internal/export -run Nightly", Visibility: "team",
		Paths: []string{"src/export/**", "!src/export/testdata/**"}, Tags: []string{"ops", "exports"},
		Supersedes: []string{"2025-11-02-use-systemd-timers"}, SupersededBy: []string{}, Extends: []string{},
		Commits: []string{"0123456789abcdef0123456789abcdef01234567"},
		File:    ".ai/decisions/x.md", Markdown: in, Style: StyleFrontmatter, Extra: map[string]any{},
		Links: []TypedLink{},
	}
	if !reflect.DeepEqual(*e, want) {
		t.Errorf("got  %+v\nwant %+v", *e, want)
	}
}

func TestFrontmatterDefaultsAndConversions(t *testing.T) {
	in := "---\npaths: src/**.go\ntags: ops\nsupersedes: old-one\ncommits:\nchecked: 2026-03-01\n" +
		"owner: {name: Ana, teams: [a, b], since: 2024-01-02, n: 3, ratio: 0.5, ok: true, none: null}\n" +
		"external_refs: [\"ticket:42\"]\nweird: .nan\n---\n\n\n# The heading title\n\nFirst paragraph.\n\n## More\n\ntext\n\n"
	e, diags := parseOK(t, ".ai/learnings/some-learning.md", in, learningFM)
	if len(diags) != 0 {
		t.Errorf("diags = %+v", diags)
	}
	if e.ID != "some-learning" || e.Kind != "learning" || e.Status != "active" || e.StatusRaw != "" {
		t.Errorf("defaults: id %q kind %q status %q raw %q", e.ID, e.Kind, e.Status, e.StatusRaw)
	}
	if e.Title != "The heading title" || e.Body != "First paragraph.\n\n## More\n\ntext" {
		t.Errorf("title %q body %q", e.Title, e.Body)
	}
	if !eq(e.Paths, []string{"src/**.go"}) || !eq(e.Tags, []string{"ops"}) || !eq(e.Supersedes, []string{"old-one"}) ||
		e.Commits == nil || len(e.Commits) != 0 {
		t.Errorf("scalar→array: %q %q %q %q", e.Paths, e.Tags, e.Supersedes, e.Commits)
	}
	if e.Checked != "2026-03-01" {
		t.Errorf("checked = %q", e.Checked)
	}
	owner := map[string]any{"name": "Ana", "teams": []any{"a", "b"}, "since": "2024-01-02", "n": 3,
		"ratio": 0.5, "ok": true, "none": nil}
	if !reflect.DeepEqual(e.Extra["owner"], owner) || !reflect.DeepEqual(e.Extra["external_refs"], []any{"ticket:42"}) ||
		e.Extra["weird"] != ".nan" {
		t.Errorf("extra = %#v", e.Extra)
	}
	if _, err := json.Marshal(e.Extra); err != nil {
		t.Error(err)
	}
	if e.Visibility != "team" || e.Date != "" || e.ReviewBy != "" {
		t.Error("visibility/date defaults")
	}
}

func TestFrontmatterNoFrontmatter(t *testing.T) {
	e, _ := parseOK(t, ".ai/decisions/plain.md", "Just text, no heading.\n", decisionFM)
	if e.Title != "plain" || e.Status != "proposed" || e.Body != "Just text, no heading." {
		t.Errorf("%+v", e)
	}
	e, _ = parseOK(t, ".ai/decisions/setext.md", "Setext title\n============\n\nbody\n", decisionFM)
	if e.Title != "Setext title" || e.Body != "body" {
		t.Errorf("setext: %q %q", e.Title, e.Body)
	}
}

func TestFrontmatterWarnings(t *testing.T) {
	src := decisionFM
	src.ReviewAfter = "1m"
	for _, c := range []struct {
		name, in string
		code     string
		line     int
		check    func(e *Entry) bool
	}{
		{"unknown kind", "---\nkind: memo\n---\n# T\n", CodeUnknownKind, 2,
			func(e *Entry) bool { return e.Kind == "decision" && e.Status == "proposed" }},
		{"bad date", "---\ndate: someday\n---\n# T\n", CodeBadDate, 2,
			func(e *Entry) bool { return e.DateRaw == "someday" && e.Date == "" && e.ReviewBy == "" }},
		{"review_by before date", "---\ndate: 2026-05-01\nreview_by: 2026-01-01\n---\n# T\n", CodeBadDate, 3,
			func(e *Entry) bool { return e.ReviewBy == "2026-01-01" }},
		{"bad visibility", "---\nvisibility: public\n---\n# T\n", CodeBadValue, 2,
			func(e *Entry) bool { return e.Visibility == "team" }},
		{"multi-line verify", "---\nverify: |\n  go test\n  rm -rf /\n---\n# T\n", CodeBadValue, 2,
			func(e *Entry) bool { return e.Verify == "" }},
		{"long verify", "---\nverify: " + strings.Repeat("x", 501) + "\n---\n# T\n", CodeBadValue, 2,
			func(e *Entry) bool { return e.Verify == "" }},
		{"list item that is a map", "---\ntags: [a, {b: c}]\n---\n# T\n", CodeBadValue, 2,
			func(e *Entry) bool { return eq(e.Tags, []string{"a"}) }},
		{"duplicate key", "---\ntitle: One\ntitle: Two\n---\n", CodeBadValue, 3,
			func(e *Entry) bool { return e.Title == "One" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, diags := parseOK(t, ".ai/decisions/t.md", c.in, src)
			d := findDiag(diags, c.code)
			if d == nil || d.Line != c.line || len(diags) != 1 {
				t.Fatalf("diags = %+v, want %s at line %d", diags, c.code, c.line)
			}
			if !c.check(e) {
				t.Errorf("entry = %+v", e)
			}
		})
	}
}

func TestFrontmatterKindAliasAndPrivate(t *testing.T) {
	e, diags := parseOK(t, ".ai/learnings/t.md", "---\nkind: ADR\nvisibility: Private\nverify: \"go vet ./...\"\n---\n", learningFM)
	if e.Kind != "decision" || e.Status != "proposed" || e.Visibility != "private" || e.Verify != "go vet ./..." || len(diags) != 0 {
		t.Errorf("%+v %+v", e, diags)
	}
}

func TestReviewAfterClamping(t *testing.T) {
	src := decisionFM
	src.ReviewAfter = "1m"
	e, _ := parseOK(t, ".ai/decisions/t.md", "---\ndate: 2026-01-31\n---\n# T\n", src)
	if e.ReviewBy != "2026-02-28" {
		t.Errorf("review_by = %q", e.ReviewBy)
	}
	// An explicit review_by wins over review_after.
	e, _ = parseOK(t, ".ai/decisions/t.md", "---\ndate: 2026-01-31\nreview_by: 2026-12-01\n---\n# T\n", src)
	if e.ReviewBy != "2026-12-01" {
		t.Errorf("review_by = %q", e.ReviewBy)
	}
}

func TestFrontmatterErrors(t *testing.T) {
	huge := make([]byte, MaxFileSize+1)
	huge[0] = 0xff // invalid UTF-8 too: the size check must come first
	for _, c := range []struct {
		name string
		in   []byte
		code string
		line int
	}{
		{"unclosed", []byte("---\ntitle: x\n# T\n"), CodeBadFrontmatter, 1},
		{"bad yaml", []byte("---\ntitle: x\ntags: [a\n---\n# T\n"), CodeBadFrontmatter, 0},
		{"not a mapping", []byte("---\n- a\n- b\n---\n# T\n"), CodeBadFrontmatter, 2},
		{"cursor-style glob is not YAML", []byte("---\npaths: **/*.ts\n---\n"), CodeBadFrontmatter, 0},
		{"too large", huge, CodeTooLarge, 0},
		{"not utf8", []byte("---\ntitle: \xff\xfe\n---\n"), CodeNotUTF8, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, diags := Parse(".ai/decisions/t.md", c.in, decisionFM)
			if e != nil || len(diags) != 1 || diags[0].Code != c.code || diags[0].Severity != "error" ||
				(c.line != 0 && diags[0].Line != c.line) || diags[0].File != ".ai/decisions/t.md" {
				t.Errorf("got %v %+v", e, diags)
			}
		})
	}
	// Exactly MaxFileSize is still parsed.
	ok := append([]byte("# T\n"), []byte(strings.Repeat("a", MaxFileSize-4))...)
	if e, _ := Parse(".ai/decisions/t.md", ok, decisionFM); e == nil {
		t.Error("a file of exactly MaxFileSize must parse")
	}
}

func TestFrontmatterYAMLErrorLine(t *testing.T) {
	_, diags := Parse(".ai/decisions/t.md", []byte("---\ntitle: x\nsummary: y\nbad: a: b\n---\n"), decisionFM)
	if len(diags) != 1 || diags[0].Line != 4 {
		t.Errorf("want line 4 (file line of the YAML error), got %+v", diags)
	}
}

func TestAliasBomb(t *testing.T) {
	bomb := `---
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
tags: *i
---
# T
`
	start := time.Now()
	e, diags := Parse(".ai/decisions/t.md", []byte(bomb), decisionFM)
	if time.Since(start) > 2*time.Second {
		t.Errorf("alias bomb took %v", time.Since(start))
	}
	if e != nil || len(diags) != 1 || diags[0].Code != CodeBadFrontmatter {
		t.Errorf("got %v %+v", e, diags)
	}
	// A modest alias is fine.
	e, _ = parseOK(t, ".ai/decisions/t.md", "---\nbase: &b [x, y]\ntags: *b\nother: *b\n---\n# T\n", decisionFM)
	if !eq(e.Tags, []string{"x", "y"}) || !reflect.DeepEqual(e.Extra["other"], []any{"x", "y"}) {
		t.Errorf("%+v", e)
	}
}

func TestMergeKeys(t *testing.T) {
	e, _ := parseOK(t, ".ai/decisions/t.md", "---\nx: &d {owner: ana, tier: 1}\ny:\n  <<: *d\n  tier: 2\n---\n# T\n", decisionFM)
	if !reflect.DeepEqual(e.Extra["y"], map[string]any{"owner": "ana", "tier": 2}) {
		t.Errorf("y = %#v", e.Extra["y"])
	}
}
