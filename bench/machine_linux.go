//go:build linux

package main

import (
	"syscall"
	"time"
)

// firstTouchMicros is what the first write to a fresh page of anonymous
// memory costs here, in microseconds: the median of three 64 MiB maps,
// each page written once. A WASM engine's start-up is mostly fresh
// memory (the module's bytes read, copied and compiled, its memory, the
// code V8 compiles lazily), so where this is far above a microsecond the
// WASM rows measure the machine's memory more than the engine.
func firstTouchMicros() float64 {
	const size, page = 64 << 20, 4096
	var xs []float64
	for i := 0; i < 3; i++ {
		b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			return 0
		}
		t := time.Now()
		for j := 0; j < size; j += page {
			b[j] = 1
		}
		xs = append(xs, float64(time.Since(t).Microseconds())/(size/page))
		syscall.Munmap(b)
	}
	return median(xs)
}
