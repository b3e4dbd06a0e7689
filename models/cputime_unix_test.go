//go:build unix

package models

import "syscall"

// cpuSeconds is the user+system CPU time of the process: on a loaded
// machine the CPU time of a benchmark spreads far less than its wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
