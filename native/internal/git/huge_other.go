//go:build !linux

package git

// newSlab returns slabSize bytes (transparent huge pages are a Linux
// feature).
func newSlab() []byte { return make([]byte, slabSize) }
