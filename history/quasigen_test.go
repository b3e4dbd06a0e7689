package history

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// shortQueueHistory is a seeded random queue history of 6-10 operations on
// 2-3 processes with 1-3 pending operations (the last operation of as
// many processes): each operation takes effect at a random point of its
// interval on an atomic queue of distinct values, then, with probability
// 1/2, the results are perturbed (two dequeues exchange their results, a
// dequeue loses its value and returns null or an unknown value), so that
// the quasi factors vary from 0 to beyond 8.
func shortQueueHistory(seed int64) *History {
	r := rand.New(rand.NewSource(seed))
	n, procs := 6+r.Intn(5), 2+r.Intn(2)
	npend := 1 + r.Intn(min(3, procs))
	h, order, next := randomQueueOps(r, n, procs, 6, 12)
	lastOf := make([]int, procs) // each process's last operation
	for i := range lastOf {
		lastOf[i] = -1
	}
	for i, o := range h.Ops {
		lastOf[o.Process] = i
	}
	var q []int64
	var deqs []int
	for _, i := range order {
		o := &h.Ops[i]
		if o.F == "enq" {
			v, _ := o.Input.Int()
			q = append(q, v)
			continue
		}
		deqs = append(deqs, i)
		if len(q) > 0 {
			o.Output, q = Int(q[0]), q[1:]
		}
	}
	if r.Intn(2) == 0 && len(deqs) >= 2 {
		a, b := deqs[r.Intn(len(deqs))], deqs[r.Intn(len(deqs))]
		h.Ops[a].Output, h.Ops[b].Output = h.Ops[b].Output, h.Ops[a].Output
	}
	if r.Intn(3) == 0 && len(deqs) > 0 {
		d := &h.Ops[deqs[r.Intn(len(deqs))]]
		if r.Intn(2) == 0 {
			d.Output = Value{}
		} else {
			d.Output = Int(next + 10) // never enqueued
		}
	}
	// The last operations of npend processes stay pending.
	var ps []int
	for p, i := range lastOf {
		if i >= 0 {
			ps = append(ps, p)
		}
	}
	r.Shuffle(len(ps), func(a, b int) { ps[a], ps[b] = ps[b], ps[a] })
	for _, p := range ps[:min(npend, len(ps))] {
		o := &h.Ops[lastOf[p]]
		o.Status, o.Return, o.Output = Info, Pending, Value{}
	}
	byCall(h)
	return h
}

// quasiAllK decides h at quasi factors 0..8 (every event in one class,
// as `history check --quasi k`).
func quasiAllK(tb testing.TB, h *History) []lts.Verdict {
	var vs []lts.Verdict
	for k := 0; k <= 8; k++ {
		cfg, err := relax.ParseConfig(fmt.Sprint(k))
		if err != nil {
			tb.Fatal(err)
		}
		res, err := Check(context.Background(), h, Queue(), Options{Quasi: &cfg, Limits: lts.Limits{Timeout: 20 * time.Second}})
		if err != nil {
			tb.Logf("k=%d: %v", k, err)
			vs = append(vs, lts.Unknown)
			continue
		}
		vs = append(vs, res.Verdict)
	}
	return vs
}

// BenchmarkQuasiShortQueues: 100 seeded short queue histories with pending
// operations (shortQueueHistory), each decided at quasi factors 0..8 (every
// event in one class); reports the largest and the median time per
// history (target: under 100 ms each), and the largest CPU time of the
// process per history (the machine may be loaded; it includes the
// collector's work).
func BenchmarkQuasiShortQueues(b *testing.B) {
	hs := make([]*History, 100)
	for i := range hs {
		hs[i] = shortQueueHistory(int64(i))
	}
	times, cpu := make([]float64, len(hs)), make([]float64, len(hs))
	for b.Loop() {
		for i, h := range hs {
			start, c0 := time.Now(), cpuSeconds()
			for _, v := range quasiAllK(b, h) {
				if v == lts.Unknown {
					b.Fatalf("history %d: unknown", i)
				}
			}
			times[i] = float64(time.Since(start).Microseconds()) / 1000
			cpu[i] = (cpuSeconds() - c0) * 1000
		}
	}
	s := slices.Clone(times)
	slices.Sort(s)
	b.ReportMetric(s[len(s)-1], "max-ms")
	b.ReportMetric(s[len(s)/2], "median-ms")
	b.ReportMetric(slices.Max(cpu), "max-cpu-ms")
}

