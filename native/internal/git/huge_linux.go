package git

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms kontext
// is built for (x86-64; arm64 with 4 KiB pages).
const hugePage = 2 << 20

// newSlab returns slabSize bytes aligned to huge pages, which the kernel
// is asked to back with transparent huge pages: with THP in "madvise"
// mode (a common default) that is one page fault per 2 MiB instead of one
// per 4 KiB. The advice never changes the contents, and where THP is off
// it changes nothing. The unaligned head and tail of the allocation are
// never touched, so they cost address space, not memory.
func newSlab() []byte {
	b := make([]byte, slabSize+hugePage)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := int((p+hugePage-1)&^(hugePage-1) - p)
	b = b[start : start+slabSize : start+slabSize]
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	return b
}
