package relax

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
)

// Window mode reads windows lazily and drops subsumed states from sets
// (Reduce). These tests compare it with the eager construction of
// Algorithms 2-4 (eagerWindow: every path, every bounded permutation, a
// chain of pseudo-states each) on whole languages, with the independent
// Admits on random traces, and check Subsumes and Reduce against their
// definitions by brute force.

// windowConfigs are the configurations the tests try at factor qf: every
// event moves; only p moves; every event moves and p.0 is a barrier.
func windowConfigs(qf int) []Config {
	return []Config{
		{Mode: Window, All: qf},
		{Mode: Window, Classes: []Class{{Patterns: []lts.Pattern{lts.ParsePattern("p")}, Bound: qf}}},
		{Mode: Window, All: qf, Barriers: []lts.Pattern{lts.ParsePattern("p.0")}},
	}
}

// branchySpec is randomSpec with at most out edges per state (the eager
// oracle enumerates out^(2QF+1) paths per state).
func branchySpec(rng *rand.Rand, table *lts.EventTable, states, out int) *lts.Explicit {
	return randomSpecOut(rng, table, propNames, states, out, 8)
}

// step is the set of states reached from set by e, reduced when a is the
// lazy automaton (as the refinement search does).
func stepSet(t testing.TB, a lts.Automaton, set []lts.State, e lts.Event) []lts.State {
	t.Helper()
	var out []lts.State
	for _, s := range set {
		var err error
		if out, err = a.Step(s, e, out); err != nil {
			t.Fatal(err)
		}
	}
	out = dedupStates(out, 0)
	if r, ok := a.(*Relaxed); ok {
		out = r.Reduce(out)
	}
	return out
}

// sameLanguage explores the pairs (set of lazy states, set of eager
// states) reached by the same traces, breadth first, and reports the
// first trace that one accepts and the other does not (nil: none among
// the pairs explored), and how many pairs it explored (at most limit).
func sameLanguage(t testing.TB, r *Relaxed, x lts.Automaton, limit int) ([]lts.Event, int) {
	t.Helper()
	var events []lts.Event
	for e := 1; e < r.Events().Len(); e++ {
		events = append(events, lts.Event(e))
	}
	type node struct {
		a, b  []lts.State
		trace []lts.Event
	}
	seen := map[string]bool{}
	queue := []node{{r.Start(nil), x.Start(nil), nil}}
	n := 0
	for len(queue) > 0 && n < limit {
		cur := queue[0]
		queue = queue[1:]
		key := fmt.Sprint(cur.a, cur.b)
		if seen[key] {
			continue
		}
		seen[key] = true
		n++
		for _, e := range events {
			na, nb := stepSet(t, r, cur.a, e), stepSet(t, x, cur.b, e)
			tr := append(slices.Clone(cur.trace), e)
			if (len(na) == 0) != (len(nb) == 0) {
				return tr, n
			}
			if len(na) > 0 {
				queue = append(queue, node{na, nb, tr})
			}
		}
	}
	return nil, n
}

// TestWindowLazyEqualsEager: on random small specs, QF 1..3 and the three
// kinds of configuration, the lazy automaton (with Reduce) and the eager
// construction accept the same traces, compared on every pair of state
// sets reachable by a common trace (up to a bound).
func TestWindowLazyEqualsEager(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	iters := 60
	if testing.Short() {
		iters = 15
	}
	pairs, full := 0, 0
	for it := range iters {
		qf := 1 + it%3
		table := lts.NewEventTable()
		out := 3
		if qf == 3 {
			out = 2
		}
		spec := branchySpec(rng, table, 2+rng.IntN(3), out)
		for _, cfg := range windowConfigs(qf) {
			r := mustNew(t, spec, cfg)
			x := newEagerWindow(spec, cfg)
			bad, n := sameLanguage(t, r, x, 1500)
			if bad != nil {
				t.Fatalf("spec %d, %s: lazy and eager disagree on %q\n%v", it, cfg, names(table, bad), spec.Edges)
			}
			pairs += n
			if n < 1500 {
				full++
			}
		}
	}
	t.Logf("%d pairs of state sets compared; %d of %d languages compared completely", pairs, full, 3*iters)
	if full < iters {
		t.Errorf("only %d languages compared completely", full)
	}
}

