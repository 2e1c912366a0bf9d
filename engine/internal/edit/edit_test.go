package edit

import "testing"

func TestSetFrontmatter(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"replace", "---\ntitle: A\nchecked: 2026-01-01\nverify: go test\n---\n# A\n",
			"---\ntitle: A\nchecked: 2026-11-30T12:00:00Z\nverify: go test\n---\n# A\n"},
		{"insert before verify", "---\nstatus: accepted\npaths: [\"a/**\"]\nverify: make\nzeta: 1\n---\nBody\n",
			"---\nstatus: accepted\npaths: [\"a/**\"]\nchecked: 2026-11-30T12:00:00Z\nverify: make\nzeta: 1\n---\nBody\n"},
		{"insert before an unknown key", "---\ntags:\n  - a\n  - b\nowner: team\n---\n",
			"---\ntags:\n  - a\n  - b\nchecked: 2026-11-30T12:00:00Z\nowner: team\n---\n"},
		{"append at the end", "---\ntitle: A\nreview_by: 2027-01-01\n---\n",
			"---\ntitle: A\nreview_by: 2027-01-01\nchecked: 2026-11-30T12:00:00Z\n---\n"},
		{"crlf", "---\r\ntitle: A\r\n---\r\nx\r\n", "---\r\ntitle: A\r\nchecked: 2026-11-30T12:00:00Z\r\n---\r\nx\r\n"},
		{"no frontmatter", "# A\n", "---\nchecked: 2026-11-30T12:00:00Z\n---\n# A\n"},
	}
	for _, c := range cases {
		got, err := SetFrontmatter(c.in, "checked", "2026-11-30T12:00:00Z")
		if err != nil || got != c.want {
			t.Errorf("%s:\n got %q, %v\nwant %q", c.name, got, err, c.want)
		}
	}
	if _, err := SetFrontmatter("---\ntitle: A\n", "checked", "x"); err == nil {
		t.Error("an unclosed frontmatter was edited")
	}
}

func TestSetADRMeta(t *testing.T) {
	withBlock := "# 5. Use PostgreSQL\n\nDate: 2025-02-10\n\n<!-- kontext\npaths: [\"db/**\"]\n-->\n\n## Status\n\nAccepted\n"
	got, _ := SetADRMeta(withBlock, "checked", "2026-11-30T12:00:00Z")
	want := "# 5. Use PostgreSQL\n\nDate: 2025-02-10\n\n<!-- kontext\npaths: [\"db/**\"]\nchecked: 2026-11-30T12:00:00Z\n-->\n\n## Status\n\nAccepted\n"
	if got != want {
		t.Errorf("add to block:\n got %q\nwant %q", got, want)
	}
	again, _ := SetADRMeta(got, "checked", "2026-12-01T00:00:00Z")
	if again != want[:len(want)-len("2026-11-30T12:00:00Z\n-->\n\n## Status\n\nAccepted\n")]+"2026-12-01T00:00:00Z\n-->\n\n## Status\n\nAccepted\n" {
		t.Errorf("replace in block: %q", again)
	}
	plain := "# 3. Use SQLite\n\nDate: 13/05/2024\n\n## Status\n\nAccepted\n"
	got, _ = SetADRMeta(plain, "checked", "X")
	if got != "# 3. Use SQLite\n\nDate: 13/05/2024\n\n<!-- kontext\nchecked: X\n-->\n\n## Status\n\nAccepted\n" {
		t.Errorf("new block: %q", got)
	}
}
