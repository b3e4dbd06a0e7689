package history

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// strandingQueue is a seeded history of n operations on procs processes of
// an atomic queue (each op takes effect inside its interval) that loses
// the values of up to two enqueues, chosen at random: they are never
// dequeued while later ones are, as in the starving segmented queue. No op
// is pending.
func strandingQueue(r *rand.Rand, n, procs int) *History {
	h, order, next := randomQueueOps(r, n, procs, 4, 8)
	lost := map[int64]bool{}
	for k := r.Intn(3); k > 0 && next > 1; k-- {
		lost[1+r.Int63n(next-1)] = true
	}
	var q []int64
	for _, i := range order {
		o := &h.Ops[i]
		if o.F == "enq" {
			if v, _ := o.Input.Int(); !lost[v] {
				q = append(q, v)
			}
			continue
		}
		if len(q) > 0 {
			o.Output, q = Int(q[0]), q[1:]
		}
	}
	byCall(h)
	return h
}

// lateDequeues gives about half of h's lost values a dequeue that returns
// them after every other op (the starving queue's value that comes out at
// last), invoked at a random time, on a process of its own; it returns how
// many, whose completions are the last events of h.
func lateDequeues(r *rand.Rand, h *History) int {
	end, procs := int64(0), 0
	taken := map[int64]bool{}
	for _, o := range h.Ops {
		end, procs = max(end, o.Return), max(procs, o.Process+1)
		if v, ok := o.Output.Int(); ok {
			taken[v] = true
		}
	}
	late := 0
	for _, o := range h.Ops {
		if v, ok := o.Input.Int(); ok && !taken[v] && r.Intn(2) == 0 {
			h.Ops = append(h.Ops, Op{Process: procs + late, F: "deq", Output: Int(v), Status: Ok, Call: r.Int63n(end + 1), Return: end + 1 + int64(late)})
			late++
		}
	}
	byCall(h)
	return late
}

// strandedMismatches checks the refutations of quasistranded.go on random
// stranding histories of 7-9 operations (8-10 cut to a prefix) at bound 1 against brute force:
// whenever one fires, no linearization may be accepted. rigid selects the
// papers' configuration (barrierBlocked, then strandedRigid: deq relaxed,
// deq.0 a barrier) instead of every event in one class (strandedQueue).
// prefix checks strandedQueue on prefixes cut as Localize cuts them
// (locPrefix, locFixedModel: an op pending at the cut takes effect with
// the result it returned later, or not at all; lateDequeues makes lost
// values' removals pending at the cut), judged by quasiOracle. It
// returns the number of firings and of mismatches.
func strandedMismatches(t *testing.T, iters int, rigid, prefix bool) (fired, bad int) {
	r := rand.New(rand.NewSource(11))
	for it := 0; it < iters; it++ {
		n := 7 + r.Intn(3)
		if prefix {
			n++ // the cut leaves fewer ops
		}
		h := strandingQueue(r, n, 2+r.Intn(2))
		cfg, err := relax.ParseConfig("1")
		if rigid {
			cfg, err = relax.ParseConfig("1 on {deq} barrier {deq.0}")
		}
		if err != nil {
			t.Fatal(err)
		}
		b := -1
		switch {
		case rigid:
			mc, err := compile(Queue(), h.Ops, Options{Quasi: &cfg})
			if err != nil {
				t.Fatal(err)
			}
			if qm, ok := mc.(*quasiMachine); ok {
				if b, _ = barrierBlocked(qm, h.Ops); b < 0 {
					b, _ = strandedRigid(qm, h.Ops)
				}
			}
		case prefix:
			late := lateDequeues(r, h)
			evs := locEvents(h.Ops)
			fm := newLocFixedModel(Queue(), h.Ops)
			ops := locPrefix(h.Ops, evs, len(evs)-late-r.Intn(len(evs)/4+1))
			if b, _ = strandedQueue(ops, fm, &cfg); b < 0 {
				continue
			}
			if ops[b].Return == Pending {
				t.Fatalf("history %d: the rule blocks a pending op", it)
			}
			for i := range ops {
				if ops[i].Return == Pending {
					ops[i] = fm.fix(ops[i])
					ops[i].Status = Info
				}
			}
			fired++
			if quasiOracle(t, ops, cfg) {
				bad++
				if bad == 1 {
					t.Logf("prefix %d (%v): refuted by the rule, accepted by brute force\n%s", it, cfg, dumpOps(ops))
				}
			}
			continue
		default:
			b, _ = strandedQueue(h.Ops, Queue(), &cfg)
		}
		if b < 0 {
			continue
		}
		fired++
		maxv := 0
		for _, o := range h.Ops {
			if v, ok := o.Input.Int(); ok && int(v) > maxv {
				maxv = int(v)
			}
		}
		spec := explicitQueue(maxv)
		ok := bruteForce(h.Ops, func(order []int) bool {
			ok, err := relax.Admits(spec, cfg, queueTrace(spec.Table, h.Ops, order))
			if err != nil {
				t.Fatal(err)
			}
			return ok
		})
		if ok {
			bad++
			if bad == 1 {
				t.Logf("history %d (%v): refuted by the rule, accepted by brute force\n%s", it, cfg, dumpOps(h.Ops))
			}
		}
	}
	return fired, bad
}

