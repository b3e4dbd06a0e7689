package refine

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/internal/frontier"
	"github.com/quasar-verify/quasar/lts"
)

// rounding is batching that also gives frontier.Rounds (as *csp.Proc
// does) of size states per Expand, counting the Expands.
type rounding struct {
	batching
	size    int
	expands *int
}

func (r rounding) NewRounds(workers int) frontier.Rounds {
	return &fakeRounds{sys: r.batching, size: r.size, expands: r.expands}
}

// fakeRounds follows the Rounds and Walker contracts with
// SuccessorsBatch: a batch's results stay readable until the end of the
// next Expand, and a walk reads the previous batch's.
type fakeRounds struct {
	sys     batching
	size    int
	expands *int
	sets    [2]fakeSet
	cur     int
}

type fakeSet struct {
	trs    []lts.Transition
	counts []int
	off    []int
}

func (f *fakeRounds) Size() int { return f.size }

func (f *fakeRounds) Expand(states []lts.State) (int, error) {
	return f.ExpandWalking(states, nil)
}

func (f *fakeRounds) ExpandWalking(states []lts.State, walk func()) (int, error) {
	*f.expands++
	if walk != nil {
		walk()
	}
	set := &f.sets[1-f.cur]
	var err error
	set.trs, set.counts, err = f.sys.SuccessorsBatch(states, set.trs[:0], set.counts[:0])
	set.off = set.off[:0]
	o := 0
	for _, c := range set.counts {
		set.off = append(set.off, o)
		o += c
	}
	f.cur = 1 - f.cur
	if err != nil {
		return len(set.counts), err
	}
	return -1, nil
}

func (f *fakeRounds) Result(k int) []lts.Transition {
	set := &f.sets[f.cur]
	return set.trs[set.off[k] : set.off[k]+set.counts[k]]
}

func (f *fakeRounds) Close() {}

// TestRoundsSameAsSequential checks levelRounds (the next batch expanded
// while this one is walked, run-time errors, dead pairs at the failing
// state) against the one-pair-at-a-time search: the same results, stats,
// counterexamples and errors, on random graphs with tau steps, violations
// and run-time errors, with rounds of 1 to 4096 states.
func TestRoundsSameAsSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	expands, cases, errs, limited := 0, 0, 0, 0
	for c := 0; c < 24; c++ {
		tab := lts.NewEventTable()
		names := []string{"a", "b", "c", "d"}
		const n = 1500
		impl := wideGraph(r, tab, n, names)
		// Nondeterministic specs make macrostates of several states,
		// so that queued pairs die (a smaller macrostate reaches their
		// impl state).
		spec := holeySpec(r, tab, 40, names, 0.002*float64(c%4))
		if c%2 == 1 {
			for range 30 {
				spec.Add(lts.State(r.IntN(40)), names[r.IntN(len(names))], lts.State(r.IntN(40)))
			}
		}
		fail := -1
		if c%3 != 0 {
			fail = 1 + r.IntN(n-1)
		}
		check := func(sys lts.System, opt Options) string {
			res, err := Check(context.Background(), sys, automaton(spec), opt)
			if err != nil {
				return "error " + err.Error()
			}
			res.Stats.Seconds, res.Stats.PeakBytes, res.Stats.PairsPerSecond = 0, 0, 0
			return dump(res)
		}
		opts := []Options{{Workers: 2, parallelAll: true}, {Workers: 3}, {Workers: 2, Limits: lts.Limits{MaxStates: 5000}}}
		if c%2 == 0 {
			// Without antichains a nondeterministic spec makes too
			// many pairs for a test.
			opts = append(opts, Options{Workers: 2, NoAntichain: true, parallelAll: true})
		}
		for _, opt := range opts {
			want := check(failingAt{impl, fail}, Options{NoAntichain: opt.NoAntichain, Limits: opt.Limits})
			if strings.HasPrefix(want, "error") && opt.Workers == 3 {
				errs++
			}
			if strings.HasPrefix(want, "unknown") {
				limited++
			}
			if testing.Verbose() && !opt.NoAntichain && opt.parallelAll {
				t.Logf("case %d: %s", c, want)
			}
			for _, size := range []int{1, 3, 64, 4096} {
				e0 := expands
				got := check(rounding{batching{impl, fail}, size, &expands}, opt)
				cases++
				if opt.parallelAll && expands == e0 {
					t.Fatalf("case %d: the rounds were not used", c)
				}
				if got != want {
					t.Fatalf("case %d rounds of %d %+v:\n%s\nwant\n%s", c, size, opt, got, want)
				}
			}
		}
	}
	if errs == 0 || limited == 0 {
		t.Errorf("%d cases end in a run-time error, %d at the state limit", errs, limited)
	}
	t.Logf("%d checks, %d rounds; %d of 24 graphs end in an error", cases, expands, errs)
}

