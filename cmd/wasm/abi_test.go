package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/codec"
)

// TestABIEnvelope: abi's answer (how a page learns the engine is ready)
// takes the engine's small codec, not encoding/json, whose first use would
// be most of its cost; and it is the bytes encoding/json writes.
func TestABIEnvelope(t *testing.T) {
	e := engine.New(engine.Options{Surface: engine.Snapshot})
	for _, r := range []*ABIResult{
		{ABI: 1, Version: engine.Version, Operations: e.Operations(), Functions: []string{"abi", "open", "stage"}, Parser: true},
		{ABI: 12, Version: "0.1.0-dev+abc", Operations: []string{}, Functions: nil},
		{ABI: 1, Version: "v1 <&> 'x' \"q\" \\ é", Operations: []string{"a.b"}, Functions: []string{"x"}},
	} {
		got, cerr := codec.Append(nil, r)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		err := enc.Encode(r)
		if cerr != nil || err != nil || string(got)+"\n" != want.String() {
			t.Errorf("codec %s (%v)\nwant %s", got, cerr, want.String())
		}
	}
}
