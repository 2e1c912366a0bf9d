package engine

import (
	"regexp"
	"testing"
)

// TestWithoutChecked compares the line scan with the regular expression it
// replaced, on texts with checked lines first, last, repeated, without a
// final newline, indented (kept) and in a body.
func TestWithoutChecked(t *testing.T) {
	re := regexp.MustCompile(`(?m)^checked:[^\n]*(\n|$)`)
	cases := []string{
		"",
		"checked:",
		"checked: 2026-01-01",
		"checked: 2026-01-01\n",
		"---\nstatus: active\nchecked: 2026-01-01 by a\n---\n# T\n",
		"---\nchecked: a\nchecked: b\nstatus: x\n---\nbody\nchecked: in the body\n",
		"# ADR\n\nDate: 2020\n checked: indented\nxchecked: no\nchecked:last",
		"\n\nchecked:\n\n",
		"checked:\r\nnext\r\n",
		"no check at all\n",
		"a\nchecked: b\n\nchecked: c",
	}
	for _, md := range cases {
		if got, want := withoutChecked(md), re.ReplaceAllString(md, ""); got != want {
			t.Errorf("withoutChecked(%q) = %q, want %q", md, got, want)
		}
	}
}
