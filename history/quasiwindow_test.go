package history

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// quasiOracle decides ops (a queue history) at cfg by brute force: every
// linearization, each pending op in or out, a pending dequeue with no
// result with every result (null or a value), judged by relax.Admits on an
// explicit queue of the values enqueued. A pending op with a result (a
// prefix's cut in Localize) takes effect with that result or not at all.
func quasiOracle(t *testing.T, ops []Op, cfg relax.Config) bool {
	maxv := 0
	var free []int
	for i, o := range ops {
		if v, ok := o.Input.Int(); ok && int(v) > maxv {
			maxv = int(v)
		}
		if o.Status == Info && o.F == "deq" && o.Output.IsNil() {
			free = append(free, i)
		}
	}
	spec := explicitQueue(maxv)
	ops = slices.Clone(ops)
	var try func(int) bool
	try = func(d int) bool {
		if d == len(free) {
			return bruteForce(ops, func(order []int) bool {
				ok, err := relax.Admits(spec, cfg, queueTrace(spec.Table, ops, order))
				if err != nil {
					t.Fatal(err)
				}
				return ok
			})
		}
		for v := 0; v <= maxv; v++ {
			ops[free[d]].Output = Value{}
			if v > 0 {
				ops[free[d]].Output = Int(int64(v))
			}
			if try(d + 1) {
				return true
			}
		}
		ops[free[d]].Output = Value{}
		return false
	}
	return try(0)
}

// windowMismatches checks `--quasi k` (every event in one class, k =
// 1..3: rank windows and obligation pruning, quasiwindow.go) against
// quasiOracle on random queue histories of 6-8 operations (with pending
// ones, as BenchmarkQuasiShortQueues's, or a prefix as Localize checks it:
// ops pending at the cut carry the result they returned later). It
// returns the number of checks, of mismatches, and of states pruned.
func windowMismatches(t *testing.T, iters int) (checks, bad int, pruned int64) {
	r := rand.New(rand.NewSource(5))
	before := windowPruned.Load()
	for it := 0; it < iters; it++ {
		var ops []Op
		var m Model = Queue()
		if it%2 == 0 {
			h := shortQueueHistory(int64(1000 + it))
			if len(h.Ops) > 8 {
				continue
			}
			ops = h.Ops
		} else {
			h := strandingQueue(r, 6+r.Intn(3), 2+r.Intn(2))
			evs := locEvents(h.Ops)
			fm := newLocFixedModel(Queue(), h.Ops)
			ops = locPrefix(h.Ops, evs, len(evs)/2+r.Intn(len(evs)/2+1))
			m = fm
		}
		k := 1 + r.Intn(3)
		cfg, err := relax.ParseConfig(fmt.Sprint(k))
		if err != nil {
			t.Fatal(err)
		}
		res, err := CheckOps(context.Background(), ops, m, Options{Quasi: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		oracle := slices.Clone(ops)
		if fm, ok := m.(*locFixedModel); ok {
			for i := range oracle {
				if oracle[i].Return == Pending {
					oracle[i] = fm.fix(oracle[i])
					oracle[i].Status = Info
				}
			}
		}
		checks++
		if want := quasiOracle(t, oracle, cfg); (res.Verdict == lts.Valid) != want {
			bad++
			if bad == 1 {
				t.Logf("history %d at k=%d: check %v (%s), brute force %v\n%s", it, k, res.Verdict, res.Reason, want, dumpOps(oracle))
			}
		}
	}
	return checks, bad, windowPruned.Load() - before
}

// TestQuasiWindowAgainstBruteForce: rank windows and obligation pruning
// keep every verdict, they fire, and deliberately wrong variants (an
// obligation's op must come one read sooner; every rank window one rank
// narrower at its low end) are caught.
func TestQuasiWindowAgainstBruteForce(t *testing.T) {
	iters := 400
	if testing.Short() {
		iters = 100
	}
	checks, bad, pruned := windowMismatches(t, iters)
	if bad > 0 {
		t.Fatalf("%d of %d verdicts wrong", bad, checks)
	}
	if pruned == 0 {
		t.Fatalf("the obligation rule never fired")
	}
	t.Logf("%d checks, %d states pruned", checks, pruned)
	for _, mu := range []int{7, 8} {
		quasiMutant = mu
		_, bad, _ = windowMismatches(t, iters)
		quasiMutant = 0
		if bad == 0 {
			t.Fatalf("mutant %d went unnoticed", mu)
		}
	}
}
