package entry

import (
	"strings"
	"testing"
	"time"
)

// Inputs on which goldmark is quadratic unless guarded (deep nesting on one
// line, long emphasis runs): a 1 MiB file must still parse quickly.
func TestPathologicalInputsAreFast(t *testing.T) {
	n := MaxFileSize - 16
	for name, in := range map[string]string{
		"blockquotes":   strings.Repeat(">", n),
		"ordered lists": strings.Repeat("1. ", n/3),
		"emphasis":      strings.Repeat("*a", n/2),
		"brackets":      strings.Repeat("[", n),
	} {
		for _, src := range []Source{decisionADR, decisionFM, cursorSrc} {
			start := time.Now()
			e, diags := Parse("docs/adr/0001-x.md", []byte(in), src)
			if el := time.Since(start); el > 3*time.Second {
				t.Errorf("%s (%s) took %v", name, src.Style, el)
			}
			if e == nil && len(diags) == 0 {
				t.Errorf("%s: no entry and no diagnostic", name)
			}
		}
	}
}

func TestCapNestingKeepsOffsets(t *testing.T) {
	in := []byte(strings.Repeat(">", 300) + " x\nplain\n")
	out := capNesting(in)
	if len(out) != len(in) || strings.Count(string(out), "\n") != 2 || string(out[:maxPrefix]) != strings.Repeat(">", maxPrefix) ||
		out[maxPrefix] != ' ' || !strings.HasSuffix(string(out), " x\nplain\n") {
		t.Errorf("capNesting = %q", out)
	}
	if plain := []byte("# T\n\n> quote\n"); &capNesting(plain)[0] != &plain[0] {
		t.Error("capNesting copied an ordinary text")
	}
}
