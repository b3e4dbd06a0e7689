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

// tailCase is one random check of tailMismatches: ops (a prefix cut as
// Localize cuts it, or a whole history) and its model.
type tailCase struct {
	ops []Op
	m   Model
	q   int
}

// tailCases generates the histories of tailMismatches: queues that lose
// values (strandingQueue), a third of them with two removals' results
// exchanged, half of whose lost values come out at the end
// (lateDequeues), cut to a random prefix with locPrefix and checked with
// locFixedModel as Localize does (an op pending at the cut takes effect
// with the result it returned later, or not at all), or whole; 6-9
// operations, bound 1 or 2. seed fixes them.
func tailCases(seed int64, iters int) []tailCase {
	r := rand.New(rand.NewSource(seed))
	var cs []tailCase
	for it := 0; it < iters; it++ {
		h := strandingQueue(r, 6+r.Intn(3), 2+r.Intn(2))
		if r.Intn(3) == 0 {
			// Two removals exchange their results: a value may come out
			// before it is put, or out of order.
			var ds []int
			for i, o := range h.Ops {
				if o.F == "deq" {
					ds = append(ds, i)
				}
			}
			if len(ds) >= 2 {
				a, b := ds[r.Intn(len(ds))], ds[r.Intn(len(ds))]
				h.Ops[a].Output, h.Ops[b].Output = h.Ops[b].Output, h.Ops[a].Output
			}
		}
		q := 1 + r.Intn(2)
		if r.Intn(3) == 0 {
			if !unput(h.Ops) {
				cs = append(cs, tailCase{h.Ops, Queue(), q})
			}
			continue
		}
		late := lateDequeues(r, h)
		evs := locEvents(h.Ops)
		fm := newLocFixedModel(Queue(), h.Ops)
		ops := locPrefix(h.Ops, evs, len(evs)-r.Intn(late+len(evs)/3+1))
		if len(ops) > 9 || unput(fm.fixAll(ops)) || emptyAtCut(ops, fm) {
			continue // brute force grows too slow; see unput, emptyAtCut
		}
		cs = append(cs, tailCase{ops, fm, q})
	}
	return cs
}

// unput reports whether a removal returns a value that no op puts: the
// check refutes it at every bound (its spec's values are those put, see
// neverTaken), while quasiOracle's explicit queue may put any value up
// to the largest, at a pending position; such cases test neither rule.
func unput(ops []Op) bool {
	put := map[int64]bool{}
	for _, o := range ops {
		if v, ok := o.Input.Int(); ok && o.F == "enq" {
			put[v] = true
		}
	}
	for _, o := range ops {
		if v, ok := o.Output.Int(); ok && o.F == "deq" && !put[v] {
			return true
		}
	}
	return false
}

// emptyAtCut reports whether an op pending at the cut returned null later:
// the check lets it take effect as an empty removal only, quasiOracle
// (which reads a pending removal without a value as one with any result)
// with any value.
func emptyAtCut(ops []Op, fm *locFixedModel) bool {
	for _, o := range ops {
		if o.Return == Pending && o.F == "deq" && fm.fix(o).Output.IsNil() {
			return true
		}
	}
	return false
}

// tailMismatches checks each case at bound q, every event in one class
// (`--quasi q`), with strandedQueue off so that the search's own rules
// decide, against quasiOracle (brute force over every linearization with
// relax.Admits). It returns the number of checks in which the rules of
// quasitail.go applied, of mismatches, and how often each rule fired
// (pulls refused; states dropped by rules T, F and O).
func tailMismatches(t *testing.T, cs []tailCase) (checks, bad int, fired [4]int64) {
	strandedUpfront = false
	defer func() { strandedUpfront = true }()
	before := [4]int64{tailFiltered.Load(), tailPrunedT.Load(), tailPrunedF.Load(), tailPrunedO.Load()}
	for i, c := range cs {
		cfg, err := relax.ParseConfig(fmt.Sprint(c.q))
		if err != nil {
			t.Fatal(err)
		}
		mc, err := compile(c.m, c.ops, Options{Quasi: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := mc.(*windowMachine); !ok || w.rules() == nil {
			continue
		}
		res, err := CheckOps(context.Background(), c.ops, c.m, Options{Quasi: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict == lts.Unknown {
			t.Fatalf("case %d: %s", i, res.Reason)
		}
		oracle := slices.Clone(c.ops)
		if fm, ok := c.m.(*locFixedModel); ok {
			for k := range oracle {
				if oracle[k].Return == Pending {
					oracle[k] = fm.fix(oracle[k])
					oracle[k].Status = Info
				}
			}
		}
		checks++
		if want := quasiOracle(t, oracle, cfg); (res.Verdict == lts.Valid) != want {
			bad++
			if bad == 1 {
				t.Logf("case %d at q=%d: check %v (%s), brute force %v\n%s", i, c.q, res.Verdict, res.Reason, want, dumpOps(oracle))
			}
		}
	}
	after := [4]int64{tailFiltered.Load(), tailPrunedT.Load(), tailPrunedF.Load(), tailPrunedO.Load()}
	for k := range fired {
		fired[k] = after[k] - before[k]
	}
	return checks, bad, fired
}

// TestQuasiTailAgainstBruteForce: the rules of quasitail.go (the pull
// filter, the stranded tail, the free put still to come, the order of the
// content) keep every verdict of `--quasi q` on queues that lose values,
// whole or cut as Localize cuts them; each fires; and a deliberately wrong
// variant of each (one step too strict) is caught.
func TestQuasiTailAgainstBruteForce(t *testing.T) {
	iters := 1500
	if testing.Short() {
		iters = 500
	}
	cs := tailCases(17, iters)
	checks, bad, fired := tailMismatches(t, cs)
	if bad > 0 {
		t.Fatalf("%d of %d verdicts wrong", bad, checks)
	}
	for k, name := range []string{"pull filter (A)", "tail (T)", "future (F)", "order (O)"} {
		if fired[k] == 0 {
			t.Fatalf("rule %s never fired", name)
		}
	}
	t.Logf("%d checks; pulls refused, states dropped by T, F, O: %v", checks, fired)
	mutants := []struct {
		name string
		set  func(bool)
	}{
		{"tail count one too small", func(on bool) { tailSkew = skew(on) }},
		{"tail places one too few", func(on bool) { posSkew = skew(on) }},
		{"late obligations one too few", func(on bool) { lateSkew = skew(on) }},
		{"far: one op too few between", func(on bool) { farSkew = skew(on) }},
		{"order: one op too few between", func(on bool) { orderSkew = skew(on) }},
		{"pull filter: owed events read one place sooner", func(on bool) { filterMutant = on }},
		{"pull filter: no put pulled for the removal read", func(on bool) { filterMutant2 = on }},
	}
	for _, mu := range mutants {
		mu.set(true)
		_, bad, _ := tailMismatches(t, cs)
		mu.set(false)
		if bad == 0 {
			t.Fatalf("mutant %q went unnoticed", mu.name)
		}
		t.Logf("mutant %q: %d of %d verdicts wrong", mu.name, bad, checks)
	}
}

func skew(on bool) int {
	if on {
		return -1
	}
	return 0
}
