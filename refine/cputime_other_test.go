//go:build !unix

package refine

func cpuSeconds() float64 { return 0 }
