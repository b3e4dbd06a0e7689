package lts

import (
	"context"
	"os"
	"syscall"
	"testing"
)

// cpuSeconds is the CPU time (user + system) of the process so far; rates
// per CPU second are meaningful on a shared machine where wall time is not.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// BenchmarkExploreSegQueue explores testdata/lts/bench/segqueue.csp (the
// model of bench/spin/segqueue.pml) and reports the states, states per
// second (wall and CPU) and bytes per stored state (the state store plus
// the BFS parent tree).
func BenchmarkExploreSegQueue(b *testing.B) {
	src, err := os.ReadFile("../testdata/lts/bench/segqueue.csp")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var states int64
	var secs, cpu float64
	for i := 0; i < b.N; i++ {
		p := compileSrc(b, string(src))
		sys, err := p.ProcessByName("Queue")
		if err != nil {
			b.Fatal(err)
		}
		c0 := cpuSeconds()
		r, err := Explore(context.Background(), sys, Options{})
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuSeconds() - c0
		states += r.Stats.States
		secs += r.Stats.Seconds
		bytes := sys.Bytes() + 8*r.Stats.States
		b.ReportMetric(float64(r.Stats.States), "states")
		b.ReportMetric(float64(r.Stats.Transitions), "transitions")
		b.ReportMetric(float64(bytes)/float64(r.Stats.States), "bytes/state")
	}
	b.ReportMetric(float64(states)/secs, "states/s")
	b.ReportMetric(float64(states)/cpu, "states/cpu-s")
}
