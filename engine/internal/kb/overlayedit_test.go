package kb

import (
	"strings"
	"testing"
)

func TestSetOverlayKey(t *testing.T) {
	hand := "# our overlay\nversion = 1\n\n[paths]\n# the database\n\"0002-b\" = [\"src/db/**\"] # keep me\n'0005-e' = [\n  \"a/**\", # first\n  \"b/[ab]*\",\n]\nzz = [\"z/**\"]\n"
	cases := []struct {
		name, text, key string
		globs           []string
		want            string
		rewritten       bool
	}{
		{name: "create", key: "0001-a", globs: []string{"src/**"},
			want: overlayHeader + "\"0001-a\" = [\"src/**\"]\n"},
		{name: "replace in place keeps the comment", text: hand, key: "0002-b", globs: []string{"src/db/**", "lib/*.go"},
			want: strings.Replace(hand, `"0002-b" = ["src/db/**"] # keep me`, `"0002-b" = ["src/db/**", "lib/*.go"] # keep me`, 1)},
		{name: "multi-line array", text: hand, key: "0005-e", globs: []string{"a/**"},
			want: strings.Replace(hand, "'0005-e' = [\n  \"a/**\", # first\n  \"b/[ab]*\",\n]\n", "\"0005-e\" = [\"a/**\"]\n", 1)},
		{name: "remove the line", text: hand, key: "zz", globs: nil,
			want: strings.Replace(hand, "zz = [\"z/**\"]\n", "", 1)},
		{name: "insert sorted", text: overlayHeader + "\"a\" = [\"x\"]\n\"c\" = [\"y\"]\n", key: "b", globs: []string{"q"},
			want: overlayHeader + "\"a\" = [\"x\"]\n\"b\" = [\"q\"]\n\"c\" = [\"y\"]\n"},
		{name: "insert sorted among hand-written keys", text: hand, key: "0003-c", globs: []string{"c/**"},
			want: strings.Replace(hand, "'0005-e'", "\"0003-c\" = [\"c/**\"]\n'0005-e'", 1)},
		{name: "append after unsorted", text: "[paths]\nb = [\"x\"]\na = [\"y\"]", key: "c", globs: []string{"z"},
			want: "[paths]\nb = [\"x\"]\na = [\"y\"]\n\"c\" = [\"z\"]"},
		{name: "no paths table", text: "version = 1\n", key: "k", globs: []string{"k/**"},
			want: "version = 1\n\n[paths]\n\"k\" = [\"k/**\"]\n"},
		{name: "crlf", text: "version = 1\r\n\r\n[paths]\r\n\"a\" = [\"x\"]\r\n", key: "a", globs: []string{"x", "y"},
			want: "version = 1\r\n\r\n[paths]\r\n\"a\" = [\"x\", \"y\"]\r\n"},
		{name: "inline table is rewritten", text: "paths = { a = [\"x\"] }\n", key: "b", globs: []string{"y"},
			want: overlayHeader + "\"a\" = [\"x\"]\n\"b\" = [\"y\"]\n", rewritten: true},
		{name: "quotes in globs", key: `we"ird`, globs: []string{`a\b`},
			want: overlayHeader + `"we\"ird" = ["a\\b"]` + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, rewritten, err := SetOverlayKey([]byte(c.text), c.key, c.globs)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want || rewritten != c.rewritten {
				t.Fatalf("rewritten %v, got\n%s\nwant\n%s", rewritten, got, c.want)
			}
		})
	}
	if _, _, err := SetOverlayKey([]byte("[paths\n"), "a", []string{"x"}); err == nil || !strings.Contains(err.Error(), "not valid") {
		t.Fatalf("a broken overlay: %v", err)
	}
}
