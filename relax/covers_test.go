package relax

import (
	"math/rand/v2"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// TestCoversIncludesTraces: on random specs and exact-mode configurations,
// for every pair of reachable states a, b with CoversSlack(a, b), every trace of
// b of up to 6 events is a trace of a (a set simulation of a against every
// path of b); and the hand mutant that reads CoversSlack the wrong way round
// (the smaller slacks cover the larger) fails this on some pair.
func TestCoversIncludesTraces(t *testing.T) {
	pairs, bad, first := coversAgainstTraces(t)
	t.Logf("%d covering pairs", pairs)
	if bad > 0 {
		t.Fatal(first)
	}
	if pairs < 50 {
		t.Errorf("only %d covering pairs: the test proves little", pairs)
	}
	coversMutant = true
	defer func() { coversMutant = false }()
	pairs, bad, _ = coversAgainstTraces(t)
	t.Logf("reversed CoversSlack: %d of %d pairs lack traces", bad, pairs)
	if bad == 0 {
		t.Errorf("the reversed CoversSlack went unnoticed (%d pairs)", pairs)
	}
}

// coversAgainstTraces checks CoversSlack on random relaxations; it returns the
// number of covering pairs, of those whose traces are not included, and
// the first of those.
func coversAgainstTraces(t *testing.T) (pairs, bad int, first string) {
	rng := rand.New(rand.NewPCG(5, 9))
	specs := 120
	if testing.Short() {
		specs = 30
	}
	for range specs {
		table := lts.NewEventTable()
		spec := randomSpec(rng, table, propNames, 2+rng.IntN(3))
		cfg := randomConfig(rng)
		cfg.Complete = false
		r := mustNew(t, spec, cfg)
		states := reachableRelaxed(t, r, 150)
		for _, a := range states {
			for _, b := range states {
				if !r.CoversSlack(a, b) {
					continue
				}
				pairs++
				if !includesTraces(t, r, []lts.State{a}, b, 6) {
					if bad++; bad == 1 {
						first = r.Describe(a) + " does not have every trace of " + r.Describe(b)
					}
				}
			}
		}
	}
	return pairs, bad, first
}

// reachableRelaxed lists the first n states of r in breadth-first order.
func reachableRelaxed(t *testing.T, r *Relaxed, n int) []lts.State {
	seen := map[lts.State]bool{}
	var out []lts.State
	queue := r.Start(nil)
	for len(queue) > 0 && len(out) < n {
		s := queue[0]
		queue = queue[1:]
		if seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
		en, err := r.Enabled(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range en {
			next, err := r.Step(s, e, nil)
			if err != nil {
				t.Fatal(err)
			}
			queue = append(queue, next...)
		}
	}
	return out
}

// includesTraces reports whether every trace of b of up to k events is a
// trace of some state of as.
func includesTraces(t *testing.T, r *Relaxed, as []lts.State, b lts.State, k int) bool {
	if k == 0 {
		return true
	}
	en, err := r.Enabled(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range en {
		var next []lts.State
		for _, a := range as {
			if next, err = r.Step(a, e, next); err != nil {
				t.Fatal(err)
			}
		}
		if len(next) == 0 {
			return false
		}
		bs, err := r.Step(b, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, b2 := range bs {
			if !includesTraces(t, r, next, b2, k-1) {
				return false
			}
		}
	}
	return true
}
