package lts

import (
	"context"
	"os"
	"testing"
)

// BenchmarkExploreSegQueue explores testdata/lts/bench/segqueue.csp and
// reports states per second and bytes per stored state.
func BenchmarkExploreSegQueue(b *testing.B) {
	src, err := os.ReadFile("../testdata/lts/bench/segqueue.csp")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var states int64
	var secs float64
	var bytes int64
	for i := 0; i < b.N; i++ {
		p := compileSrc(b, string(src))
		sys, err := p.ProcessByName("Queue")
		if err != nil {
			b.Fatal(err)
		}
		r, err := Explore(context.Background(), sys, Options{})
		if err != nil {
			b.Fatal(err)
		}
		states += r.Stats.States
		secs += r.Stats.Seconds
		bytes = sys.Bytes() + 8*r.Stats.States // the store, plus the BFS parent tree (state + event)
		b.ReportMetric(float64(r.Stats.States), "states")
		b.ReportMetric(float64(bytes)/float64(r.Stats.States), "bytes/state")
	}
	b.ReportMetric(float64(states)/secs, "states/s")
}
