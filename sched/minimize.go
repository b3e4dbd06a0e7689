package sched

import (
	"slices"

	"github.com/quasar-verify/quasar/history/stress"
)

// minimizeBudget caps the executions of each search of the minimisation.
const minimizeBudget = 20_000

// minimize shrinks f: first the fewest preemptions (a bounded DFS of the
// same test below f's count: iterative bounding finds the least), then
// the fewest calls (drop one call, re-search at f's bound, keep the drop
// if it still fails, until no call can go). The result is replayed from
// its printed schedule to re-check it; if the replay does not reproduce
// it, the failure as found is returned.
func minimize(cfg *Config, test stress.Test, f *Failure) (*Failure, int) {
	execs := 0
	search := func(t stress.Test, bound int) *Failure {
		c := *cfg
		c.Strategy, c.Bound, c.SleepSets, c.Executions = DFS, bound, false, minimizeBudget
		s, err := newSearcher(&c, t)
		if err != nil || s.failure != nil {
			return nil
		}
		g := s.dfsSearch(bound)
		execs += s.stats.Executions
		if g == nil || g.Kind != f.Kind {
			return nil
		}
		return g
	}
	best := f
	if f.Kind == "nondeterministic" && f.History == nil {
		return f, 0
	}
	if f.Preemptions > 0 {
		if g := search(test, f.Preemptions-1); g != nil {
			best = g
		}
	}
	keep := make([][]int, len(test))
	for g := range test {
		for i := range test[g] {
			keep[g] = append(keep[g], i)
		}
	}
	cur := test
	for changed := true; changed; {
		changed = false
		for g := range cur {
			for i := len(cur[g]) - 1; i >= 0; i-- {
				sub := dropCall(cur, g, i)
				if f.Kind == "deadlock" && !canFinish(cfg, sub) {
					continue // the sub-test deadlocks in every serial run: not a bug of the object
				}
				if g2 := search(sub, best.Preemptions); g2 != nil {
					cur, best, changed = sub, g2, true
					keep[g] = slices.Delete(slices.Clone(keep[g]), i, i+1)
				}
			}
		}
	}
	if total(cur) < total(test) {
		best.Schedule.Keep = keep
	}
	best.Test = cur
	if !reproduces(cfg, test, best) {
		return f, execs
	}
	return best, execs
}

func dropCall(t stress.Test, g, i int) stress.Test {
	sub := make(stress.Test, len(t))
	copy(sub, t)
	sub[g] = slices.Delete(slices.Clone(t[g]), i, i+1)
	return sub
}

func total(t stress.Test) int {
	n := 0
	for _, c := range t {
		n += len(c)
	}
	return n
}

// reproduces replays f's schedule on test and reports whether it fails
// the same way.
func reproduces(cfg *Config, test stress.Test, f *Failure) bool {
	res, err := Replay(*cfg, test, f.Schedule.String())
	return err == nil && res.Failure != nil && res.Failure.Kind == f.Kind
}

// canFinish reports whether some serial execution (bound 0) of test ends
// with every call returned. A deadlock is a bug only if the test can
// finish: a sub-test that cannot (a dequeue left without its enqueue)
// blocks in a correct object too, so minimisation does not reduce to it.
func canFinish(cfg *Config, test stress.Test) bool {
	d := newDFS(item{}, true, false)
	for range minimizeBudget {
		if out := execute(cfg.New, test, d, cfg.MaxSteps); out.kind == oComplete {
			return true
		}
		if !d.backtrack() {
			return false
		}
	}
	return false
}