// TestWindowAdmitsQF3 compares window mode with Admits (the brute-force
// decomposition into permuted windows) on random traces at QF 3, and at
// QF 1..3 with longer traces than TestWindowAdmits.
func TestWindowAdmitsQF3(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	var m mix
	defer m.check(t)
	iters := 60
	if testing.Short() {
		iters = 15
	}
	for it := range iters {
		qf := 3
		if it%2 == 1 {
			qf = 1 + rng.IntN(2)
		}
		table := lts.NewEventTable()
		spec := randomSpec(rng, table, propNames, 2+rng.IntN(4))
		cfgs := windowConfigs(qf)
		cfg := cfgs[rng.IntN(len(cfgs))]
		r := mustNew(t, spec, cfg)
		for range 25 {
			tr := offTrace(t, rng, spec, propNames, rng.IntN(12))
			want, err := Admits(spec, cfg, tr)
			if err != nil {
				t.Fatal(err)
			}
			m.add(t, spec, tr, want)
			if got := accepts(t, r, tr, false); got != want {
				t.Fatalf("spec %d, %s, trace %q: automaton %v, Admits %v\n%v", it, cfg, names(table, tr), got, want, spec.Edges)
			}
		}
	}
}

// reachableStates lists the states of r reachable from its start, breadth
// first, at most limit.
func reachableStates(t testing.TB, r *Relaxed, limit int) []lts.State {
	t.Helper()
	seen := map[lts.State]bool{}
	queue := r.Start(nil)
	for _, s := range queue {
		seen[s] = true
	}
	for i := 0; i < len(queue) && len(queue) < limit; i++ {
		evs, err := r.Enabled(queue[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			ts, err := r.Step(queue[i], e, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range ts {
				if !seen[s] {
					seen[s] = true
					queue = append(queue, s)
				}
			}
		}
	}
	return queue
}

// tracesFrom lists the traces of length at most depth accepted from
// state s (a set simulation with no reduction).
func tracesFrom(t testing.TB, r *Relaxed, s lts.State, events []lts.Event, depth int) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	var walk func(set []lts.State, tr []lts.Event)
	walk = func(set []lts.State, tr []lts.Event) {
		out[fmt.Sprint(tr)] = true
		if len(tr) == depth {
			return
		}
		for _, e := range events {
			var next []lts.State
			for _, u := range set {
				var err error
				if next, err = r.Step(u, e, next); err != nil {
					t.Fatal(err)
				}
			}
			if next = dedupStates(next, 0); len(next) > 0 {
				walk(next, append(tr, e))
			}
		}
	}
	walk([]lts.State{s}, nil)
	return out
}

// TestSubsumesSound: whenever Subsumes(a, b), every trace from b (up to a
// length) is a trace from a, on random specs; the cases where a is a spec
// state or has fewer pending events than b (a with a word pulled) are
// counted apart, so that the test sees them.
func TestSubsumesSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	iters := 40
	if testing.Short() {
		iters = 10
	}
	same, pulled := 0, 0
	for it := range iters {
		qf := 1 + it%3
		table := lts.NewEventTable()
		spec := randomSpec(rng, table, propNames, 2+rng.IntN(3))
		var events []lts.Event
		for e := 1; e < table.Len(); e++ {
			events = append(events, lts.Event(e))
		}
		for _, cfg := range windowConfigs(qf) {
			r := mustNew(t, spec, cfg)
			states := reachableStates(t, r, 150)
			traces := map[lts.State]map[string]bool{}
			from := func(s lts.State) map[string]bool {
				if traces[s] == nil {
					traces[s] = tracesFrom(t, r, s, events, 4)
				}
				return traces[s]
			}
			for _, a := range states {
				for _, b := range states {
					if a == b || !r.Subsumes(a, b) {
						continue
					}
					if r.summary(a).shape == 0 || r.summary(a).shape != r.summary(b).shape {
						pulled++
					} else {
						same++
					}
					ta := from(a)
					for tr := range from(b) {
						if !ta[tr] {
							t.Fatalf("spec %d, %s: %s subsumes %s, but only the latter accepts %s\n%v",
								it, cfg, r.Describe(a), r.Describe(b), tr, spec.Edges)
						}
					}
				}
			}
		}
	}
	t.Logf("subsumption checked on %d pairs of the same shape, %d with a word pulled", same, pulled)
	if same < 50 || pulled < 50 {
		t.Errorf("too few subsumptions checked: %d same shape, %d pulled", same, pulled)
	}
}

