//go:build unix

package refine

import "syscall"

// cpuSeconds is the user+system CPU time of the process: a rate per CPU
// second stays meaningful on a loaded machine, where wall time does not.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
