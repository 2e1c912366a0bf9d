package edit

import "testing"

func TestReplaceStatusWord(t *testing.T) {
	for _, c := range []struct {
		text string
		line int
		want string
	}{
		{"a\nStatus: Proposed\n", 2, "a\nStatus: Accepted\n"},
		{"a\r\n* status: proposed (see [1](x.md))\r\nb", 2, "a\r\n* status: accepted (see [1](x.md))\r\nb"},
		{"un-proposed, unproposed and _PROPOSED_\n", 1, "un-proposed, unproposed and _ACCEPTED_\n"},
		{"🚧 Proposed", 1, "🚧 Accepted"},
	} {
		got, err := ReplaceStatusWord(c.text, c.line, "proposed", "accepted")
		if err != nil || got != c.want {
			t.Errorf("ReplaceStatusWord(%q, %d) = %q, %v; want %q", c.text, c.line, got, err, c.want)
		}
	}
	for _, c := range []struct {
		text string
		line int
	}{
		{"Status: Accepted\n", 1},
		{"Proposed\n", 2},
		{"a\rStatus: proposed\r", 2},
	} {
		if got, err := ReplaceStatusWord(c.text, c.line, "proposed", "accepted"); err == nil {
			t.Errorf("ReplaceStatusWord(%q, %d) = %q, want an error", c.text, c.line, got)
		}
	}
}

func TestSetStatusLine(t *testing.T) {
	for _, c := range []struct {
		text string
		line int
		want string
	}{
		{"## Status\n\nAccepted\n", 3, "## Status\n\nDeprecated\n"},
		{"* Status: accepted\r\n* Date: x\r\n", 1, "* Status: Deprecated\r\n* Date: x\r\n"},
		{"## 📌 Status: Accepted\n", 1, "## 📌 Status: Deprecated\n"},
		{"**Status:** Accepted on 2024-01-01\n", 1, "**Status:** Deprecated\n"},
		{"  Accepted", 1, "  Deprecated"},
	} {
		got, err := SetStatusLine(c.text, c.line, "Deprecated")
		if err != nil || got != c.want {
			t.Errorf("SetStatusLine(%q, %d) = %q, %v; want %q", c.text, c.line, got, err, c.want)
		}
	}
	if _, err := SetStatusLine("a\n\nb\n", 2, "Deprecated"); err == nil {
		t.Error("a blank line was taken for the status")
	}
}
