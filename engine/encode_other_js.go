//go:build js

package engine

// encodeOther is the WASM engine's answer to a value its codec does not
// encode: an error envelope. It links no other JSON encoder (encoding/json's
// would add about 30 KB gzip to an engine at its size budget); the results
// of every operation it serves are of types the codec encodes (tested),
// so only a value JSON cannot hold (NaN) or a stray type gets here.
func encodeOther(_ any, err error) []byte { return encodeFailed(err) }