// TestRoundsDeadPairAtError: when the first state of a round that fails
// belongs to a dead pair (a smaller macrostate reached its impl state
// after it was queued), the error is the one of the next live pair with
// that state, as in the sequential search, with its trace. Impl: 0 -a-> 1
// and 0 -b-> 1, and state 1 fails; spec: 0 -a-> {1, 2}, 0 -b-> {1}. The
// pair (1, {1, 2}) is queued first and dies when (1, {1}) arrives.
func TestRoundsDeadPairAtError(t *testing.T) {
	tab := lts.NewEventTable()
	impl := lts.NewExplicit(tab)
	impl.Add(0, "a", 1)
	impl.Add(0, "b", 1)
	impl.Add(1, "a", 0)
	spec := lts.NewExplicit(tab)
	spec.Add(0, "a", 1)
	spec.Add(0, "a", 2)
	spec.Add(0, "b", 1)
	spec.Add(1, "a", 0)
	spec.Add(2, "a", 0)
	const want = "m.csp:1:1: boom (after trace b)"
	_, err := Check(context.Background(), failingAt{impl, 1}, automaton(spec), Options{})
	if err == nil || err.Error() != want {
		t.Fatalf("sequential: %v, want %s", err, want)
	}
	for _, size := range []int{1, 2, 4096} {
		expands := 0
		_, err := Check(context.Background(), rounding{batching{impl, 1}, size, &expands}, automaton(spec), Options{Workers: 2, parallelAll: true})
		if err == nil || err.Error() != want {
			t.Errorf("rounds of %d: %v, want %s", size, err, want)
		}
		if expands == 0 {
			t.Errorf("rounds of %d: not used", size)
		}
	}
}

// TestFailuresBatchedSameAsSequential: stable-failures refinement with
// the impl states of a level's pairs expanded in batches (SuccessorsBatch)
// and by rounds (1 to 64 pairs each) gives the results, counterexamples
// (their kind too) and errors of the one-pair-at-a-time search, on random
// processes with run-time errors.
func TestFailuresBatchedSameAsSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 17))
	kinds := map[string]int{}
	cases := 0
	for c := 0; c < 300; c++ {
		tab := lts.NewEventTable()
		names := []string{"a", "b", "c"}[:1+r.IntN(3)]
		impl := randomProcess(r, tab, 1+r.IntN(60), names)
		spec := randomProcess(r, tab, 1+r.IntN(6), names)
		fail := -1
		if c%3 == 0 {
			fail = r.IntN(impl.NumStates())
		}
		check := func(sys lts.System, opt Options) string {
			res, err := CheckFailures(context.Background(), sys, spec, StableFailures, opt)
			if err != nil {
				return "error " + err.Error()
			}
			res.Stats.Seconds, res.Stats.PeakBytes, res.Stats.PairsPerSecond = 0, 0, 0
			s := dump(res)
			if res.Counterexample != nil {
				s += " " + res.Counterexample.Kind
			}
			return s
		}
		want := check(failingAt{impl, fail}, Options{})
		kind := strings.Fields(want)[0]
		if strings.HasPrefix(want, "invalid") {
			kind = want[strings.LastIndex(want, " ")+1:]
		}
		kinds[kind]++
		if got := check(batching{impl, fail}, Options{}); got != want {
			t.Fatalf("case %d batched:\n%s\nwant\n%s", c, got, want)
		}
		for _, size := range []int{1, 3, 64} {
			expands := 0
			got := check(rounding{batching{impl, fail}, size, &expands}, Options{Workers: 2, parallelAll: true})
			cases++
			if got != want {
				t.Fatalf("case %d rounds of %d:\n%s\nwant\n%s", c, size, got, want)
			}
			if expands == 0 {
				t.Fatalf("case %d: the rounds were not used", c)
			}
		}
	}
	t.Logf("%d checks: %v", cases, kinds)
	for _, k := range []string{"valid", "trace", "refusal", "error"} {
		if kinds[k] == 0 {
			t.Errorf("no case of %q", k)
		}
	}
}
