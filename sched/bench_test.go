package sched

import (
	"sync/atomic"
	"testing"

	"github.com/quasar-verify/quasar/history/stress"
)

// BenchmarkInt64Add compares a marked Add outside a controlled run with
// sync/atomic's.
func BenchmarkInt64Add(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		var x Int64
		for b.Loop() {
			x.Add(1)
		}
	})
	b.Run("atomic", func(b *testing.B) {
		var x atomic.Int64
		for b.Loop() {
			x.Add(1)
		}
	})
}

// BenchmarkInt64Load: the same for a load (where the extra load of the
// run pointer is relatively the largest).
func BenchmarkInt64Load(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		var x Int64
		for b.Loop() {
			x.Load()
		}
	})
	b.Run("atomic", func(b *testing.B) {
		var x atomic.Int64
		for b.Loop() {
			x.Load()
		}
	})
}

// BenchmarkExecutions: controlled executions per second (2 threads of 4
// Yield steps, unbounded DFS: the 70 interleavings, checked).
func BenchmarkExecutions(b *testing.B) {
	cfg := Config{New: func() stress.Object { return stepper{} }, Model: nopModel{}, Bound: Unbounded}
	n := 0
	for b.Loop() {
		res, err := Explore(cfg, steps(2, 4))
		if err != nil {
			b.Fatal(err)
		}
		n += res.Stats.Executions
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "execs/s")
}
