package main

import "strconv"

// ABIResult is abi's result.
type ABIResult struct {
	ABI        int      `json:"abi"`
	Version    string   `json:"version"`
	Operations []string `json:"operations"`
	Functions  []string `json:"functions"`
	// Parser is false in the reader engine (kontext-reader.wasm): it
	// answers from compiled snapshots and parses no file.
	Parser bool `json:"parser"`
}

// envelope is r's result envelope as engine.ResultEnvelope encodes it,
// written by hand: the first abi() is how a page learns that the engine
// is ready, and the first use of a JSON encoder (the engine's codec: its
// code compiled on first call, its type table) costs 8 ms of a 110–130 ms
// cold start (interleaved Node processes). ok is false when a string
// holds a byte JSON would escape (ResultEnvelope encodes those).
func (r *ABIResult) envelope() (_ []byte, ok bool) {
	ok = true
	b := make([]byte, 0, 1024)
	str := func(s string) {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				ok = false
			}
		}
		b = append(append(append(b, '"'), s...), '"')
	}
	list := func(name string, xs []string) {
		b = append(b, `,"`+name+`":`...)
		if xs == nil {
			b = append(b, "null"...)
			return
		}
		b = append(b, '[')
		for i, x := range xs {
			if i > 0 {
				b = append(b, ',')
			}
			str(x)
		}
		b = append(b, ']')
	}
	b = append(b, `{"schema_version":1,"ok":true,"result":{"abi":`...)
	b = strconv.AppendInt(b, int64(r.ABI), 10)
	b = append(b, `,"version":`...)
	str(r.Version)
	list("operations", r.Operations)
	list("functions", r.Functions)
	b = append(b, `,"parser":`...)
	b = strconv.AppendBool(b, r.Parser)
	return append(b, "}}"...), ok
}
