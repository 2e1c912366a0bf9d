//go:build js

package kb

import "github.com/kontext/kontext/engine/internal/match"

// storedIndex: the WASM engine builds a rebuilt snapshot's match index
// again (keeping a stored one, prior.go, would take it over its size
// budget).
func storedIndex(string) *match.Index { return nil }

func (s *Snapshot) priorFits() bool { return false }
