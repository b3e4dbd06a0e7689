package intern

// prefetch asks the CPU to bring the cache lines at addrs into the cache,
// without waiting for them (PREFETCHT0 never faults, so a stale address
// is harmless; package csp uses it too).
//
//go:noescape
func prefetch(addrs []uintptr)
