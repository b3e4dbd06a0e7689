package relax_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
	"github.com/quasar-verify/quasar/relax"
)

var names = []string{"p.1", "p.2", "q.1", "r", "p.0"}

// randomGraph builds a random explicit graph; with taus, some edges are tau.
func randomGraph(rng *rand.Rand, table *lts.EventTable, states int, taus bool) *lts.Explicit {
	x := lts.NewExplicit(table)
	for s := 0; s < states; s++ {
		for range rng.IntN(3) + 1 {
			name := names[rng.IntN(len(names))]
			if taus && rng.IntN(5) == 0 {
				name = "tau"
			}
			x.Add(lts.State(s), name, lts.State(rng.IntN(states)))
		}
	}
	return x
}

// TestZeroFactorIsRefines: quasi factor 0, in either mode, gives exactly
// the verdicts of plain refines, and the same search: the same number of
// product pairs and spec macrostates.
func TestZeroFactorIsRefines(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	cfgs := []string{"0", "0 on {p} barrier {p.0}", "{p: 0, q: 0}", "0 window", "0 on {p} window"}
	verdicts := map[lts.Verdict]int{}
	for it := range 60 {
		table := lts.NewEventTable()
		spec := randomGraph(rng, table, 2+rng.IntN(4), false)
		impl := randomGraph(rng, table, 2+rng.IntN(5), true)
		plain, err := refine.Check(context.Background(), impl, spec, refine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		verdicts[plain.Verdict]++
		for _, text := range cfgs {
			cfg, err := relax.ParseConfig(text)
			if err != nil {
				t.Fatal(err)
			}
			r, err := relax.New(spec, cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := refine.Check(context.Background(), impl, r, refine.Options{})
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != plain.Verdict {
				t.Fatalf("graph %d, quasi %s: %v, refines: %v", it, text, res.Verdict, plain.Verdict)
			}
			if res.Stats.Pairs != plain.Stats.Pairs || res.Stats.Macrostates != plain.Stats.Macrostates {
				t.Errorf("graph %d, quasi %s: %d pairs / %d macrostates, refines: %d / %d", it, text,
					res.Stats.Pairs, res.Stats.Macrostates, plain.Stats.Pairs, plain.Stats.Macrostates)
			}
		}
	}
	if verdicts[lts.Valid] == 0 || verdicts[lts.Invalid] == 0 {
		t.Errorf("random graphs too one-sided: %v", verdicts)
	}
}

// TestRefineAgainstAdmits: a quasi refinement check with a relaxed spec is
// valid iff every trace of the (acyclic) implementation is admitted by the
// independent re-validator; an invalid one's counterexample t·e has t
// admitted and t·e not.
func TestRefineAgainstAdmits(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	cfgs := []string{"1", "2", "1 on {p} barrier {p.0}", "{p: 1, q: 2}", "1 window", "2 window"}
	verdicts := map[lts.Verdict]int{}
	for it := range 40 {
		table := lts.NewEventTable()
		spec := randomGraph(rng, table, 2+rng.IntN(3), false)
		impl := randomDAG(rng, table, 6)
		traces := allTraces(impl)
		for _, text := range cfgs {
			cfg, _ := relax.ParseConfig(text)
			r, err := relax.New(spec, cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := refine.Check(context.Background(), impl, r, refine.Options{})
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			verdicts[res.Verdict]++
			all := true
			for _, tr := range traces {
				ok, err := relax.Admits(spec, cfg, tr)
				if err != nil {
					t.Fatal(err)
				}
				all = all && ok
			}
			if (res.Verdict == lts.Valid) != all {
				t.Fatalf("dag %d, quasi %s: refine %v, every trace admitted: %v", it, text, res.Verdict, all)
			}
			if res.Verdict == lts.Invalid {
				var tr []lts.Event
				for _, n := range res.Counterexample.Trace {
					tr = append(tr, table.InternName(n))
				}
				okT, _ := relax.Admits(spec, cfg, tr[:len(tr)-1])
				okTE, _ := relax.Admits(spec, cfg, tr)
				if !okT || okTE {
					t.Errorf("dag %d, quasi %s: counterexample %v: prefix admitted %v, whole admitted %v", it, text, res.Counterexample.Trace, okT, okTE)
				}
			}
		}
	}
	if verdicts[lts.Valid] == 0 || verdicts[lts.Invalid] == 0 {
		t.Errorf("random inputs too one-sided: %v", verdicts)
	}
}

// randomDAG builds an acyclic implementation (edges go to higher states).
func randomDAG(rng *rand.Rand, table *lts.EventTable, states int) *lts.Explicit {
	x := lts.NewExplicit(table)
	for s := 0; s < states-1; s++ {
		for range rng.IntN(2) + 1 {
			name := names[rng.IntN(len(names))]
			if rng.IntN(6) == 0 {
				name = "tau"
			}
			x.Add(lts.State(s), name, lts.State(s+1+rng.IntN(states-1-s)))
		}
	}
	for len(x.Edges) < states {
		x.AddState()
	}
	return x
}

// allTraces lists the traces of all paths of an acyclic graph from its
// initial state.
func allTraces(x *lts.Explicit) [][]lts.Event {
	var out [][]lts.Event
	var walk func(s lts.State, tr []lts.Event)
	walk = func(s lts.State, tr []lts.Event) {
		out = append(out, append([]lts.Event(nil), tr...))
		for _, e := range x.Edges[s] {
			if e.Event == lts.Tau {
				walk(e.Target, tr)
			} else {
				walk(e.Target, append(tr, e.Event))
			}
		}
	}
	walk(x.Init, nil)
	return out
}
