package refine

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// randomGraph builds an Explicit with n states over the named events; each
// state gets up to maxOut edges, an edge being tau with probability pTau.
func randomGraph(r *rand.Rand, tab *lts.EventTable, n, maxOut int, events []string, pTau float64) *lts.Explicit {
	x := lts.NewExplicit(tab)
	for x.NumStates() < n {
		x.AddState()
	}
	for s := 0; s < n; s++ {
		for k := r.IntN(maxOut + 1); k > 0; k-- {
			ev := events[r.IntN(len(events))]
			if r.Float64() < pTau {
				ev = "tau"
			}
			x.Add(lts.State(s), ev, lts.State(r.IntN(n)))
		}
	}
	return x
}

// oracle decides trace inclusion for explicit graphs independently of the
// package: a breadth-first enumeration of the traces of impl, each carried
// with the set of impl states and the set of spec states it leads to
// (tau-closed), up to maxLen events. Traces that lead to an already seen
// pair of sets are not extended again (their extensions are those of the
// earlier, no longer trace), so the enumeration covers every length up to
// maxLen. It returns the length of a shortest violating trace, or -1.
func oracle(impl, spec *lts.Explicit, events []lts.Event, maxLen int) int {
	type sets struct{ i, s []lts.State }
	start := sets{closure(impl, []lts.State{impl.Init}), closure(spec, []lts.State{spec.Init})}
	key := func(p sets) string {
		b := make([]byte, 0, 2*(len(p.i)+len(p.s))+1)
		for _, x := range p.i {
			b = binary.AppendUvarint(b, uint64(x)+1)
		}
		b = append(b, 0)
		for _, x := range p.s {
			b = binary.AppendUvarint(b, uint64(x)+1)
		}
		return string(b)
	}
	seen := map[string]bool{key(start): true}
	level := []sets{start}
	for n := 1; n <= maxLen && len(level) > 0; n++ {
		var next []sets
		for _, p := range level {
			for _, e := range events {
				i := post(impl, p.i, e)
				if len(i) == 0 {
					continue // not a trace of impl
				}
				s := post(spec, p.s, e)
				if len(s) == 0 {
					return n
				}
				q := sets{i, s}
				if k := key(q); !seen[k] {
					seen[k] = true
					next = append(next, q)
				}
			}
		}
		level = next
	}
	return -1
}

// violates reports whether trace (t·e) is a violation: a trace of impl
// whose prefix t the spec accepts and whose whole the spec rejects.
func violates(impl, spec *lts.Explicit, trace []lts.Event) bool {
	i, s := closure(impl, []lts.State{impl.Init}), closure(spec, []lts.State{spec.Init})
	for k, e := range trace {
		i, s = post(impl, i, e), post(spec, s, e)
		if len(i) == 0 || (len(s) == 0) != (k == len(trace)-1) {
			return false
		}
	}
	return true
}

// closure is the sorted set of states reachable from set by tau edges.
func closure(x *lts.Explicit, set []lts.State) []lts.State {
	in := map[lts.State]bool{}
	var out []lts.State
	var visit func(s lts.State)
	visit = func(s lts.State) {
		if in[s] {
			return
		}
		in[s] = true
		out = append(out, s)
		for _, t := range x.Edges[s] {
			if t.Event == lts.Tau {
				visit(t.Target)
			}
		}
	}
	for _, s := range set {
		visit(s)
	}
	slices.Sort(out)
	return out
}

// post is the tau closure of the e-successors of set.
func post(x *lts.Explicit, set []lts.State, e lts.Event) []lts.State {
	var out []lts.State
	for _, s := range set {
		for _, t := range x.Edges[s] {
			if t.Event == e {
				out = append(out, t.Target)
			}
		}
	}
	return closure(x, out)
}

func TestRandomAgainstOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := 500
	if testing.Short() {
		cases = 200
	}
	var valid, invalid, differ int
	for c := 0; c < cases; c++ {
		tab := lts.NewEventTable()
		names := []string{"a", "b", "c"}[:2+r.IntN(2)]
		impl := randomGraph(r, tab, 1+r.IntN(6), 2, names, 0.25)
		spec := randomGraph(r, tab, 1+r.IntN(6), 4, names, 0.2)
		var events []lts.Event
		for _, n := range names {
			events = append(events, tab.InternName(n))
		}
		// A shortest violation is at most |impl|·2^|spec| long.
		want := oracle(impl, spec, events, 6*64+1)
		var first *Result
		for _, opt := range allOptions() {
			res, err := Check(context.Background(), impl, automaton(spec), opt)
			if err != nil {
				t.Fatalf("case %d %+v: %v", c, opt, err)
			}
			if (want < 0) != (res.Verdict == lts.Valid) || res.Verdict == lts.Unknown {
				t.Fatalf("case %d %+v: verdict %v, oracle shortest violation %d\nimpl %v\nspec %v", c, opt, res.Verdict, want, impl.Edges, spec.Edges)
			}
			if res.Verdict == lts.Invalid {
				cex := res.Counterexample
				if len(cex.Trace) != want {
					t.Fatalf("case %d %+v: counterexample %v of length %d, shortest is %d", c, opt, cex.Trace, len(cex.Trace), want)
				}
				var tr []lts.Event
				for _, n := range cex.Trace {
					tr = append(tr, tab.InternName(n))
				}
				if !violates(impl, spec, tr) {
					t.Fatalf("case %d %+v: %v is not a violation", c, opt, cex.Trace)
				}
			}
			if first == nil {
				first = res
				continue
			}
			if res.Verdict != first.Verdict {
				t.Fatalf("case %d: verdict differs with %+v", c, opt)
			}
			if opt.NoAntichain == false && !reflect.DeepEqual(res.Counterexample, first.Counterexample) {
				t.Fatalf("case %d: counterexample with %+v differs:\n%+v\n%+v", c, opt, res.Counterexample, first.Counterexample)
			}
			if opt.NoAntichain && res.Counterexample != nil && !reflect.DeepEqual(res.Counterexample.Trace, first.Counterexample.Trace) {
				differ++
			}
		}
		if first.Verdict == lts.Valid {
			valid++
		} else {
			invalid++
		}
	}
	t.Logf("%d valid, %d invalid; antichain on/off gave different (equally short) traces %d times", valid, invalid, differ)
	if valid < cases/10 || invalid < cases/10 {
		t.Errorf("unbalanced generator: %d valid, %d invalid", valid, invalid)
	}
}

// TestParallelSameAsSequential compares workers on larger random graphs
// with many violations, so that batches span several workers.
func TestParallelSameAsSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for c := 0; c < 20; c++ {
		tab := lts.NewEventTable()
		names := []string{"a", "b", "c", "d"}
		impl := wideGraph(r, tab, 3000, names)
		spec := holeySpec(r, tab, 40, names, 0.002*float64(1+c%8))
		var want *Result
		for _, opt := range []Options{{}, {Workers: 2}, {Workers: 4}, {Workers: 7}, {Workers: 2, parallelAll: true}} {
			res, err := Check(context.Background(), impl, automaton(spec), opt)
			if err != nil {
				t.Fatal(err)
			}
			res.Stats.Seconds, res.Stats.PeakBytes, res.Stats.PairsPerSecond = 0, 0, 0
			if want == nil {
				want = res
				if testing.Verbose() {
					t.Logf("case %d: %v, %d pairs, depth %d", c, res.Verdict, res.Stats.Pairs, res.Stats.Depth)
				}
				continue
			}
			if !reflect.DeepEqual(res, want) {
				t.Fatalf("case %d workers %d:\n%s\nwant\n%s", c, opt.Workers, dump(res), dump(want))
			}
		}
	}
}

// holeySpec is a deterministic automaton with n states where each state has
// each event (to a random target) except with probability pHole: violations
// are rare per step, so they appear deep in the search and many at once.
func holeySpec(r *rand.Rand, tab *lts.EventTable, n int, events []string, pHole float64) *lts.Explicit {
	x := lts.NewExplicit(tab)
	for s := 0; s < n; s++ {
		for _, e := range events {
			if r.Float64() >= pHole {
				x.Add(lts.State(s), e, lts.State(r.IntN(n)))
			}
		}
	}
	for x.NumStates() < n {
		x.AddState()
	}
	return x
}

func dump(r *Result) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%v %+v", r.Verdict, r.Stats)
	if r.Counterexample != nil {
		fmt.Fprintf(&sb, " %v", r.Counterexample.Trace)
	}
	return sb.String()
}

// batching is an Explicit that also expands states in batches (as
// *csp.Proc does), with a run-time error at state fail (if fail >= 0).
type batching struct {
	*lts.Explicit
	fail int
}

func (b batching) Successors(s lts.State, buf []lts.Transition) ([]lts.Transition, error) {
	if int(s) == b.fail {
		return buf, &lts.RuntimeError{Pos: "m.csp:1:1", Msg: "boom"}
	}
	return b.Explicit.Successors(s, buf)
}

