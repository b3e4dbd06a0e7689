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
// that a grow does not hold both tables whole (docs/engine-log.md, "Records
// at 2 bits a value and tables released as they move").
//
// What makes it sound on memory of the Go heap: t holds no pointers (the
// collector never reads it); only pages wholly inside t are released
// (the kernel rounds the length up to its page, so the bounds are
// rounded to the real page size, not to 4 KiB: a page of 16 or 64 KiB
// would otherwise reach past t); and zero pages are what the runtime
// writes anyway in a span it reuses, unless it knows the span fresh,
// which these pages then are.
func releasePages[T any](t []T) {
	if len(t) == 0 {
		return
	}
	page := uintptr(pageSize)
	p := unsafe.Pointer(unsafe.SliceData(t))
	a := uintptr(p)
	lo := (a + page - 1) &^ (page - 1)
	hi := (a + uintptr(len(t))*unsafe.Sizeof(t[0])) &^ (page - 1)
	if hi <= lo {
		return
	}
	released.Add(int64((hi - lo) / page))
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, lo-a)), hi-lo), syscall.MADV_DONTNEED)
}

// pageSize is the system's page size.
var pageSize = syscall.Getpagesize()
