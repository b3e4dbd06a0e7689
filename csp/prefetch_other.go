//go:build !amd64

package csp

// prefetch is a no-op where no assembly is provided; the batch is still
// interned correctly, only without overlapping its cache misses.
func prefetch(addrs []uintptr) {}
