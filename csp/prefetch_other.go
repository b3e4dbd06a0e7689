//go:build !amd64

package csp

import "unsafe"

// prefetch is a no-op where no assembly is provided; the batch is still
// interned correctly, only without overlapping its cache misses.
func prefetch(addrs []uintptr) {}

// prefetchw is a no-op where no assembly is provided.
func prefetchw(p unsafe.Pointer, n uintptr) {}

// flushLines is a no-op where no assembly is provided.
func flushLines(p unsafe.Pointer, n uintptr) {}
