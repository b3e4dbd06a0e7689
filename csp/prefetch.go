package csp

import "github.com/quasar-verify/quasar/internal/intern"

// prefetch asks the CPU to bring the cache lines at addrs into the cache,
// without waiting for them (PREFETCHT0, intern.Prefetch's: it never
// faults, so a stale address is harmless). Unlike a load, a prefetch does
// not hold up the instructions after it: the search issues the
// prefetches of a batch's table slots and records, then generates the
// next successors while the lines arrive.
func prefetch(addrs []uintptr) { intern.Prefetch(addrs) }
