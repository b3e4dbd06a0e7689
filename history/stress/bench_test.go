package stress

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// benchLimits bounds each check of the figures.
var benchLimits = lts.Limits{Timeout: 20 * time.Second}

// figureHistory records one run of the segmented queue (segments of k)
// driven by 8 goroutines, 1250 operations each: 10,000 operations.
func figureHistory(b *testing.B, k int, starving bool) *history.History {
	cfg := Config{Goroutines: 8, OpsPerGoroutine: 1250, Seed: 6, New: segQueue(k, starving), Ops: queueOps, Model: history.Queue()}
	if err := cfg.defaults(); err != nil {
		b.Fatal(err)
	}
	h, err := execute(cfg, Generate(cfg, 0))
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// BenchmarkSegmentedQueueQuasi10k: the figure: a 10,000-operation
// history of the segmented queue (K=4, 8 goroutines) checked at its quasi
// factor K-1 = 3 (exact mode, deq relaxed, empty deq a barrier).
func BenchmarkSegmentedQueueQuasi10k(b *testing.B) {
	const k = 4
	h := figureHistory(b, k, false)
	opt := history.Options{Quasi: deqQuasi(k - 1), Limits: benchLimits}
	b.ResetTimer()
	for b.Loop() {
		res, err := history.Check(context.Background(), h, history.Queue(), opt)
		if err != nil {
			b.Fatal(err)
		}
		if res.Verdict == lts.Unknown {
			b.Skipf("quasi check of %d ops: %s (%d states)", len(h.Ops), res.Reason, res.Stats.States)
		}
		if res.Verdict != lts.Valid {
			b.Fatalf("%v: %s", res.Verdict, res.Reason)
		}
		b.ReportMetric(float64(res.Stats.States), "states")
	}
	b.ReportMetric(float64(len(h.Ops)), "ops")
}

// BenchmarkStarvingQueueLocalize10k: the starving variant's 10,000-op
// history is refuted at the quasi factor and localised; reports the size
// of the minimal test case.
func BenchmarkStarvingQueueLocalize10k(b *testing.B) {
	const k = 4
	h := figureHistory(b, k, true)
	opt := history.Options{Quasi: deqQuasi(k - 1), Limits: benchLimits}
	// The check of the whole history, on its own.
	start := time.Now()
	res, err := history.Check(context.Background(), h, history.Queue(), opt)
	if err != nil {
		b.Fatal(err)
	}
	if res.Verdict != lts.Invalid {
		b.Fatalf("check of %d ops: %v %s", len(h.Ops), res.Verdict, res.Reason)
	}
	checkMs := float64(time.Since(start).Microseconds()) / 1000
	b.ResetTimer()
	for b.Loop() {
		l, err := history.Localize(context.Background(), h, history.Queue(), opt)
		if err != nil {
			b.Fatal(err)
		}
		if l.Verdict == lts.Unknown {
			b.Skipf("quasi localisation of %d ops: %s", len(h.Ops), l.Reason)
		}
		if l.Verdict != lts.Invalid {
			b.Fatalf("%v: %s", l.Verdict, l.Reason)
		}
		b.ReportMetric(float64(l.Size()), "core-ops")
		b.ReportMetric(float64(l.Checks), "checks")
		b.ReportMetric(float64(len(l.Undecided)), "undecided")
	}
	b.ReportMetric(checkMs, "check-ms") // after the loop: ResetTimer drops metrics
}

// BenchmarkStarvingQueueLocalizeLin10k: the same starving history refuted
// for linearizability (a non-FIFO dequeue) and localised.
func BenchmarkStarvingQueueLocalizeLin10k(b *testing.B) {
	h := figureHistory(b, 4, true)
	b.ResetTimer()
	for b.Loop() {
		l, err := history.Localize(context.Background(), h, history.Queue(), history.Options{Limits: benchLimits})
		if err != nil {
			b.Fatal(err)
		}
		if l.Verdict != lts.Invalid {
			b.Fatalf("%v: %s", l.Verdict, l.Reason)
		}
		b.ReportMetric(float64(l.Size()), "core-ops")
		b.ReportMetric(float64(l.Checks), "checks")
	}
}

// starvingRecordings records n fresh 10,000-op runs of the starving
// segmented queue (K=4, 8 goroutines), one per seed 1..n.
func starvingRecordings(b testing.TB, n int) []*history.History {
	hs := make([]*history.History, n)
	for i := range hs {
		cfg := Config{Goroutines: 8, OpsPerGoroutine: 1250, Seed: uint64(i + 1), New: segQueue(4, true), Ops: queueOps, Model: history.Queue()}
		if err := cfg.defaults(); err != nil {
			b.Fatal(err)
		}
		h, err := execute(cfg, Generate(cfg, 0))
		if err != nil {
			b.Fatal(err)
		}
		hs[i] = h
	}
	return hs
}

// BenchmarkStarvingQueue20: 20 fresh recordings of the starving segmented
// queue, each localised at quasi factor 3 (deq relaxed, the empty dequeue
// a barrier) and its least factor searched up to 10 with those classes
// (factor) and with every operation in one class (factor-all, `history
// factor`'s default); reports the largest and median times of each
// (target: under 1 s) and the number of undecided (unknown at the 20 s
// limit) runs.
func BenchmarkStarvingQueue20(b *testing.B) {
	hs := starvingRecordings(b, 20)
	loc, fac, facAll := make([]float64, len(hs)), make([]float64, len(hs)), make([]float64, len(hs))
	unknown := 0
	cfg := *deqQuasi(3)
	for b.Loop() {
		unknown = 0
		for i, h := range hs {
			start := time.Now()
			l, err := history.Localize(context.Background(), h, history.Queue(), history.Options{Quasi: deqQuasi(3), Limits: benchLimits})
			if err != nil {
				b.Fatal(err)
			}
			loc[i] = float64(time.Since(start).Microseconds()) / 1000
			if l.Verdict != lts.Invalid {
				unknown++
				b.Logf("recording %d: localize %v %s (%.0f ms)", i+1, l.Verdict, l.Reason, loc[i])
			}
			for c, cfg := range []relax.Config{cfg, {}} {
				start = time.Now()
				k, res, err := history.MinQuasiFactor(context.Background(), h, history.Queue(), cfg, 10, history.Options{Limits: benchLimits})
				if err != nil {
					b.Fatal(err)
				}
				t := float64(time.Since(start).Microseconds()) / 1000
				if k >= 0 || res.Verdict != lts.Invalid {
					unknown++
					b.Logf("recording %d: factor (%v) %d %v %s (%.0f ms)", i+1, cfg, k, res.Verdict, res.Reason, t)
				}
				if c == 0 {
					fac[i] = t
				} else {
					facAll[i] = t
				}
			}
		}
	}
	med := func(x []float64) (float64, float64) {
		s := slices.Clone(x)
		slices.Sort(s)
		return s[len(s)-1], s[len(s)/2]
	}
	lm, lmed := med(loc)
	fm, fmed := med(fac)
	b.ReportMetric(lm, "loc-max-ms")
	b.ReportMetric(lmed, "loc-median-ms")
	b.ReportMetric(fm, "factor-max-ms")
	b.ReportMetric(fmed, "factor-median-ms")
	am, amed := med(facAll)
	b.ReportMetric(am, "factor-all-max-ms")
	b.ReportMetric(amed, "factor-all-median-ms")
	b.ReportMetric(float64(unknown), "undecided")
}

// BenchmarkStarvingQueuePlain20: 20 fresh recordings of the starving
// segmented queue, each checked for plain linearizability (`history check
// --model queue`); reports the largest and median times (ms) and the
// number undecided at the 20 s limit. Some recordings took 2-9 s before
// queueViolation's patterns.
func BenchmarkStarvingQueuePlain20(b *testing.B) {
	hs := starvingRecordings(b, 20)
	ts := make([]float64, len(hs))
	unknown := 0
	for b.Loop() {
		unknown = 0
		for i, h := range hs {
			start := time.Now()
			res, err := history.Check(context.Background(), h, history.Queue(), history.Options{Limits: benchLimits})
			if err != nil {
				b.Fatal(err)
			}
			ts[i] = float64(time.Since(start).Microseconds()) / 1000
			if res.Verdict != lts.Invalid {
				unknown++
				b.Logf("recording %d: %v %s (%.0f ms)", i+1, res.Verdict, res.Reason, ts[i])
			}
		}
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	b.ReportMetric(s[len(s)-1], "max-ms")
	b.ReportMetric(s[len(s)/2], "median-ms")
	b.ReportMetric(float64(unknown), "undecided")
}

// BenchmarkStarvingQueueOneClass20: 20 fresh recordings of the starving
// segmented queue, each localised at quasi factor 3 with every operation
// in one class (`history check --quasi 3 --localize`, no `on {...}`) and
// its least factor searched up to 10 in that configuration (`history
// factor`); reports the largest and median times of each (target: under
// 1 s), the CPU time of the process for the localisations, the number of
// undecided runs (localisation not invalid, or no factor found by 10) and
// the largest and median test-case sizes.
func BenchmarkStarvingQueueOneClass20(b *testing.B) {
	hs := starvingRecordings(b, 20)
	loc, fac, sizes := make([]float64, len(hs)), make([]float64, len(hs)), make([]float64, len(hs))
	unknown := 0
	var cpu float64
	for b.Loop() {
		unknown = 0
		c0 := cpuSeconds()
		for i, h := range hs {
			start := time.Now()
			l, err := history.Localize(context.Background(), h, history.Queue(), history.Options{Quasi: &relax.Config{All: 3}, Limits: benchLimits})
			if err != nil {
				b.Fatal(err)
			}
			loc[i] = float64(time.Since(start).Microseconds()) / 1000
			sizes[i] = float64(l.Size())
			if l.Verdict != lts.Invalid {
				unknown++
				b.Logf("recording %d: localize %v %s (%.0f ms)", i+1, l.Verdict, l.Reason, loc[i])
			}
		}
		cpu = cpuSeconds() - c0
		for i, h := range hs {
			start := time.Now()
			k, res, err := history.MinQuasiFactor(context.Background(), h, history.Queue(), relax.Config{}, 10, history.Options{Limits: benchLimits})
			if err != nil {
				b.Fatal(err)
			}
			fac[i] = float64(time.Since(start).Microseconds()) / 1000
			if k >= 0 || res.Verdict != lts.Invalid {
				unknown++
				b.Logf("recording %d: factor %d %v %s (%.0f ms)", i+1, k, res.Verdict, res.Reason, fac[i])
			}
		}
	}
	med := func(x []float64) (float64, float64) {
		s := slices.Clone(x)
		slices.Sort(s)
		return s[len(s)-1], s[len(s)/2]
	}
	lm, lmed := med(loc)
	fm, fmed := med(fac)
	sm, smed := med(sizes)
	b.ReportMetric(lm, "loc-max-ms")
	b.ReportMetric(lmed, "loc-median-ms")
	b.ReportMetric(cpu*1000/float64(len(hs)), "loc-cpu-ms/rec")
	b.ReportMetric(fm, "factor-max-ms")
	b.ReportMetric(fmed, "factor-median-ms")
	b.ReportMetric(sm, "size-max")
	b.ReportMetric(smed, "size-median")
	b.ReportMetric(float64(unknown), "undecided")
}
