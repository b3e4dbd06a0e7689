//go:build linux

package csp

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// released counts the pages given back (the tests check that grows
// release).
var released atomic.Int64

// releasePages gives the whole pages inside t back to the system
// (madvise MADV_DONTNEED): they read as zeros afterwards. The caller no
// longer reads t (the old table of a grow, past the part moved): its
// pages leave the process's memory while the new table's fill up, so
// that a grow does not hold both tables whole (docs/engine.md, "Records
// at 2 bits a value and tables released as they move").
func releasePages[T any](t []T) {
	const page = 4096
	if len(t) == 0 {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(t))
	a := uintptr(p)
	lo := (a + page - 1) &^ (page - 1)
	hi := (a + uintptr(len(t))*unsafe.Sizeof(t[0])) &^ (page - 1)
	if hi <= lo {
		return
	}
	// The pages lie in the Go heap: the runtime zeroes a span it reuses
	// unless it knows it fresh, and zero pages are what it would write.
	released.Add(int64((hi - lo) / page))
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, lo-a)), hi-lo), syscall.MADV_DONTNEED)
}
