// Package lazy owns values built at their first use rather than at package
// initialisation: a call that never needs a parser, a rule set or a word
// list does not pay for building it at start-up.
//
// It is a type rather than sync.OnceValue: OnceValue's closure costs
// 1.3–1.5 KB of code per call site in the WASM engine, which is at its
// size budget; a Value costs one instantiation per type shape.
package lazy

import "sync"

// Value is built by Build on the first Get; safe for concurrent use. A
// package-level Value is a static composite literal, so declaring one
// runs nothing at initialisation.
type Value[T any] struct {
	Build func() T
	once  sync.Once
	v     T
}

// Get returns the value, building it on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(l.build)
	return l.v
}

func (l *Value[T]) build() { l.v = l.Build() }