// TestStrandedQueueAgainstBruteForce: no rule refutes an accepted
// history (whole, or a prefix as Localize checks it), they fire often
// enough to be tested, and deliberately wrong premises (one dequeue too
// few after the blocked one; a barrier's removal required to precede it)
// are caught.
func TestStrandedQueueAgainstBruteForce(t *testing.T) {
	for _, c := range []struct{ rigid, prefix bool }{{false, false}, {true, false}, {false, true}} {
		iters := 3000
		if c.prefix {
			iters = 9000 // the rule fires on fewer prefixes
		}
		fired, bad := strandedMismatches(t, iters, c.rigid, c.prefix)
		if bad > 0 {
			t.Fatalf("%+v: %d of %d refutations wrong", c, bad, fired)
		}
		if fired < 30 {
			t.Fatalf("%+v: the rule fired only %d times", c, fired)
		}
		mutants := []int{3}
		if c.rigid {
			mutants = append(mutants, 4)
		}
		for _, mu := range mutants {
			quasiMutant = mu
			_, bad = strandedMismatches(t, iters, c.rigid, c.prefix)
			quasiMutant = 0
			if bad == 0 {
				t.Fatalf("%+v: mutant %d went unnoticed", c, mu)
			}
		}
		t.Logf("%+v: the rule fired on %d histories", c, fired)
	}
}

// TestStrandedQueueCheck: the check reports the rule's refutation with the
// dequeue it blocks; MinQuasiFactor on a stranding history finds no factor
// (every bound is refuted by the rule, or at 0 by the model's own search).
func TestStrandedQueueCheck(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for it := 0; it < 3000; it++ {
		h := strandingQueue(r, 6+r.Intn(3), 2+r.Intn(2))
		cfg, _ := relax.ParseConfig("1")
		b, why := strandedQueue(h.Ops, Queue(), &cfg)
		if b < 0 {
			continue
		}
		res, err := Check(context.Background(), h, Queue(), Options{Quasi: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != lts.Invalid || res.Failure == nil || res.Failure.Blocked != h.Ops[b].ID || why == "" {
			t.Fatalf("history %d: %v %+v", it, res.Verdict, res.Failure)
		}
		want := fmt.Sprintf("%s (%s) cannot take effect: ", h.Ops[b].String(), lineOf(&h.Ops[b]))
		if len(res.Reason) < len(want) || res.Reason[len("no linearization: "):len("no linearization: ")+len(want)] != want {
			t.Fatalf("reason %q", res.Reason)
		}
		return
	}
	t.Fatal("the rule never fired")
}

// TestQuasiEmptyHistory: an empty history (Localize checks empty prefixes)
// is quasi-linearizable in every configuration, without a panic.
func TestQuasiEmptyHistory(t *testing.T) {
	for _, text := range []string{"0", "2", "2 on {deq} barrier {deq.0}"} {
		cfg, err := relax.ParseConfig(text)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Check(context.Background(), &History{}, Queue(), Options{Quasi: &cfg})
		if err != nil || res.Verdict != lts.Valid {
			t.Fatalf("%s: %v %v", text, res, err)
		}
	}
}

// TestStrandedRigidFactor: MinQuasiFactor on histories refuted by the
// rules of the papers' configuration at bound 1 (so at 0 too) finds no
// factor below 2; its checks below the last bound skip the failure's
// replay.
func TestStrandedRigidFactor(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	cfg, err := relax.ParseConfig("0 on {deq} barrier {deq.0}")
	if err != nil {
		t.Fatal(err)
	}
	c1 := cfg.WithBound(1)
	n := 0
	for it := 0; it < 3000 && n < 20; it++ {
		h := strandingQueue(r, 7+r.Intn(3), 2+r.Intn(2))
		mc, err := compile(Queue(), h.Ops, Options{Quasi: &c1})
		if err != nil {
			t.Fatal(err)
		}
		qm, ok := mc.(*quasiMachine)
		if !ok {
			continue
		}
		if b, _ := barrierBlocked(qm, h.Ops); b < 0 {
			if b, _ = strandedRigid(qm, h.Ops); b < 0 {
				continue
			}
		}
		n++
		k, res, err := MinQuasiFactor(context.Background(), h, Queue(), cfg, 2, Options{})
		if err != nil {
			t.Fatalf("history %d: %v", it, err)
		}
		if k == 0 || k == 1 || res == nil {
			t.Fatalf("history %d: factor %d, refuted at 1", it, k)
		}
	}
	if n < 20 {
		t.Fatalf("only %d refuted histories", n)
	}
}
