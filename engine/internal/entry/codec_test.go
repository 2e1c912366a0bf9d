package entry

import (
	"reflect"
	"strings"
	"testing"
)

// TestCodecSpans: with Text set, an entry and its diagnostics come back
// equal, the strings that occur in the text are stored as spans of it (so
// the encoding is shorter than without), and a decoder with another text,
// or none, does not read them as the same entry.
func TestCodecSpans(t *testing.T) {
	text := "---\nstatus: accepted\ndate: 2026-01-05\nsummary: Money is integer cents.\npaths: [\"src/billing/**\", \"!src/billing/legacy/**\"]\ntags: [billing, money]\nextra_field: kept as is\n---\n# Money is integer cents\n\nFloats round badly; store cents.\n"
	e, diags := Parse(".ai/decisions/0001-money.md", []byte(text), Source{Kind: "decision", Dir: ".ai/decisions", Style: "frontmatter"})
	if e == nil {
		t.Fatalf("no entry: %v", diags)
	}
	diags = append(diags, Diagnostic{File: e.File, Line: 3, Severity: "warning", Code: "x", Message: "Money is integer cents"})
	encode := func(text string) string {
		w := &Encoder{Text: text}
		if err := EncodeEntry(w, e); err != nil {
			t.Fatal(err)
		}
		EncodeDiagnostics(w, diags)
		w.Bytes([]byte("raw bytes, never a span: Money is integer cents"))
		return string(w.Buf)
	}
	plain, spans := encode(""), encode(text)
	if len(spans) >= len(plain)-len(e.Title)-len(e.Summary) {
		t.Errorf("with spans %d bytes, without %d: the title and summary were not stored as spans", len(spans), len(plain))
	}
	if strings.Contains(spans, e.Summary) {
		t.Errorf("the summary's bytes are in the encoding: %q", spans)
	}
	for _, c := range []struct{ buf, text string }{{plain, ""}, {spans, text}} {
		r := &Decoder{Buf: c.buf, Text: c.text}
		var got Entry
		if !DecodeEntryInto(r, &got) {
			t.Fatalf("text %v: the entry does not decode: %v", c.text != "", r.Err)
		}
		gotDiags := DecodeDiagnostics(r)
		raw := r.String()
		if r.Err != nil || r.Buf != "" {
			t.Fatalf("text %v: %v, %d bytes left", c.text != "", r.Err, len(r.Buf))
		}
		got.placeholder = e.placeholder
		if !reflect.DeepEqual(&got, e) || !reflect.DeepEqual(gotDiags, diags) || raw != "raw bytes, never a span: Money is integer cents" {
			t.Errorf("text %v: decoded\n%+v\n%+v\n%q\nwant\n%+v\n%+v", c.text != "", got, gotDiags, raw, *e, diags)
		}
	}
	// Spans read against a shorter text fail; without the text they are
	// not the entry.
	short := &Decoder{Buf: spans, Text: text[:10]}
	var got Entry
	if DecodeEntryInto(short, &got) && short.Err == nil && reflect.DeepEqual(&got, e) {
		t.Error("spans decoded against a shorter text gave the entry")
	}
	none := &Decoder{Buf: spans}
	got = Entry{}
	if DecodeEntryInto(none, &got) && none.Err == nil && reflect.DeepEqual(&got, e) {
		t.Error("spans decoded without the text gave the entry")
	}
}
