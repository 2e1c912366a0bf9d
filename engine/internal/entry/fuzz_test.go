package entry

import (
	"encoding/json"
	"testing"
)

// checkFuzzResult is the property of both fuzz targets: Parse returns an
// entry with warnings only, or no entry and exactly one error diagnostic,
// and an entry always keeps its promises (non-nil lists, JSON-able extra).
func checkFuzzResult(t *testing.T, e *Entry, diags []Diagnostic) {
	errs := 0
	for _, d := range diags {
		if d.Severity == "error" {
			errs++
		} else if d.Severity != "warning" {
			t.Fatalf("bad severity %+v", d)
		}
	}
	if e == nil {
		if errs != 1 {
			t.Fatalf("nil entry with %d error diagnostics: %+v", errs, diags)
		}
		return
	}
	if errs != 0 {
		t.Fatalf("entry with error diagnostics: %+v", diags)
	}
	if e.Paths == nil || e.Tags == nil || e.Supersedes == nil || e.SupersededBy == nil ||
		e.Extends == nil || e.Commits == nil || e.Extra == nil {
		t.Fatalf("nil list in %+v", e)
	}
	if e.ID == "" || e.Title == "" {
		t.Fatalf("empty id or title: %+v", e)
	}
	if _, err := json.Marshal(e); err != nil {
		t.Fatalf("entry does not marshal: %v", err)
	}
}

func FuzzParseFrontmatter(f *testing.F) {
	f.Add([]byte("---\ntitle: T\nstatus: accepted\ntags: a\n---\n# H\n\nbody\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src := Source{Kind: "decision", Dir: ".ai/decisions", Style: StyleFrontmatter, ReviewAfter: "6m"}
		e, diags := Parse(".ai/decisions/fuzz.md", data, src)
		checkFuzzResult(t, e, diags)
	})
}

func FuzzParseADR(f *testing.F) {
	f.Add([]byte("# 7. T\n\nDate: 2024-03-01\n\n## Status\n\nSuperseded by [9. X](0009-x.md)\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src := Source{Kind: "decision", Dir: "docs/adr", Style: StyleADR, ReviewAfter: "1m"}
		e, diags := Parse("docs/adr/0007-fuzz.md", data, src)
		checkFuzzResult(t, e, diags)
	})
}
