package git

import (
	"syscall"
	"time"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms kontext
// is built for (x86-64; arm64 with 4 KiB pages).
const hugePage = 2 << 20

// started is (about) when the process started: this package is
// initialised with it.
var started = time.Now()

// shortCall is how long a process counts as one short call (the CLI's
// collector setting uses the same second: cmd/kontext gc.go).
const shortCall = time.Second

// newSlab returns slabSize bytes aligned to huge pages. In a short call
// the kernel is asked to back them with transparent huge pages: with THP
// in "madvise" mode (a common default) that is one page fault per 2 MiB
// instead of one per 4 KiB, and the process exits before the memory is
// reused. A process that runs longer (an MCP or review server,
// a Go program embedding the engine) gets plain memory: heap advised for
// huge pages and reused for small objects made its later warm reads
// slower (in-process `entries.list` with since after a cold index in the
// same process: 40 → 60–115 ms). The advice never changes the contents,
// and where THP is off it changes nothing. The unaligned head and tail
// of the allocation are never touched, so they cost address space, not
// memory.
func newSlab() []byte {
	if time.Since(started) >= shortCall {
		return make([]byte, slabSize)
	}
	b := make([]byte, slabSize+hugePage)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := int((p+hugePage-1)&^(hugePage-1) - p)
	b = b[start : start+slabSize : start+slabSize]
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	return b
}
