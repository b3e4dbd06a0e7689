package csp

import "unsafe"

// prefetch asks the CPU to bring the cache lines at addrs into the cache,
// without waiting for them (PREFETCHT0 never faults, so a stale address
// is harmless). Unlike a load, a prefetch does not hold up the
// instructions after it: the search issues the prefetches of a batch's
// table slots and records, then generates the next successors while the
// lines arrive.
//
//go:noescape
func prefetch(addrs []uintptr)

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