// SuccessorsBatch follows the *csp.Proc contract: on an error at ts[k],
// the results of ts[:k] and the error.
func (b batching) SuccessorsBatch(ts []lts.State, buf []lts.Transition, counts []int) ([]lts.Transition, []int, error) {
	for _, s := range ts {
		n := len(buf)
		var err error
		if buf, err = b.Successors(s, buf); err != nil {
			return buf[:n], counts, err
		}
		counts = append(counts, len(buf)-n)
	}
	return buf, counts, nil
}

// TestBatchedSameAsSequential checks that the batched sequential search
// (used for systems with SuccessorsBatch) gives the same results, stats,
// counterexamples and errors as the one-state-at-a-time search, on random
// graphs with tau steps, violations and run-time errors.
func TestBatchedSameAsSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for c := 0; c < 16; c++ {
		tab := lts.NewEventTable()
		names := []string{"a", "b", "c", "d"}
		const n = 1500
		impl := wideGraph(r, tab, n, names)
		spec := holeySpec(r, tab, 40, names, 0.002*float64(c%4))
		fail := -1
		if c%3 == 2 {
			fail = 1 + r.IntN(n-1)
		}
		for _, opt := range []Options{{}, {NoAntichain: true}} {
			var got [2]string
			for i, sys := range []lts.System{failingAt{impl, fail}, batching{impl, fail}} {
				res, err := Check(context.Background(), sys, automaton(spec), opt)
				if err != nil {
					got[i] = "error " + err.Error()
					continue
				}
				res.Stats.Seconds, res.Stats.PeakBytes, res.Stats.PairsPerSecond = 0, 0, 0
				got[i] = dump(res)
			}
			if got[0] != got[1] {
				t.Fatalf("case %d %+v: batched\n%s\nwant\n%s", c, opt, got[1], got[0])
			}
			if testing.Verbose() {
				t.Logf("case %d %+v: %s", c, opt, got[0])
			}
		}
	}
}

// failingAt is batching without SuccessorsBatch.
type failingAt struct {
	*lts.Explicit
	fail int
}

func (f failingAt) Successors(s lts.State, buf []lts.Transition) ([]lts.Transition, error) {
	return batching(f).Successors(s, buf)
}

// TestLazyAntichainSameAsEager checks that keeping the antichain lists only
// from the first macrostate of two or more states on (search.startAnti)
// changes nothing: on random graphs whose specs are deterministic but for a
// few states, so that larger macrostates appear at any depth, the result
// (verdict, every count, the counterexample) equals the one of the search
// that keeps the lists from the first pair.
func TestLazyAntichainSameAsEager(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var lazyOn, differ int
	for c := 0; c < 400; c++ {
		tab := lts.NewEventTable()
		names := []string{"a", "b", "c"}
		impl := randomGraph(r, tab, 2+r.IntN(40), 3, names, 0.2)
		spec := holeySpec(r, tab, 2+r.IntN(12), names, 0.05)
		// A few nondeterministic or internal steps in the spec.
		for k := r.IntN(4); k > 0; k-- {
			ev := names[r.IntN(len(names))]
			if r.IntN(3) == 0 {
				ev = "tau"
			}
			spec.Add(lts.State(r.IntN(spec.NumStates())), ev, lts.State(r.IntN(spec.NumStates())))
		}
		for _, opt := range []Options{{}, {Workers: 2, parallelAll: true}} {
			eager := opt
			eager.eagerAnti = true
			want, err := Check(context.Background(), impl, automaton(spec), eager)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Check(context.Background(), impl, automaton(spec), opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range []*Result{want, got} {
				res.Stats.Seconds, res.Stats.PeakBytes, res.Stats.PairsPerSecond = 0, 0, 0
			}
			if !reflect.DeepEqual(got, want) {
				if differ++; differ <= 3 {
					t.Errorf("case %d workers %d:\n%s\nwant (eager lists)\n%s", c, opt.Workers, dump(got), dump(want))
				}
			}
			if opt.Workers == 0 && got.Stats.Macrostates > 0 && got.Stats.Pairs > 1 {
				lazyOn++
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of 800 checks differ", differ)
	}
	if lazyOn == 0 {
		t.Fatal("no case ran")
	}
}

// wideGraph is an Explicit with n states over names, each with two or
// three edges to random targets, a quarter of them tau: large levels for
// the parallel searches.
func wideGraph(r *rand.Rand, tab *lts.EventTable, n int, names []string) *lts.Explicit {
	x := lts.NewExplicit(tab)
	for s := 0; s < n; s++ {
		for k := 2 + r.IntN(2); k > 0; k-- {
			ev := names[r.IntN(len(names))]
			if r.IntN(4) == 0 {
				ev = "tau"
			}
			x.Add(lts.State(s), ev, lts.State(r.IntN(n)))
		}
	}
	return x
}
