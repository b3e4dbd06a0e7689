//go:build !amd64

package csp

import "unsafe"

// prefetchw is a no-op where no assembly is provided.
func prefetchw(p unsafe.Pointer, n uintptr) {}

// flushLines is a no-op where no assembly is provided.
func flushLines(p unsafe.Pointer, n uintptr) {}
