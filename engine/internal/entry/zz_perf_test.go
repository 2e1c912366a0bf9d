package entry

import (
	"strings"
	"testing"
	"time"
)

func TestZZPerf(t *testing.T) {
	n := MaxFileSize - 100
	ins := map[string]string{
		"brackets":  strings.Repeat("[", n),
		"quotes":    strings.Repeat(">", n),
		"lists":     strings.Repeat("- ", n/2),
		"stars":     strings.Repeat("*a", n/2),
		"links":     strings.Repeat("[a](b) ", n/7),
		"backticks": strings.Repeat("`", n),
		"lines":     strings.Repeat("Status: x\n", n/10),
		"statusrel": "## Status\n\n" + strings.Repeat("Supersedes [3](0003-a.md)\n", n/27),
		"headings":  strings.Repeat("## Status\n", n/10),
		"html":      strings.Repeat("<!-- kontext\n", n/13),
		"fmflow":    "---\nx: " + strings.Repeat("[", 5000) + "\n---\n",
		"fmkeys":    "---\n" + strings.Repeat("k: v\n", n/6) + "---\n",
		"fmlist":    "---\ntags: [" + strings.Repeat("a,", n/3) + "]\n---\n",
		"emph":      strings.Repeat("_a*", n/3),
		"entities":  strings.Repeat("&amp;", n/5),
		"nestlist":  func() string { var b strings.Builder; for i := 0; i < 2000; i++ { b.WriteString(strings.Repeat("  ", i) + "- x\n") }; return b.String() }(),
		"dashes":    strings.Repeat("---\n", n/4),
	}
	for name, in := range ins {
		for _, st := range []string{StyleADR, StyleFrontmatter, StyleCursor} {
			start := time.Now()
			e, d := Parse("docs/adr/0001-x.md", []byte(in), Source{Kind: "decision", Style: st})
			el := time.Since(start)
			if el > 300*time.Millisecond {
				t.Logf("%s/%s: %v (entry %v, %d diags)", name, st, el, e != nil, len(d))
			}
		}
	}
}
