package csp

import "unsafe"

// prefetchw asks the CPU for the cache lines of [p, p+n) in the exclusive
// state, ready to be written (PREFETCHW), without waiting for them.
//
//go:noescape
func prefetchw(p unsafe.Pointer, n uintptr)

// flushLines writes back and drops the cache lines of [p, p+n) from every
// cache (CLFLUSHOPT: an invalid instruction on a CPU without it, so the
// one caller, an experiment of expiso_test.go, checks /proc/cpuinfo
// first).
//
//go:noescape
func flushLines(p unsafe.Pointer, n uintptr)
