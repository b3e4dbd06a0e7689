package refine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/internal/frontier"
	"github.com/quasar-verify/quasar/lts"
)

// guarded is rounding whose rounds note when one runs (*inRound), so that
// a Progress callback can tell whether it was called inside a round (where
// a callback using a *csp.Proc impl would wait for the round forever).
type guarded struct {
	rounding
	inRound *bool
}

func (g guarded) NewRounds(workers int) frontier.Rounds {
	return guardedRounds{g.rounding.NewRounds(workers).(*fakeRounds), g.inRound}
}

type guardedRounds struct {
	*fakeRounds
	inRound *bool
}

func (g guardedRounds) Expand(states []lts.State) (int, error) {
	return g.ExpandWalking(states, nil)
}

func (g guardedRounds) ExpandWalking(states []lts.State, walk func()) (int, error) {
	*g.inRound = true
	defer func() { *g.inRound = false }()
	return g.fakeRounds.ExpandWalking(states, walk)
}

// pollingSpec is a spec that reads the search's limits at every step, as
// relax's window mode does (Interruptible; Polls says whether it does), and
// fails once one is hit. It shows what it wraps (Spec), so a walk may run
// in a round.
type pollingSpec struct {
	lts.Automaton
	stop  func() bool
	polls bool
}

func (p *pollingSpec) Spec() lts.Automaton        { return p.Automaton }
func (p *pollingSpec) SetInterrupt(f func() bool) { p.stop = f }
func (p *pollingSpec) Polls() bool                { return p.polls }

func (p *pollingSpec) Step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	if p.polls && p.stop != nil && p.stop() {
		return buf, errors.New("stopped")
	}
	return p.Automaton.Step(s, e, buf)
}

// figures is a Stats without its timings, for comparisons.
func figures(st Stats) string {
	st.Seconds, st.PeakBytes, st.PairsPerSecond = 0, 0, 0
	return fmt.Sprintf("%+v", st)
}

// limitedRun is one check under a state limit and a Progress callback
// that cancels the search at its at-th call (0: never): the report, every
// progress figure, and whether the callback ran inside a round.
type limitedRun struct {
	report   string
	progress []string
	inside   bool
}

func (l limitedRun) String() string {
	return l.report + "\nprogress:\n" + strings.Join(l.progress, "\n")
}

func runLimited(check func(ctx context.Context, opt Options) (*Result, error), opt Options, at int, inRound *bool) limitedRun {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var l limitedRun
	opt.Progress = func(st Stats) {
		if inRound != nil && *inRound {
			l.inside = true
		}
		l.progress = append(l.progress, figures(st))
		if len(l.progress) == at {
			cancel()
		}
	}
	res, err := check(ctx, opt)
	switch {
	case err != nil:
		l.report = "error " + err.Error()
	default:
		l.report = fmt.Sprintf("%v %q %s", res.Verdict, res.Reason, figures(res.Stats))
		if res.Counterexample != nil {
			l.report += fmt.Sprintf(" %v %s", res.Counterexample.Trace, res.Counterexample.Kind)
		}
	}
	return l
}

