package zoo

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/examples"
	"github.com/quasar-verify/quasar/history/record"
	"github.com/quasar-verify/quasar/history/stress"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/sched"
)

const trials = 5

// stressRuns runs test with free goroutines (as history/stress does: all
// released at once, recorded, checked) until a run is not linearizable
// (or not quasi-linearizable, with the bug's Quasi) and returns the number
// of runs (capped at limit).
func stressRuns(b bug, limit int) int {
	model := b.cfg.Model
	if model == nil {
		m, err := stress.SerialModel(b.cfg.New, b.test, 0)
		if err != nil {
			return -1
		}
		model = m
	}
	for run := 1; run <= limit; run++ {
		obj := b.cfg.New()
		rec := record.New(nil)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g, calls := range b.test {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for _, c := range calls {
					tok := rec.Invoke(g, c.F, c.Arg)
					rec.Return(tok, obj.Do(c.F, c.Arg))
				}
			}()
		}
		close(start)
		wg.Wait()
		res, err := history.Check(context.Background(), rec.History(), model, history.Options{Workers: 1, Quasi: b.cfg.Quasi})
		if err == nil && res.Verdict == lts.Invalid {
			return run
		}
	}
	return limit
}

// examplesStarving is history/examples' starving segmented queue (K=2:
// random start slot, runtime.Gosched in its race windows), driven by
// history/stress.Run as history/stress's TestSegmentedQueueQuasi does: 2
// goroutines of 30 random enq/deq calls per round, quasi factor 1.
func examplesStarving(seed uint64) stress.Config {
	return stress.Config{
		Goroutines: 2, OpsPerGoroutine: 30, Rounds: 1000, Seed: seed,
		New: func() stress.Object {
			q := examples.NewStarvingSegmentedQueue(2)
			return stress.ObjectFunc(func(f string, arg any) any { return queueDo(q, f, arg) })
		},
		Ops:   []stress.OpGen{{F: "enq", Arg: func(_ *rand.Rand, seq int) any { return seq }}, {F: "deq"}},
		Model: history.Queue(), Quasi: deqQuasi(1),
	}
}

func median[T int | time.Duration](xs []T) T {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// BenchmarkFirstFailure: per bug, the executions and time to the first
// failure (no minimisation) of DFS (iterative bounding; deterministic),
// PCT (d=2, seeds 1..5) and free-running goroutines as in history/stress
// (5 trials, at most 20,000 runs; the lost wake-up is left out: a real
// deadlock would hang the run). For the starving queue, history/stress.Run
// itself on history/examples' variant (random tests of 2×30 calls, seeds
// 1..5; its random start slot and yields make the bug easy to hit) runs
// side by side. Medians are reported as metrics.
func BenchmarkFirstFailure(b *testing.B) {
	for _, bg := range bugs {
		b.Run(bg.name, func(b *testing.B) {
			var dfsN, pctN, strN, hN []int
			var dfsT, pctT, strT, hT []time.Duration
			for b.Loop() {
				for seed := uint64(1); seed <= trials; seed++ {
					cfg := bg.cfg
					cfg.Bound, cfg.NoMinimize = 3, true
					t0 := time.Now()
					res, _ := sched.Explore(cfg, bg.test)
					dfsT, dfsN = append(dfsT, time.Since(t0)), append(dfsN, res.Stats.Executions)
					cfg.Strategy, cfg.Depth, cfg.Seed, cfg.Executions = sched.PCT, 2, seed, 100000
					t0 = time.Now()
					res, _ = sched.Explore(cfg, bg.test)
					pctT, pctN = append(pctT, time.Since(t0)), append(pctN, res.Stats.Executions)
					if bg.kind != "deadlock" {
						t0 = time.Now()
						strN = append(strN, stressRuns(bg, 20000))
						strT = append(strT, time.Since(t0))
					}
					if bg.name == "starving segmented queue" {
						t0 = time.Now()
						rep, err := stress.Run(context.Background(), examplesStarving(seed))
						if err != nil || rep.Verdict != lts.Invalid {
							b.Fatalf("history/stress seed %d: %v %v", seed, rep, err)
						}
						hN, hT = append(hN, rep.Runs), append(hT, time.Since(t0))
					}
				}
			}
			b.ReportMetric(float64(median(dfsN)), "dfs-execs")
			b.ReportMetric(float64(median(dfsT).Microseconds()), "dfs-µs")
			b.ReportMetric(float64(median(pctN)), "pct-execs")
			b.ReportMetric(float64(median(pctT).Microseconds()), "pct-µs")
			if len(strN) > 0 {
				b.ReportMetric(float64(median(strN)), "stress-runs")
				b.ReportMetric(float64(median(strT).Microseconds()), "stress-µs")
			}
			if len(hN) > 0 {
				b.ReportMetric(float64(median(hN)), "hstress-runs")
				b.ReportMetric(float64(median(hT).Microseconds()), "hstress-µs")
			}
		})
	}
}
