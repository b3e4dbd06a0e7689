package history

import (
	"context"
	"math/rand"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// patternHistory is a random small queue history for the patterns of
// queueViolation: a simulated atomic queue with one planted fault (two
// dequeues exchange results, a dequeue returns null, another's value or a
// value never enqueued, or values are lost as in the starving queue), or
// randomQueueHistory's random results with pending ops.
func patternHistory(r *rand.Rand) *History {
	n, procs := 4+r.Intn(5), 2+r.Intn(2)
	switch r.Intn(4) {
	case 0:
		return randomQueueHistory(r, n, procs, true)
	case 1:
		return strandingQueue(r, n, procs)
	}
	h := linearizableQueue(n, procs, r.Int63())
	var deqs []int
	for i, o := range h.Ops {
		if o.F == "deq" {
			deqs = append(deqs, i)
		}
	}
	if len(deqs) == 0 {
		return h
	}
	a, b := deqs[r.Intn(len(deqs))], deqs[r.Intn(len(deqs))]
	switch r.Intn(4) {
	case 0:
		h.Ops[a].Output, h.Ops[b].Output = h.Ops[b].Output, h.Ops[a].Output
	case 1:
		h.Ops[a].Output = Nil()
	case 2:
		h.Ops[a].Output = h.Ops[b].Output
	case 3:
		h.Ops[a].Output = Int(int64(1 + r.Intn(n)))
	}
	if r.Intn(3) == 0 { // pending ops with an unknown result
		i := r.Intn(len(h.Ops))
		h.Ops[i].Status, h.Ops[i].Return, h.Ops[i].Output = Info, Pending, Nil()
	}
	return h
}

// patternMismatches runs queueViolation on iters random histories and on
// a random prefix of each (pending ops at the cut keep their later result,
// as in Localize) and judges each refutation by brute force: it returns
// the number of refutations and of those that brute force accepts. Check
// (which runs the patterns first) is compared with brute force too.
func patternMismatches(t *testing.T, iters int) (fired, bad int) {
	r := rand.New(rand.NewSource(17))
	for it := 0; it < iters; it++ {
		h := patternHistory(r)
		sub, m := h.Ops, Model(Queue())
		if r.Intn(2) == 0 {
			fm := newLocFixedModel(Queue(), h.Ops)
			sub = locPrefix(h.Ops, locEvents(h.Ops), r.Intn(2*len(h.Ops)+1))
			m = fm
		}
		sem := sub
		if fm, ok := m.(*locFixedModel); ok {
			sem = fm.fixAll(sub)
			for i := range sem {
				if sem[i].Return == Pending && sem[i].Status == Ok {
					continue // fixed: Status Ok, so refQueue makes it return its result if it takes effect
				}
				if sem[i].Return == Pending {
					sem[i].Status = Info
				}
			}
		}
		want := bruteForce(sub, func(order []int) bool { return refQueue(sem, order) })
		if d, why := queueViolation(sub, m, nil); d >= 0 {
			fired++
			if want {
				bad++
				if bad == 1 {
					t.Logf("history %d: refuted (op %d: %s), brute force accepts\n%s", it, d, why, dumpOps(sem))
				}
			}
		}
		if queueMutant != 0 {
			continue
		}
		res, err := CheckOps(context.Background(), sub, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if (res.Verdict == lts.Valid) != want || res.Verdict == lts.Unknown {
			t.Fatalf("history %d: check %v (%s), brute force %v\n%s", it, res.Verdict, res.Reason, want, dumpOps(sem))
		}
	}
	return fired, bad
}

// TestQueuePatternsAgainstBruteForce: no pattern refutes a linearizable
// history, they fire often, and each deliberately wrong variant
// (queueMutant) is caught.
func TestQueuePatternsAgainstBruteForce(t *testing.T) {
	fired, bad := patternMismatches(t, 3000)
	if bad > 0 {
		t.Fatalf("%d of %d refutations wrong", bad, fired)
	}
	if fired < 300 {
		t.Fatalf("the patterns fired only %d times", fired)
	}
	t.Logf("%d refutations", fired)
	for _, mu := range []int{1, 2, 3} {
		queueMutant = mu
		_, bad = patternMismatches(t, 3000)
		queueMutant = 0
		if bad == 0 {
			t.Fatalf("mutant %d not caught", mu)
		}
	}
}

// TestPendingDuplicateRemovals: prefixes in which two dequeues pending at
// the cut carry the same later result (one of them planted), checked by
// the search (queuePrune keeps the first invoked as the value's removal)
// against brute force. Keeping the last invoked instead is caught.
func TestPendingDuplicateRemovals(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	counts := map[bool]int{}
	for it := 0; counts[true]+counts[false] < 1500 && it < 100000; it++ {
		h := linearizableQueue(5+r.Intn(4), 3, r.Int63())
		var pairs [][2]int
		for a, oa := range h.Ops {
			for b, ob := range h.Ops {
				if a != b && oa.F == "deq" && ob.F == "deq" && !ob.Output.IsNil() && !oa.Precedes(&ob) && !ob.Precedes(&oa) {
					pairs = append(pairs, [2]int{a, b})
				}
			}
		}
		if len(pairs) == 0 {
			continue
		}
		p := pairs[r.Intn(len(pairs))]
		h.Ops[p[0]].Output = h.Ops[p[1]].Output
		if c := r.Intn(len(h.Ops)); r.Intn(2) == 0 && h.Ops[c].F == "deq" && c != p[0] && c != p[1] {
			h.Ops[c].Output = Int(int64(1 + r.Intn(4))) // often wrong
		}
		fm := newLocFixedModel(Queue(), h.Ops)
		evs := locEvents(h.Ops)
		// A cut after both calls and before both returns.
		var cuts []int
		for n := range evs {
			sub := locPrefix(h.Ops, evs, n)
			pend := 0
			for _, o := range sub {
				if (o.ID == p[0] || o.ID == p[1]) && o.Return == Pending {
					pend++
				}
			}
			if pend == 2 {
				cuts = append(cuts, n)
			}
		}
		if len(cuts) == 0 {
			continue
		}
		sub := locPrefix(h.Ops, evs, cuts[r.Intn(len(cuts))])
		sem := fm.fixAll(sub)
		want := bruteForce(sub, func(order []int) bool { return refQueue(sem, order) })
		counts[want]++
		res, err := CheckOps(context.Background(), sub, fm, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if (res.Verdict == lts.Valid) != want {
			t.Fatalf("history %d: check %v (%s), brute force %v\n%s", it, res.Verdict, res.Reason, want, dumpOps(sem))
		}
	}
	if counts[true] < 100 || counts[false] < 50 {
		t.Fatalf("unbalanced sample: %v", counts)
	}
	t.Logf("verdicts: %v", counts)
}