// TestRoundsRandomLimits is a randomized comparison of the rounds (walks
// in rounds, pauses, kept walks, errors, dead pairs) with the one-worker
// search under limits: random graphs with tau steps, violations, run-time
// errors and dead pairs; batches of 1 to 13000 pairs; 2 to 4 workers; a
// random state limit; a Progress callback that cancels the search at a
// random call; a spec that polls the limits itself or not. The report
// (verdict, reason, every figure, counterexample, error) and the figures
// of every progress call must be the one-worker search's, and no callback
// may run inside a round. Trace refinement and stable failures.
func TestRoundsRandomLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	cases := 200
	if testing.Short() || raceDetector {
		cases = 30
	}
	verdicts := map[string]int{}
	checks := 0
	for c := 0; c < cases; c++ {
		tab := lts.NewEventTable()
		names := []string{"a", "b", "c", "d"}
		n := 2000 + r.IntN(8000)
		impl := wideGraph(r, tab, n, names)
		fail := -1
		if r.IntN(3) == 0 {
			fail = 1 + r.IntN(n-1)
		}
		failures := c%3 == 2
		noAnti := r.IntN(5) == 0 && !failures
		var spec *lts.Explicit
		if failures {
			// A few deadlocked (some terminated) impl states make
			// refusals; the spec accepts any one event.
			impl.Final = make([]bool, n)
			for range r.IntN(3) {
				s := r.IntN(n)
				impl.Edges[s] = nil
				impl.Final[s] = r.IntN(2) == 0
			}
			spec = lts.NewExplicit(tab)
			for k, e := range names {
				spec.Add(0, "tau", lts.State(k+1))
				spec.Add(lts.State(k+1), e, 0)
			}
			if r.IntN(2) == 0 {
				spec.Final = []bool{true, false, false, false, false}
			}
		} else {
			spec = holeySpec(r, tab, 40, names, 0.0005*float64(r.IntN(4)))
			if nondet := r.IntN(2) == 0; nondet {
				// Without antichains a nondeterministic spec
				// makes too many pairs for a test.
				noAnti = false
				for range 30 {
					spec.Add(lts.State(r.IntN(40)), names[r.IntN(len(names))], lts.State(r.IntN(40)))
				}
			}
		}
		polls := r.IntN(3) // 0: a plain spec, 1: Interruptible that polls, 2: that does not
		base := Options{NoAntichain: noAnti}
		if r.IntN(2) == 0 {
			base.Limits.MaxStates = 1000 + r.IntN(60000)
		}
		var inRound bool
		check := func(sys lts.System) func(ctx context.Context, opt Options) (*Result, error) {
			return func(ctx context.Context, opt Options) (*Result, error) {
				if failures {
					return CheckFailures(ctx, sys, spec, StableFailures, opt)
				}
				var a lts.Automaton = automaton(spec)
				if polls > 0 {
					a = &pollingSpec{Automaton: a, polls: polls == 1}
				}
				return Check(ctx, sys, a, opt)
			}
		}
		one := check(batching{impl, fail})
		free := runLimited(one, base, 0, nil)
		at := 0
		if len(free.progress) > 0 {
			at = 1 + r.IntN(len(free.progress)+1)
		}
		want := runLimited(one, base, at, nil)
		verdicts[strings.Fields(want.report)[0]]++
		if testing.Verbose() {
			t.Logf("case %d (n %d, failures %v, polls %d, limit %d, cancel at %d of %d): %s", c, n, failures, polls, base.Limits.MaxStates, at, len(free.progress), want.report)
		}
		for range 3 {
			opt := base
			opt.Workers = 2 + r.IntN(3)
			opt.parallelAll = r.IntN(2) == 0
			// Tiny batches, and batches whose walks poll twice
			// or more (pollEvery pairs apart).
			size := 1 + r.IntN(5000)
			switch r.IntN(3) {
			case 0:
				size = 1 + r.IntN(8)
			case 1:
				size = 4000 + r.IntN(9000)
			}
			opt.roundBatch = size
			expands := 0
			got := runLimited(check(guarded{rounding{batching{impl, fail}, size, &expands}, &inRound}), opt, at, &inRound)
			checks++
			if got.inside {
				t.Errorf("case %d, %d workers, batches of %d: a progress callback ran inside a round", c, opt.Workers, size)
			}
			if got.report != want.report || strings.Join(got.progress, "\n") != strings.Join(want.progress, "\n") {
				t.Fatalf("case %d (failures %v, polls %d, limit %d, cancel at %d), %d workers, batches of %d, all levels %v:\n%s\nwant\n%s",
					c, failures, polls, base.Limits.MaxStates, at, opt.Workers, size, opt.parallelAll, got, want)
			}
		}
	}
	t.Logf("%d checks: %v", checks, verdicts)
	for _, v := range []string{"valid", "invalid", "unknown", "error"} {
		if verdicts[v] == 0 {
			t.Errorf("no case ends %s", v)
		}
	}
}

// brokenBatch is batching whose SuccessorsBatch fails as *csp.Proc's does
// on an internal error (a recovered panic) at state fail: the counts of
// the states before it (or, if the panic is in the interning, of every
// state: afterCount) are returned, but none of their transitions.
// Successors fails at fail too.
type brokenBatch struct {
	batching
	afterCount bool
}

func (b brokenBatch) Successors(s lts.State, buf []lts.Transition) ([]lts.Transition, error) {
	return failingAtMsg{b.Explicit, b.fail}.Successors(s, buf)
}

func (b brokenBatch) SuccessorsBatch(ts []lts.State, buf []lts.Transition, counts []int) ([]lts.Transition, []int, error) {
	n := len(buf)
	for _, s := range ts {
		if int(s) == b.fail {
			if b.afterCount {
				counts = append(counts, 0)
				continue
			}
			return buf[:n], counts, errors.New("lts: internal error: boom")
		}
		m := len(buf)
		buf, _ = b.Explicit.Successors(s, buf)
		counts = append(counts, len(buf)-m)
	}
	if b.afterCount && len(counts) > 0 {
		for _, s := range ts {
			if int(s) == b.fail {
				return buf[:n], counts, errors.New("lts: internal error: boom")
			}
		}
	}
	return buf, counts, nil
}

