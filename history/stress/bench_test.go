package stress

import (
	"context"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/lts"
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
