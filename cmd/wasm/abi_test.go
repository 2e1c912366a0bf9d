package main

import (
	"testing"

	"github.com/kontext/kontext/engine"
)

// TestABIEnvelope: abi's hand-written envelope is byte for byte the one
// engine.ResultEnvelope encodes, and refuses what it would not write so.
func TestABIEnvelope(t *testing.T) {
	e := engine.New(engine.Options{Surface: engine.Snapshot})
	for _, r := range []*ABIResult{
		{ABI: 1, Version: engine.Version, Operations: e.Operations(), Functions: []string{"abi", "open", "stage"}, Parser: true},
		{ABI: 12, Version: "0.1.0-dev+abc", Operations: []string{}, Functions: nil},
		{ABI: 1, Version: "v1 <&> 'x'", Operations: []string{"a.b"}, Functions: []string{"x"}},
	} {
		got, ok := r.envelope()
		if want := string(engine.ResultEnvelope(r)); !ok || string(got) != want {
			t.Errorf("envelope %s (ok %v)\nwant %s", got, ok, want)
		}
	}
	for _, v := range []string{`quote "`, `back\slash`, "tab\t", "é"} {
		if _, ok := (&ABIResult{Version: v}).envelope(); ok {
			t.Errorf("version %q: written by hand, though JSON escapes it", v)
		}
	}
}
