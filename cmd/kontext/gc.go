package main

import (
	"math"
	"os"
	"runtime/debug"
	"sync/atomic"
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
		if bounded.Load() {
			debug.SetGCPercent(100) // Go's default: the heap stays near twice what is kept
		} else {
			debug.SetGCPercent(400)
		}
		debug.SetMemoryLimit(math.MaxInt64) // no limit
	})
}

// bounded: boundHeap was called.
var bounded atomic.Bool

// reportHeapLimit is the soft heap limit of the report commands.
const reportHeapLimit = 128 << 20

// boundHeap keeps a command that reads a whole change (ci, the comment)
// under a lower soft heap limit for its first second, and at Go's default
// collection rate after it: what it keeps grows with the findings it
// prints, but matching a large change over many entries allocates far
// more than it keeps, and with few collections the heap would grow with
// entries × files. GOGC or GOMEMLIMIT in the environment win.
func boundHeap() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	bounded.Store(true)
	debug.SetMemoryLimit(reportHeapLimit)
}
