package main

import (
	"math"
	"os"
	"runtime/debug"
	"time"
)

// shortCallGC tunes the collector for a call that ends in milliseconds:
// no collection at all while the heap stays under a soft limit (a warm
// read of a large knowledge base otherwise spends a good share of its CPU
// in one collection of memory it is about to drop by exiting), then, once the
// process has run for a second (a server, a long build), collection four
// times less often than Go's default. GOGC or GOMEMLIMIT in the
// environment win.
func shortCallGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(256 << 20)
	time.AfterFunc(time.Second, func() {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(math.MaxInt64) // no limit
	})
}
