package csp

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks the kernel to back the 2 MiB-aligned pages inside b
// with transparent huge pages (madvise MADV_HUGEPAGE). Best effort.
func adviseHuge(b []byte) {
	const huge = 2 << 20
	if len(b) < 2*huge {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (p + huge - 1) &^ (huge - 1)
	hi := (p + uintptr(len(b))) &^ (huge - 1)
	if hi <= lo {
		return
	}
	syscall.Madvise(b[lo-p:hi-p], 14) // MADV_HUGEPAGE
}