// TestReduceMaximal: Reduce keeps exactly the states of a set that no
// other state of it subsumes (the pairwise definition), in order.
func TestReduceMaximal(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	dropped := 0
	for it := range 40 {
		qf := 1 + it%3
		table := lts.NewEventTable()
		spec := randomSpec(rng, table, propNames, 2+rng.IntN(3))
		for _, cfg := range windowConfigs(qf) {
			r := mustNew(t, spec, cfg)
			states := reachableStates(t, r, 200)
			for range 20 {
				var set []lts.State
				for _, s := range states {
					if rng.IntN(3) == 0 {
						set = append(set, s)
					}
				}
				set = dedupStates(set, 0)
				var want []lts.State
				for _, b := range set {
					if !slices.ContainsFunc(set, func(a lts.State) bool { return a != b && r.Subsumes(a, b) }) {
						want = append(want, b)
					}
				}
				got := r.Reduce(slices.Clone(set))
				if !slices.Equal(got, want) {
					t.Fatalf("spec %d, %s: Reduce(%v) = %v, want %v", it, cfg, set, got, want)
				}
				dropped += len(set) - len(want)
			}
		}
	}
	if dropped < 100 {
		t.Errorf("only %d states dropped in all: the sets are too easy", dropped)
	}
}

// plainAutomaton hides Reduce and Covers: the refinement search then sees
// the relaxed automaton as a plain NFA.
type plainAutomaton struct{ r *Relaxed }

func (p plainAutomaton) Events() *lts.EventTable           { return p.r.Events() }
func (p plainAutomaton) Start(buf []lts.State) []lts.State { return p.r.Start(buf) }
func (p plainAutomaton) Step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	return p.r.Step(s, e, buf)
}
func (p plainAutomaton) Enabled(s lts.State, buf []lts.Event) ([]lts.Event, error) {
	return p.r.Enabled(s, buf)
}

// traceGraph builds an implementation from n random traces of at most
// length events (spec runs with nearby events swapped, sometimes one
// replaced: mostly within the relaxation, sometimes not): the i-th event
// of a trace leads to a state of depth i+1, often one that another trace
// reached already (so that states are reached by several traces, with
// different sets of relaxed states), with tau steps here and there and
// some ends looping back to the start.
func traceGraph(rng *rand.Rand, spec *lts.Explicit, n, length int) *lts.Explicit {
	impl := lts.NewExplicit(spec.Table)
	impl.AddState()
	depth := [][]lts.State{{impl.Init}}
	for range n {
		tr := randomTrace(rng, spec, propNames, 1+rng.IntN(length))
		s := impl.Init
		for i, e := range tr {
			if rng.IntN(8) == 0 {
				t := impl.AddState()
				impl.Add(s, "tau", t)
				s = t
			}
			if len(depth) == i+1 {
				depth = append(depth, nil)
			}
			var next lts.State
			if len(depth[i+1]) > 0 && rng.IntN(2) == 0 {
				next = depth[i+1][rng.IntN(len(depth[i+1]))]
			} else {
				next = impl.AddState()
				depth[i+1] = append(depth[i+1], next)
			}
			impl.Add(s, spec.Table.Name(e), next)
			s = next
		}
		if rng.IntN(3) == 0 {
			impl.Add(s, "tau", impl.Init)
		}
	}
	return impl
}

