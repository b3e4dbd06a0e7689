package sched

import (
	"testing"

	"github.com/quasar-verify/quasar/history/stress"
)

// stepper performs f's argument many Yield steps and returns nothing.
type stepper struct{}

func (stepper) Do(_ string, arg any) any {
	for range arg.(int) {
		Yield()
	}
	return nil
}

// steps is a test of n threads, each one call of k steps.
func steps(n, k int) stress.Test {
	t := make(stress.Test, n)
	for g := range t {
		t[g] = []stress.Call{{F: "s", Arg: k}}
	}
	return t
}

func binom(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// twoThreads is the number of interleavings of two threads of k steps
// each with at most c preemptions, derived by hand: an interleaving is a
// word of k a's and k b's; with r maximal runs it has r-1 context
// switches, and exactly one of them is not a preemption (the switch after
// the last run of the thread that finishes first: that thread cannot
// continue), so it has r-2 preemptions. Words with r = 2m runs: choose the
// first letter (2 ways) and split each letter's k copies into m non-empty
// runs, C(k-1, m-1) ways each: 2·C(k-1,m-1)². With r = 2m+1 runs the first
// letter has m+1 runs and the other m: 2·C(k-1,m)·C(k-1,m-1). Hence
// bound 0: 2; bound 1: 2 + 2(k-1) = 2k; bound 2: 2k + 2(k-1)²; and the
// sum over all r is C(2k, k).
func twoThreads(k, c int) int {
	n := 0
	for r := 2; r <= c+2 && r <= 2*k; r++ {
		m := r / 2
		if r%2 == 0 {
			n += 2 * binom(k-1, m-1) * binom(k-1, m-1)
		} else {
			n += 2 * binom(k-1, m) * binom(k-1, m-1)
		}
	}
	return n
}

func explore(t *testing.T, cfg Config, test stress.Test) *Result {
	t.Helper()
	cfg.New = func() stress.Object { return stepper{} }
	cfg.Model = nopModel{}
	res, err := Explore(cfg, test)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatal(res.Failure.Report())
	}
	return res
}

func TestCountTwoThreads(t *testing.T) {
	for k := 1; k <= 4; k++ {
		// Hand values: bound 0 → 2, bound 1 → 2k, bound 2 → 2k+2(k-1)².
		hand := map[int]int{0: 2, 1: 2 * k, 2: 2*k + 2*(k-1)*(k-1)}
		for c := 0; c <= 2; c++ {
			want := min(hand[c], binom(2*k, k))
			if f := twoThreads(k, c); f != want {
				t.Fatalf("formula k=%d c=%d: %d, hand %d", k, c, f, want)
			}
			res := explore(t, Config{Bound: c}, steps(2, k))
			if res.Stats.Complete != want || res.Stats.Interleavings != want {
				t.Errorf("k=%d bound %d: %d executions, %d distinct; want %d", k, c, res.Stats.Complete, res.Stats.Interleavings, want)
			}
		}
		want := binom(2*k, k)
		res := explore(t, Config{Bound: Unbounded}, steps(2, k))
		if res.Stats.Complete != want || res.Stats.Interleavings != want {
			t.Errorf("k=%d unbounded: %d executions, %d distinct; want C(%d,%d) = %d", k, res.Stats.Complete, res.Stats.Interleavings, 2*k, k, want)
		}
		// Iterative bounding to a bound at least the maximum possible
		// (2k-2 preemptions) explores each schedule exactly once too.
		res = explore(t, Config{Bound: 2 * k}, steps(2, k))
		if res.Stats.Complete != want || !res.Stats.Exhausted || res.Stats.Bound != 2*k-2 {
			t.Errorf("k=%d bound %d: %d executions (exhausted %v at bound %d); want %d at bound %d", k, 2*k, res.Stats.Complete, res.Stats.Exhausted, res.Stats.Bound, want, 2*k-2)
		}
	}
}

// TestCountThreeThreads: 3 threads of k steps have the multinomial
// (3k)!/(k!)³ interleavings: 6, 90, 1680 for k = 1, 2, 3; at bound 0 each
// thread runs to its end once started, so there are 3! = 6.
func TestCountThreeThreads(t *testing.T) {
	for k, want := range map[int]int{1: 6, 2: 90, 3: 1680} {
		res := explore(t, Config{Bound: Unbounded}, steps(3, k))
		if res.Stats.Complete != want || res.Stats.Interleavings != want {
			t.Errorf("k=%d: %d executions, %d distinct; want %d", k, res.Stats.Complete, res.Stats.Interleavings, want)
		}
		res = explore(t, Config{Bound: 0}, steps(3, k))
		if res.Stats.Complete != 6 {
			t.Errorf("k=%d bound 0: %d executions; want 3! = 6", k, res.Stats.Complete)
		}
	}
}