// TestQuasiDeepeningAgainstBruteForce: the short queue histories of
// BenchmarkQuasiShortQueues with at most 7 operations, every event in one
// class at bounds 0..4 (the check deepens, see quasi.go), judged by the
// enumeration of every linearization (pending ops in or out, a pending
// dequeue with every possible result) with relax.Admits on an explicit
// queue of the values enqueued.
func TestQuasiDeepeningAgainstBruteForce(t *testing.T) {
	counts := map[bool]int{}
	for seed := int64(0); seed < 100; seed++ {
		h := shortQueueHistory(seed)
		if len(h.Ops) > 7 {
			continue
		}
		maxv := 0
		var pdeq []int
		for i, o := range h.Ops {
			if v, ok := o.Input.Int(); ok && int(v) > maxv {
				maxv = int(v)
			}
			if o.Status == Info && o.F == "deq" {
				pdeq = append(pdeq, i)
			}
		}
		spec := explicitQueue(maxv)
		for k := 0; k <= 4; k++ { // Admits's own search explodes beyond
			cfg, err := relax.ParseConfig(fmt.Sprint(k))
			if err != nil {
				t.Fatal(err)
			}
			// Every result of the pending dequeues: null or a value.
			want := false
			ops := slices.Clone(h.Ops)
			var try func(int)
			try = func(d int) {
				if want {
					return
				}
				if d == len(pdeq) {
					want = bruteForce(ops, func(order []int) bool {
						ok, err := relax.Admits(spec, cfg, queueTrace(spec.Table, ops, order))
						if err != nil {
							t.Fatal(err)
						}
						return ok
					})
					return
				}
				for v := 0; v <= maxv; v++ {
					ops[pdeq[d]].Output = Value{}
					if v > 0 {
						ops[pdeq[d]].Output = Int(int64(v))
					}
					try(d + 1)
				}
			}
			try(0)
			counts[want]++
			res, err := Check(context.Background(), h, Queue(), Options{Quasi: &cfg})
			if err != nil {
				t.Fatal(err)
			}
			if (res.Verdict == lts.Valid) != want {
				t.Fatalf("history %d at k=%d: check %v (%s), brute force %v\n%s", seed, k, res.Verdict, res.Reason, want, dumpOps(h.Ops))
			}
		}
	}
	if counts[true] < 20 || counts[false] < 20 {
		t.Fatalf("unbalanced sample: %v", counts)
	}
	t.Logf("verdicts: %v", counts)
}

// TestQuasiNeverEnqueued: a dequeue of a value that no operation enqueues
// is refuted at every bound, and the report says why.
func TestQuasiNeverEnqueued(t *testing.T) {
	h := &History{Ops: []Op{
		{ID: 0, Process: 0, F: "enq", Input: Int(1), Status: Ok, Call: 0, Return: 2},
		{ID: 1, Process: 1, F: "deq", Output: Int(7), Status: Ok, Call: 1, Return: 3},
		{ID: 2, Process: 2, F: "deq", Status: Info, Call: 4, Return: Pending},
	}}
	for k := 0; k <= 8; k++ {
		cfg, err := relax.ParseConfig(fmt.Sprint(k))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Check(context.Background(), h, Queue(), Options{Quasi: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != lts.Invalid || res.Failure == nil || res.Failure.Blocked != 1 {
			t.Fatalf("k=%d: %v %+v", k, res.Verdict, res.Failure)
		}
		if k > 0 && !strings.Contains(res.Reason, "the history has no enq(7)") {
			t.Fatalf("k=%d: reason %q", k, res.Reason)
		}
	}
}
