package relax

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// TestWindowVersusMetric checks the facts of SEMANTICS.md §2.3 on random
// specs and traces: window mode accepts a subset of the global metric's
// prefix closure, and the same set for QF <= 1.
func TestWindowVersusMetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	iters := 80
	if testing.Short() {
		iters = 20
	}
	var m mix
	defer m.check(t)
	for it := range iters {
		table := lts.NewEventTable()
		spec := randomSpec(rng, table, propNames, 2+rng.IntN(3))
		qf := rng.IntN(3)
		r := mustNew(t, spec, Config{Mode: Window, All: qf})
		for range 25 {
			tr := offTrace(t, rng, spec, propNames, rng.IntN(8))
			win := accepts(t, r, tr, false)
			metric := metricAdmits(spec, qf, tr, false)
			m.add(t, spec, tr, win)
			if win && !metric {
				t.Fatalf("spec %d, qf %d, trace %q: window accepts, metric rejects", it, qf, names(table, tr))
			}
			if qf <= 1 && win != metric {
				t.Fatalf("spec %d, qf %d, trace %q: window %v, metric %v", it, qf, names(table, tr), win, metric)
			}
		}
	}
}

// TestWindowStrictlySmaller pins witnesses for QF >= 2: a queue holding
// 1..8 dequeued in an order that moves every item by at most QF positions
// (so the global metric accepts it, even completely), but in which no
// prefix of length 1..2QF+1 is a permutation of a prefix of the spec run,
// so no decomposition into windows exists. The displacements are checked
// here by hand, independently of the code under test.
func TestWindowStrictlySmaller(t *testing.T) {
	cases := []struct {
		qf    int
		order []int
	}{
		{2, []int{3, 1, 5, 2, 7, 4, 8, 6}},
		{3, []int{4, 1, 2, 7, 3, 9, 5, 6, 8}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.qf), func(t *testing.T) {
			n := len(c.order)
			// Independent checks of the witness: bounded displacement, and
			// no short closed prefix.
			for i, v := range c.order {
				if abs(v-1-i) > c.qf {
					t.Fatalf("witness moves %d by %d", v, abs(v-1-i))
				}
			}
			for k := 1; k <= 2*c.qf+1; k++ {
				closed := true
				for _, v := range c.order[:k] {
					if v > k {
						closed = false
					}
				}
				if closed {
					t.Fatalf("witness has a closed prefix of length %d", k)
				}
			}
			table := lts.NewEventTable()
			preload := make([]int, n)
			for i := range preload {
				preload[i] = i + 1
			}
			spec := queueSpec(table, 0, n, preload...) // drain only
			var text string
			for _, v := range c.order {
				text += fmt.Sprintf("deq%d ", v)
			}
			tr := trace(table, text)
			if !metricAdmits(spec, c.qf, tr, true) {
				t.Fatalf("global metric rejects the witness")
			}
			win := mustNew(t, spec, Config{Mode: Window, All: c.qf})
			if accepts(t, win, tr, false) {
				t.Errorf("window mode accepts %q", text)
			}
			if ok, _ := Admits(spec, win.Config(), tr); ok {
				t.Errorf("window Admits accepts %q", text)
			}
			ex := mustNew(t, spec, Config{All: c.qf, Complete: true})
			if !accepts(t, ex, tr, true) {
				t.Errorf("exact mode rejects %q", text)
			}
		})
	}
}

// TestAlgorithm4Inclusive pins the reading of Algorithm 4: the cost range is
// inclusive and the last event is checked too. With QF = 1 on a queue
// holding 1,2,3, "deq2 deq1 deq3" moves events by exactly QF (strict range
// would reject it), and "deq1 deq3 deq2" moves the window's last event
// (skipping it would let "deq2 deq3 deq1", which moves 1 by 2, through).
func TestAlgorithm4Inclusive(t *testing.T) {
	table := lts.NewEventTable()
	spec := queueSpec(table, 3, 3, 1, 2, 3)
	r := mustNew(t, spec, Config{Mode: Window, All: 1})
	for _, c := range []struct {
		text string
		want bool
	}{
		{"deq2 deq1 deq3", true},
		{"deq1 deq3 deq2", true},
		{"deq2 deq3 deq1", false},
	} {
		if got := accepts(t, r, trace(table, c.text), false); got != c.want {
			t.Errorf("%s: got %v, want %v", c.text, got, c.want)
		}
	}
	// The permutations of one window: 3 for length 3 and QF 1.
	if got := len(boundedPerms(3, 1, 0)); got != 3 {
		t.Errorf("boundedPerms(3, 1) = %d permutations, want 3 (123, 132, 213)", got)
	}
}
