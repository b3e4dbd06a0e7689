package stress

import (
	"context"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// dequeues relaxed by q, enqueues rigid, an empty dequeue a barrier: the
// exact mode of docs/verdicts.md §2.2 as used for the segmented queue.
func deqQuasi(q int) *relax.Config {
	return &relax.Config{
		Classes:  []relax.Class{{Patterns: []lts.Pattern{lts.ParsePattern("deq")}, Bound: q}},
		Barriers: []lts.Pattern{lts.ParsePattern("deq.0")},
	}
}

// TestSegmentedQueueQuasi: with segments of K the queue passes at quasi
// factor K-1 (Afek et al.) and not below, while the starving variant is
// refuted at every factor tried, with a small test case.
func TestSegmentedQueueQuasi(t *testing.T) {
	const k = 2
	limits := lts.Limits{Timeout: 20 * time.Second}
	for _, k := range []int{2, 3} {
		rep, err := Run(context.Background(), Config{
			Goroutines: 2, OpsPerGoroutine: 30, Rounds: 5, Seed: 4,
			New: segQueue(k, false), Ops: queueOps, Model: history.Queue(), Quasi: deqQuasi(k - 1), Limits: limits,
		})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != lts.Valid {
			t.Fatalf("segmented queue (K=%d) at factor %d: %v %s\n%s", k, k-1, rep.Verdict, rep.Reason, rep.Test)
		}
		// The factor is tight: below K-1 some run is refuted.
		rep, err = Run(context.Background(), Config{
			Goroutines: 2, OpsPerGoroutine: 30, Rounds: 20, Seed: 4,
			New: segQueue(k, false), Ops: queueOps, Model: history.Queue(), Quasi: deqQuasi(k - 2), Limits: limits,
		})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != lts.Invalid {
			t.Fatalf("segmented queue (K=%d) at factor %d: %v after %d runs", k, k-2, rep.Verdict, rep.Runs)
		}
	}
	for q := 0; q <= 3; q++ {
		rep, err := Run(context.Background(), Config{
			Goroutines: 2, OpsPerGoroutine: 30, Rounds: 20, Seed: 5,
			New: segQueue(k, true), Ops: queueOps, Model: history.Queue(), Quasi: deqQuasi(q), Limits: limits, Localize: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != lts.Invalid {
			t.Fatalf("starving queue at factor %d: %v %s after %d runs", q, rep.Verdict, rep.Reason, rep.Runs)
		}
		if rep.Core == nil || rep.Core.Verdict != lts.Invalid || rep.Core.Size() > 2*q+6 {
			t.Fatalf("starving queue at factor %d: test case %+v", q, rep.Core)
		}
		t.Logf("factor %d: refuted in run %d; test case of %d ops: %s", q, rep.Runs, rep.Core.Size(), opsString(rep.Core.Ops))
	}
}
