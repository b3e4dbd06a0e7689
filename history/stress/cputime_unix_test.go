//go:build unix

package stress

import "syscall"

// cpuSeconds is the user+system CPU time of the process: on a loaded
// machine it measures the work of a check, where wall time does not.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
