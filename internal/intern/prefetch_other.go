//go:build !amd64

package intern

// prefetch is a no-op where no assembly is provided: lookups are the
// same, only without their cache misses overlapped.
func prefetch(addrs []uintptr) {}