// TestWindowRefineOracle: refinement checks against the lazy automaton
// (which the search reduces: Reducer, Coverer), against the same automaton
// seen as a plain NFA, and against the eager construction give the same
// verdict and counterexamples of the same length, on random (cyclic, with
// tau) implementations; with 1, 2 and 4 workers the counterexample is the
// same.
func TestWindowRefineOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	iters := 60
	if testing.Short() {
		iters = 15
	}
	verdicts := map[lts.Verdict]int{}
	for it := range iters {
		qf := 1 + it%3
		table := lts.NewEventTable()
		out := 3
		if qf == 3 {
			out = 2
		}
		spec := branchySpec(rng, table, 2+rng.IntN(3), out)
		impl := traceGraph(rng, spec, 4+rng.IntN(6), 12)
		for _, cfg := range windowConfigs(qf) {
			check := func(spec lts.Automaton, workers int) *refine.Result {
				res, err := refine.Check(context.Background(), impl, spec, refine.Options{Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			r := mustNew(t, spec, cfg)
			got := check(r, 1)
			plain := check(plainAutomaton{mustNew(t, spec, cfg)}, 1)
			eager := check(newEagerWindow(spec, cfg), 1)
			verdicts[got.Verdict]++
			for _, other := range []*refine.Result{plain, eager} {
				if got.Verdict != other.Verdict {
					t.Fatalf("impl %d, %s: verdict %v, plain NFA or eager: %v", it, cfg, got.Verdict, other.Verdict)
				}
				if got.Verdict == lts.Invalid && len(got.Counterexample.Trace) != len(other.Counterexample.Trace) {
					t.Fatalf("impl %d, %s: counterexample %v, plain NFA or eager: %v", it, cfg, got.Counterexample.Trace, other.Counterexample.Trace)
				}
			}
			for _, w := range []int{2, 4} {
				par := check(mustNew(t, spec, cfg), w)
				if par.Verdict != got.Verdict || !reflect.DeepEqual(par.Counterexample, got.Counterexample) {
					t.Fatalf("impl %d, %s: %d workers give %v %v, one gives %v %v", it, cfg, w, par.Verdict, par.Counterexample, got.Verdict, got.Counterexample)
				}
			}
		}
	}
	if verdicts[lts.Valid] < 10 || verdicts[lts.Invalid] < 10 {
		t.Errorf("random inputs too one-sided: %v", verdicts)
	}
}

// TestCoversDefinition: Covers(a, b) holds exactly when every state of a
// is in b or subsumed by a state of b (Subsumes, checked against the
// languages by TestSubsumesSound).
func TestCoversDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	covered, nontrivial := 0, 0
	for it := range 40 {
		qf := 1 + it%3
		table := lts.NewEventTable()
		spec := randomSpec(rng, table, propNames, 2+rng.IntN(3))
		for _, cfg := range windowConfigs(qf) {
			r := mustNew(t, spec, cfg)
			states := reachableStates(t, r, 200)
			for range 60 {
				// b: about half the states; a: one to three states.
				var a, b []lts.State
				for _, s := range states {
					if rng.IntN(2) == 0 {
						b = append(b, s)
					}
				}
				for range 1 + rng.IntN(3) {
					a = append(a, states[rng.IntN(len(states))])
				}
				a, b = dedupStates(a, 0), dedupStates(b, 0)
				want := true
				subset := true
				for _, x := range a {
					if slices.Contains(b, x) {
						continue
					}
					subset = false
					if !slices.ContainsFunc(b, func(y lts.State) bool { return r.Subsumes(y, x) }) {
						want = false
					}
				}
				if got := r.Covers(a, b); got != want {
					t.Fatalf("spec %d, %s: Covers(%v, %v) = %v, want %v", it, cfg, a, b, got, want)
				}
				if want {
					covered++
					if !subset {
						nontrivial++
					}
				}
			}
		}
	}
	if nontrivial < 50 {
		t.Errorf("only %d covers beyond subsets (%d in all)", nontrivial, covered)
	}
}
