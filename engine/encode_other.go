//go:build !js

package engine

import (
	"bytes"
	"encoding/json"
)

// encodeOther encodes with encoding/json a value the codec leaves to it
// (err: why): natively every value gets encoding/json's answer.
func encodeOther(v any, _ error) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return encodeFailed(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}