// TestFailuresBatchError: stable-failures (and trace) refinement whose batch
// expansion fails with the results of the states before the failing one
// counted but not returned (*csp.Proc's SuccessorsBatch on a recovered
// panic) gives the one-pair-at-a-time search's result: the error, with the
// trace of the failing state's pair (levelBatched redoes such a batch one
// pair at a time; F's level read the missing transitions, and with the
// failure in the interning dropped the error).
func TestFailuresBatchError(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	wrong := 0
	const cases = 1000
	for c := 0; c < cases; c++ {
		tab := lts.NewEventTable()
		names := []string{"a", "b", "c"}[:1+r.IntN(3)]
		impl := randomProcess(r, tab, 2+r.IntN(300), names)
		spec := randomProcess(r, tab, 1+r.IntN(6), names)
		fail := 1 + r.IntN(impl.NumStates()-1)
		check := func(sys lts.System) string {
			res, err := CheckFailures(context.Background(), sys, spec, StableFailures, Options{})
			if c%4 == 3 {
				// Trace refinement, for comparison.
				res, err = Check(context.Background(), sys, automaton(spec), Options{})
			}
			if err != nil {
				return "error " + err.Error()
			}
			res.Stats.Seconds, res.Stats.PeakBytes, res.Stats.PairsPerSecond = 0, 0, 0
			return dump(res)
		}
		want := check(failingAtMsg{impl, fail})
		for _, after := range []bool{false, true} {
			if got := check(brokenBatch{batching{impl, fail}, after}); got != want {
				wrong++
				if wrong <= 3 {
					t.Errorf("case %d (interning fails %v):\n%s\nwant\n%s", c, after, got, want)
				}
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d checks differ", wrong, 2*cases)
	}
}

// failingAtMsg is failingAt with brokenBatch's error.
type failingAtMsg struct {
	*lts.Explicit
	fail int
}

func (f failingAtMsg) Successors(s lts.State, buf []lts.Transition) ([]lts.Transition, error) {
	if int(s) == f.fail {
		return buf, errors.New("lts: internal error: boom")
	}
	return f.Explicit.Successors(s, buf)
}

// TestRoundsDeadPairAtErrorPolls: a failed state whose pair is dead at
// the head of a batch, then 5000 pairs (a poll among them) before the
// state's live pair: the polls after the dead pair see the figures of the
// one-worker search (the walk counted the dead pair once), and the error
// is the live pair's. Impl: 0 -a-> F, 0 -c-> S_i (5000 states, each
// -c-> itself), 0 -b-> F, F failing; spec: 0 -a-> {1, 2}, 0 -b-> {1},
// 0 -c-> 3 -c-> 3. The pair (F, {1, 2}) is queued first and dies when
// (F, {1}) is stored, at the end of level 0.
func TestRoundsDeadPairAtErrorPolls(t *testing.T) {
	tab := lts.NewEventTable()
	const n = 5000
	impl := lts.NewExplicit(tab)
	const f = n + 1
	impl.Add(0, "a", f)
	for i := 1; i <= n; i++ {
		impl.Add(0, "c", lts.State(i))
		impl.Add(lts.State(i), "c", lts.State(i))
	}
	impl.Add(0, "b", f)
	spec := lts.NewExplicit(tab)
	spec.Add(0, "a", 1)
	spec.Add(0, "a", 2)
	spec.Add(0, "b", 1)
	spec.Add(0, "c", 3)
	spec.Add(3, "c", 3)
	one := func(sys lts.System) func(ctx context.Context, opt Options) (*Result, error) {
		return func(ctx context.Context, opt Options) (*Result, error) {
			return Check(ctx, sys, spec, opt)
		}
	}
	want := runLimited(one(failingAt{impl, f}), Options{}, 0, nil)
	if !strings.Contains(want.report, "after trace b") || len(want.progress) == 0 {
		t.Fatalf("one worker: %s, want the error after b and a poll", want)
	}
	var inRound bool
	for _, w := range []int{2, 3} {
		for _, size := range []int{1, 7, 3000, 4096, 6000} {
			expands := 0
			opt := Options{Workers: w, roundBatch: size}
			got := runLimited(one(guarded{rounding{batching{impl, f}, size, &expands}, &inRound}), opt, 0, &inRound)
			if got.String() != want.String() || got.inside {
				t.Errorf("%d workers, batches of %d:\n%s\nwant\n%s", w, size, got, want)
			}
			if expands == 0 {
				t.Errorf("%d workers, batches of %d: the rounds were not used", w, size)
			}
		}
	}
}
