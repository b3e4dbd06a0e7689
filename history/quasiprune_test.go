package history

import (
	"context"
	"math/rand"
	"testing"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// simulateRelaxedQueue runs procs processes on a k-relaxed container: at
// its point (random in its interval) a removal takes one of the k+1
// first values (queue: from the head; stack: from the top; priority
// queue: least first), or null when empty. Half of the histories then get
// one removal's result perturbed. Values are distinct. With info, some
// puts are pending (their process stops; the put took effect or not).
func simulateRelaxedQueue(r *rand.Rand, kind containerKind, n, procs, k int, info bool) *History {
	put, take := [...]string{"enq", "push", "insert"}[kind], [...]string{"deq", "pop", "deleteMin"}[kind]
	h := &History{}
	clock := make([]int64, procs)
	type pt struct {
		at  int64
		idx int
	}
	var pts []pt
	vals := r.Perm(n)
	for i := 0; i < n; i++ {
		p := r.Intn(procs)
		call := clock[p] + int64(r.Intn(3))
		ret := call + 1 + int64(r.Intn(8))
		clock[p] = ret + 1
		o := Op{Process: p, Status: Ok, Call: call, Return: ret}
		if r.Intn(5) < 3 {
			o.F, o.Input = put, Int(int64(vals[i]+1))
			if info && r.Intn(6) == 0 {
				o.Status, o.Return = Info, Pending
				clock[p] = 1 << 40
				if r.Intn(2) == 0 {
					h.Ops = append(h.Ops, o)
					continue // never took effect
				}
			}
		} else {
			o.F = take
		}
		h.Ops = append(h.Ops, o)
		if o.Status == Info {
			ret = call + 8 // takes effect some time after its call
		}
		pts = append(pts, pt{call + r.Int63n(ret-call+1), i})
	}
	for i := 1; i < len(pts); i++ {
		for j := i; j > 0 && pts[j].at < pts[j-1].at; j-- {
			pts[j], pts[j-1] = pts[j-1], pts[j]
		}
	}
	var c []int64 // in removal order
	for _, q := range pts {
		o := &h.Ops[q.idx]
		if o.F == put {
			v, _ := o.Input.Int()
			switch kind {
			case cQueue:
				c = append(c, v)
			case cStack:
				c = append([]int64{v}, c...)
			case cPQueue:
				j := 0
				for j < len(c) && c[j] < v {
					j++
				}
				c = append(c[:j:j], append([]int64{v}, c[j:]...)...)
			}
			continue
		}
		if len(c) == 0 {
			continue
		}
		j := r.Intn(min(len(c), k+1))
		o.Output = Int(c[j])
		c = append(c[:j:j], c[j+1:]...)
	}
	if r.Intn(2) == 0 {
		i := r.Intn(len(h.Ops))
		if h.Ops[i].F == take {
			h.Ops[i].Output = Int(int64(1 + r.Intn(n)))
			if r.Intn(3) == 0 {
				h.Ops[i].Output = Nil()
			}
		}
	}
	sortOpsByCall(h.Ops)
	for i := range h.Ops {
		h.Ops[i].ID = i
	}
	return h
}

// quasiConfig relaxes the removals of kind with bound q; the empty removal
// is a barrier or (rigidEmpty) rigid.
func quasiConfig(kind containerKind, q int, complete, rigidEmpty bool) *relax.Config {
	take := [...]string{"deq", "pop", "deleteMin"}[kind]
	cfg := &relax.Config{
		Classes:  []relax.Class{{Patterns: []lts.Pattern{lts.ParsePattern(take)}, Bound: q}},
		Barriers: []lts.Pattern{lts.ParsePattern(take + ".0")},
		Complete: complete,
	}
	if rigidEmpty {
		// A pattern that matches no event: deq.0 falls to the class, so
		// instead name the values' events... keep deq.0 out of the class
		// by making it the only barrier-free empty: not expressible, so
		// the class lists the values explicitly.
		cfg.Barriers = nil
		cfg.Classes[0].Patterns = nil
		for v := 1; v <= 12; v++ {
			cfg.Classes[0].Patterns = append(cfg.Classes[0].Patterns, lts.Pattern{Base: take, Data: []int{v}})
		}
	}
	return cfg
}

// checkPruning compares the quasi verdict of h with pruning (the search of
// Check) against want; it reports a mismatch instead of failing so that
// the mutation test can count them.
func quasiVerdict(t *testing.T, h *History, m Model, cfg *relax.Config) lts.Verdict {
	t.Helper()
	res, err := Check(context.Background(), h, m, Options{Quasi: cfg, Limits: lts.Limits{MaxStates: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict == lts.Unknown {
		t.Fatalf("unknown: %s\n%s", res.Reason, dumpOps(h.Ops))
	}
	return res.Verdict
}

// TestQuasiPruningAgainstBruteForce: small relaxed-queue histories (up to
// 8 operations, 2 or 3 processes, bound 0..3, barrier or rigid empty
// removals, open or complete mode) judged by the enumeration of every
// linearization with relax.Admits on an explicit queue, against the
// search with its dead-state pruning. The pruning must fire.
func TestQuasiPruningAgainstBruteForce(t *testing.T) {
	if n := quasiMismatches(t, 1, 300, 7); n > 0 {
		t.Fatalf("%d mismatches", n)
	}
}

// quasiMismatches runs the brute-force comparison and returns the number
// of histories on which the search disagrees.
func quasiMismatches(t *testing.T, seed int64, iters, maxOps int) int {
	r := rand.New(rand.NewSource(seed))
	counts := map[bool]int{}
	before := quasiPruned.Load()
	futureBefore, domBefore := quasiFuture.Load(), quasiDominated.Load()
	bad := 0
	for it := 0; it < iters; it++ {
		q := r.Intn(4)
		h := simulateRelaxedQueue(r, cQueue, 4+r.Intn(maxOps-3), 2+r.Intn(2), q+r.Intn(2), r.Intn(3) == 0)
		nvals := 0
		for _, o := range h.Ops {
			if o.F == "enq" {
				nvals++
			}
		}
		// Values are 1..n with n the number of ops: the explicit queue
		// needs every enqueued value.
		maxv := 0
		for _, o := range h.Ops {
			if v, ok := o.Input.Int(); ok && int(v) > maxv {
				maxv = int(v)
			}
		}
		spec := explicitQueue(maxv)
		cfg := quasiConfig(cQueue, q, r.Intn(3) == 0, r.Intn(4) == 0)
		want := bruteForce(h.Ops, func(order []int) bool {
			ok, err := relax.Admits(spec, *cfg, queueTrace(spec.Table, h.Ops, order))
			if err != nil {
				t.Fatal(err)
			}
			return ok
		})
		counts[want]++
		if got := quasiVerdict(t, h, Queue(), cfg); (got == lts.Valid) != want {
			bad++
			if bad == 1 {
				t.Logf("history %d (q=%d %v): search %v, brute force %v\n%s", it, q, cfg, got, want, dumpOps(h.Ops))
			}
		}
		// A prefix as Localize checks it (an op pending at the cut takes
		// effect with the result it returned later, or not at all): the
		// brute force takes pending ops with their Output, the same.
		rp := rand.New(rand.NewSource(seed*1000 + int64(it)))
		evs := locEvents(h.Ops)
		pre := &History{Ops: locPrefix(h.Ops, evs, 1+rp.Intn(len(evs)))}
		want = bruteForce(pre.Ops, func(order []int) bool {
			ok, err := relax.Admits(spec, *cfg, queueTrace(spec.Table, pre.Ops, order))
			if err != nil {
				t.Fatal(err)
			}
			return ok
		})
		if got := quasiVerdict(t, pre, newLocFixedModel(Queue(), h.Ops), cfg); (got == lts.Valid) != want {
			bad++
			if bad == 1 {
				t.Logf("history %d, prefix (q=%d %v): search %v, brute force %v\n%s", it, q, cfg, got, want, dumpOps(pre.Ops))
			}
		}
	}
	if counts[true] < iters/10 || counts[false] < iters/10 {
		t.Fatalf("unbalanced sample: %v", counts)
	}
	if quasiPruned.Load() == before {
		t.Fatalf("the pruning never fired")
	}
	if quasiFuture.Load() == futureBefore || quasiDominated.Load() == domBefore {
		t.Fatalf("rule F or the enqueue-order dominance never fired")
	}
	return bad
}

// TestQuasiPruningAgainstUnpruned: larger histories of relaxed queues,
// stacks and priority queues (up to 24 operations, 3 or 4 processes),
// checked with and without pruning: the verdicts must agree (the search
// without pruning is the one checked against brute force above and in
// TestQuasiAgainstBruteForce).
func TestQuasiPruningAgainstUnpruned(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	iters := 400
	if testing.Short() {
		iters = 100
	}
	for _, kind := range []containerKind{cQueue, cStack, cPQueue} {
		m := containerModel{kind}
		counts := map[lts.Verdict]int{}
		before := quasiPruned.Load()
		for it := 0; it < iters; it++ {
			q := r.Intn(4)
			h := simulateRelaxedQueue(r, kind, 10+r.Intn(12), 3+r.Intn(2), q+r.Intn(2), r.Intn(3) == 0)
			cfg := quasiConfig(kind, q, r.Intn(3) == 0, r.Intn(4) == 0)
			got := quasiVerdict(t, h, m, cfg)
			quasiPruning = false
			want := quasiVerdict(t, h, m, cfg)
			quasiPruning = true
			counts[want]++
			if got != want {
				t.Fatalf("%s history %d (q=%d %v): pruned %v, unpruned %v\n%s", m.Name(), it, q, cfg, got, want, dumpOps(h.Ops))
			}
			// A prefix as Localize checks it: ops pending at the cut may
			// take effect with the result they returned later.
			evs := locEvents(h.Ops)
			pre := &History{Ops: locPrefix(h.Ops, evs, 1+r.Intn(len(evs)))}
			fm := newLocFixedModel(m, h.Ops)
			got = quasiVerdict(t, pre, fm, cfg)
			quasiPruning = false
			want = quasiVerdict(t, pre, fm, cfg)
			quasiPruning = true
			if got != want {
				t.Fatalf("%s history %d, prefix (q=%d %v): pruned %v, unpruned %v\n%s", m.Name(), it, q, cfg, got, want, dumpOps(pre.Ops))
			}
		}
		if counts[lts.Valid] < iters/10 || counts[lts.Invalid] < iters/10 {
			t.Fatalf("%s: unbalanced sample: %v", m.Name(), counts)
		}
		if quasiPruned.Load() == before {
			t.Fatalf("%s: the pruning never fired", m.Name())
		}
	}
}

// TestQuasiPruningMutation: deliberately wrong rules (every content
// deadline one read too early; rule F one read too strict; the enqueue
// dominance backwards) must be caught by the brute-force test.
func TestQuasiPruningMutation(t *testing.T) {
	quasiSkew = -1
	n := quasiMismatches(t, 1, 300, 7)
	quasiSkew = 0
	if n == 0 {
		t.Fatalf("a wrong deadline went unnoticed")
	}
	for _, mutant := range []int{1, 2} {
		quasiMutant = mutant
		n := quasiMismatches(t, 1, 300, 7)
		quasiMutant = 0
		if n == 0 {
			t.Fatalf("mutant %d went unnoticed", mutant)
		}
	}
}
