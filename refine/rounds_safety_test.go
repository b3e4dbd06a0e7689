package refine_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/internal/modeltest"
	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
	"github.com/quasar-verify/quasar/relax"
)

// The spec wrappers of the pipeline show what they wrap (refine's
// walkSafe unwraps them).
var (
	_ interface{ Spec() lts.Automaton } = (*relax.Relaxed)(nil)
	_ interface{ Spec() lts.Automaton } = (*linearize.Wrapper)(nil)
)

// countersSrc is n counters up to max, and a spec of their events: five
// up to 11 make 12^5 states, levels of up to 12435, which the searches
// with two workers or more expand with the csp rounds in several batches,
// walking one in the next one's round.
func countersSrc(n, max int) string {
	return fmt.Sprintf(`var c[%d];
P(i) = [c[i] < %d] inc.i{c[i] = c[i] + 1} -> P(i);
Sys = ||| i:{0..%d} @ P(i);
Any = [] i:{0..%d} @ inc.i -> Any;
`, n, max, n-1, n-1)
}

// countersProcs compiles countersSrc(5, 11) and returns its processes
// Sys and Any; under the race detector, countersSrc(5, 8) (levels of up
// to 6,000 pairs: still two batches with two workers).
func countersProcs(t *testing.T) (sys, any *csp.Proc) {
	if raceOn {
		return countersProcsOf(t, 5, 9)
	}
	return countersProcsOf(t, 5, 11)
}

// countersProcsOf compiles countersSrc(n, max).
func countersProcsOf(t *testing.T, n, max int) (sys, any *csp.Proc) {
	t.Helper()
	prog, _ := modeltest.CompileSource(t, "m.csp", []byte(countersSrc(n, max)))
	var err error
	if sys, err = prog.ProcessByName("Sys"); err != nil {
		t.Fatal(err)
	}
	if any, err = prog.ProcessByName("Any"); err != nil {
		t.Fatal(err)
	}
	return sys, any
}

// within runs f and fails the test if it takes more than 30 seconds, 5
// minutes under the race detector (a deadlock: the goroutine is left
// behind).
func within(t *testing.T, what string, f func() (*refine.Result, error)) (*refine.Result, error) {
	t.Helper()
	type out struct {
		res *refine.Result
		err error
	}
	done := make(chan out, 1)
	limit := 30 * time.Second
	if raceOn {
		limit = 5 * time.Minute
	}
	go func() {
		res, err := f()
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(limit):
		t.Fatalf("%s: no answer after %v (deadlock)", what, limit)
		return nil, nil
	}
}

// statsLine is a result without its timing figures.
func statsLine(res *refine.Result, err error) string {
	if err != nil {
		return fmt.Sprint("error ", err)
	}
	st := res.Stats
	st.Seconds, st.PeakBytes, st.PairsPerSecond = 0, 0, 0
	return fmt.Sprintf("%v %+v", res.Verdict, st)
}

// reportLines is statsLine and the counterexample, if any: its kind,
// trace and refusal (failures), one line each.
func reportLines(res *refine.Result, err error) string {
	s := statsLine(res, err) + "\n"
	if err == nil && res.Counterexample != nil {
		c := res.Counterexample
		s += fmt.Sprintf("%s %v %v\n", c.Kind, c.Trace, c.Refused)
	}
	return s
}

// TestRoundsSpecSharesImpl checks a process against itself through the
// public API, the spec being the impl's own *csp.Proc: trace refinement
// is reflexive, so the verdict is Valid, with the figures of one worker.
// The walk in a round must not reach the impl's Proc, whose lock the
// round holds.
func TestRoundsSpecSharesImpl(t *testing.T) {
	var want string
	for _, w := range []int{1, 2, 3} {
		p, _ := countersProcs(t)
		res, err := within(t, fmt.Sprint(w, " workers"), func() (*refine.Result, error) {
			return refine.Check(context.Background(), p, lts.NewTauClosed(p), refine.Options{Workers: w})
		})
		got := statsLine(res, err)
		if err != nil || res.Verdict != lts.Valid {
			t.Fatalf("%d workers: %s, want Valid", w, got)
		}
		if w == 1 {
			want = got
		} else if got != want {
			t.Errorf("%d workers: %s\nwant %s", w, got, want)
		}
	}
}

// TestRoundsProgressUsesImpl: a Progress callback may use the impl (the
// lts contract makes it safe for concurrent use); the figures it gets
// are those of one worker.
func TestRoundsProgressUsesImpl(t *testing.T) {
	progressAgrees(t, countersProcs, func(impl, spec *csp.Proc, opt refine.Options) (*refine.Result, error) {
		return refine.Check(context.Background(), impl, lts.NewTauClosed(spec), opt)
	}, func(res *refine.Result) bool { return res.Verdict == lts.Valid })
}

// progressAgrees checks with 1, 2 and 3 workers (fresh systems from mk) and
// a Progress callback that uses the impl: the figures it gets and the
// report must be one worker's, and want must hold of the result.
func progressAgrees(t *testing.T, mk func(t *testing.T) (impl, spec *csp.Proc), check func(impl, spec *csp.Proc, opt refine.Options) (*refine.Result, error), want func(*refine.Result) bool) {
	var wantFigs, wantRes string
	for _, w := range []int{1, 2, 3} {
		impl, spec := mk(t)
		var figs string
		opt := refine.Options{Workers: w, Progress: func(st refine.Stats) {
			if impl.NumStates() == 0 {
				t.Error("no impl state")
			}
			figs += fmt.Sprintf("%d %d %d %d; ", st.Pairs, st.ImplStates, st.Transitions, st.Depth)
		}}
		res, err := within(t, fmt.Sprint(w, " workers"), func() (*refine.Result, error) { return check(impl, spec, opt) })
		got := reportLines(res, err)
		if err != nil || !want(res) {
			t.Fatalf("%d workers: %s, not the result expected", w, got)
		}
		if figs == "" {
			t.Fatalf("%d workers: no progress", w)
		}
		if w == 1 {
			wantFigs, wantRes = figs, got
			continue
		}
		if figs != wantFigs || got != wantRes {
			t.Errorf("%d workers: progress %s, %s\nwant %s, %s", w, figs, got, wantFigs, wantRes)
		}
	}
}

// TestRoundsWalkThroughWrappers: a relaxed spec over another Proc is
// walked inside the rounds (batches of 64 pairs, 4 counters up to 9); over the impl's own Proc it is walked after
// them (no deadlock), with the figures of one worker either way (the
// relaxed Any accepts every trace of Sys: Valid).
func TestRoundsWalkThroughWrappers(t *testing.T) {
	for _, shared := range []bool{false, true} {
		var want string
		for _, w := range []int{1, 3, 4} {
			sys, anyP := countersProcsOf(t, 4, 9)
			base := anyP
			if shared {
				base = sys
			}
			spec, err := relax.New(lts.NewTauClosed(base), relax.Config{All: 1})
			if err != nil {
				t.Fatal(err)
			}
			expands, walked := 0, walking
			res, err := within(t, fmt.Sprint(w, " workers"), func() (*refine.Result, error) {
				return refine.Check(context.Background(), counted{sys, &expands}, spec, refine.WithRoundBatch(refine.Options{Workers: w}, 64))
			})
			spec.Close()
			got := statsLine(res, err)
			if err != nil || res.Verdict != lts.Valid {
				t.Fatalf("shared %v, %d workers: %s, want Valid", shared, w, got)
			}
			if w == 1 {
				want = got
				continue
			}
			if got != want {
				t.Errorf("shared %v, %d workers: %s\nwant %s", shared, w, got, want)
			}
			if expands == 0 || (walking > walked) == shared {
				t.Errorf("shared %v: %d rounds, %d walked a batch", shared, expands, walking-walked)
			}
		}
	}
}

// panicky is a spec that panics at its n-th step (a bug of a spec); it
// shows what it wraps, so that the search walks it inside the rounds.
type panicky struct {
	lts.Automaton
	n, calls int
}

func (p *panicky) Spec() lts.Automaton { return p.Automaton }

func (p *panicky) Step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	if p.calls++; p.calls == p.n {
		panic(fmt.Sprint("boom at step ", p.n))
	}
	return p.Automaton.Step(s, e, buf)
}

// TestRoundsWalkPanics: a spec's panic in a walk inside a round is the
// internal error of one worker, and the workers stop (no goroutine left
// behind; a hang fails the test).
func TestRoundsWalkPanics(t *testing.T) {
	g0 := runtime.NumGoroutine()
	var want string
	for _, w := range []int{1, 2, 3} {
		impl, _ := countersProcsOf(t, 4, 9)
		specSys, err := impl.Program().ProcessByName("Sys")
		if err != nil {
			t.Fatal(err)
		}
		spec := &panicky{Automaton: lts.NewTauClosed(specSys), n: 20000}
		expands, walked := 0, walking
		res, err := within(t, fmt.Sprint(w, " workers"), func() (*refine.Result, error) {
			return refine.Check(context.Background(), counted{impl, &expands}, spec, refine.WithRoundBatch(refine.Options{Workers: w}, 64))
		})
		got := statsLine(res, err)
		if err == nil || spec.calls != spec.n {
			t.Fatalf("%d workers: %s after %d steps, want the panic at step %d", w, got, spec.calls, spec.n)
		}
		if w == 1 {
			want = got
			continue
		}
		if got != want || walking == walked {
			t.Errorf("%d workers: %s (%d rounds walked a batch)\nwant %s", w, got, walking-walked, want)
		}
	}
	t.Log(want)
	for i := 0; runtime.NumGoroutine() > g0; i++ {
		if i == 100 {
			t.Fatalf("%d goroutines left, %d before", runtime.NumGoroutine(), g0)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRoundsLimits: a state limit ends every worker count's search at
// the same poll, with the same figures (Unknown); so does a Progress
// callback that cancels the search at its 60th, 110th or 126th call (with
// 3 and 4 workers, batches of 6144 and 8192 pairs, a walk in a round may
// poll twice).
func TestRoundsLimits(t *testing.T) {
	var want string
	for _, w := range []int{1, 2, 3} {
		impl, spec := countersProcs(t)
		opt := refine.Options{Workers: w, Limits: lts.Limits{MaxStates: 60000}}
		res, err := within(t, fmt.Sprint(w, " workers"), func() (*refine.Result, error) {
			return refine.Check(context.Background(), impl, lts.NewTauClosed(spec), opt)
		})
		got := statsLine(res, err)
		if err != nil || res.Verdict != lts.Unknown {
			t.Fatalf("%d workers: %s, want Unknown", w, got)
		}
		if w == 1 {
			want = got
		} else if got != want {
			t.Errorf("%d workers: %s\nwant %s", w, got, want)
		}
	}
	for _, at := range []int{60, 110, 126} {
		var wantAt string
		for _, w := range []int{1, 3, 4} {
			impl, spec := countersProcs(t)
			ctx, cancel := context.WithCancel(context.Background())
			calls := 0
			opt := refine.Options{Workers: w, Progress: func(refine.Stats) {
				if calls++; calls == at {
					cancel()
				}
			}}
			res, err := within(t, fmt.Sprint(w, " workers"), func() (*refine.Result, error) {
				return refine.Check(ctx, impl, lts.NewTauClosed(spec), opt)
			})
			cancel()
			got := statsLine(res, err)
			if w == 1 {
				wantAt = got
			} else if got != wantAt {
				t.Errorf("%d workers, cancelled at progress %d: %s\nwant %s", w, at, got, wantAt)
			}
		}
	}
}

// stoppable is a spec that polls the search's limits at every step (as
// relax's window mode does in its expansions) and fails once one is hit;
// it shows what it wraps, so that the search walks it inside the rounds.
type stoppable struct {
	lts.Automaton
	stop func() bool
}

func (p *stoppable) Spec() lts.Automaton        { return p.Automaton }
func (p *stoppable) SetInterrupt(f func() bool) { p.stop = f }

func (p *stoppable) Step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	if p.stop != nil && p.stop() {
		return buf, fmt.Errorf("stopped")
	}
	return p.Automaton.Step(s, e, buf)
}

// TestRoundsInterruptibleCancel: with a spec that polls the limits
// itself, a Progress callback that cancels the search ends it where one
// worker's ends (the spec sees the cancellation at its next step).
func TestRoundsInterruptibleCancel(t *testing.T) {
	walked := walking
	for _, at := range []int{30, 60, 110} {
		var want string
		for _, w := range []int{1, 2, 3} {
			impl, _ := countersProcs(t)
			specSys, err := impl.Program().ProcessByName("Sys")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			calls := 0
			opt := refine.Options{Workers: w, Progress: func(refine.Stats) {
				if calls++; calls == at {
					cancel()
				}
			}}
			expands := 0
			res, err := within(t, fmt.Sprint(w, " workers"), func() (*refine.Result, error) {
				return refine.Check(ctx, counted{impl, &expands}, &stoppable{Automaton: lts.NewTauClosed(specSys)}, opt)
			})
			cancel()
			got := statsLine(res, err)
			if w == 1 {
				want = got
				continue
			}
			if got != want {
				t.Errorf("%d workers, cancelled at progress %d: %s\nwant %s", w, at, got, want)
			}
		}
	}
	if walking == walked {
		t.Error("no round walked a batch")
	}
}

// TestRoundsExactRelaxCancel: relax in exact mode never polls the limits
// in its steps (Polls is false), so a walk in a round does not pause at
// its polls for it; a Progress callback that cancels the search at its
// 10th or 20th call still ends every worker count's search at the same
// poll, with the same figures.
func TestRoundsExactRelaxCancel(t *testing.T) {
	for _, at := range []int{10, 20} {
		var want string
		for _, w := range []int{1, 2, 3} {
			sys, anyP := countersProcs(t)
			spec, err := relax.New(lts.NewTauClosed(anyP), relax.Config{All: 1})
			if err != nil {
				t.Fatal(err)
			}
			if spec.Polls() {
				t.Fatal("relax in exact mode polls")
			}
			ctx, cancel := context.WithCancel(context.Background())
			calls := 0
			opt := refine.WithRoundBatch(refine.Options{Workers: w, Progress: func(refine.Stats) {
				if calls++; calls == at {
					cancel()
				}
			}}, 256)
			res, err := within(t, fmt.Sprint(w, " workers"), func() (*refine.Result, error) {
				return refine.Check(ctx, sys, spec, opt)
			})
			cancel()
			spec.Close()
			got := statsLine(res, err)
			if err != nil || res.Verdict != lts.Unknown {
				t.Fatalf("%d workers, cancelled at progress %d: %s, want Unknown", w, at, got)
			}
			if w == 1 {
				want = got
			} else if got != want {
				t.Errorf("%d workers, cancelled at progress %d: %s\nwant %s", w, at, got, want)
			}
		}
	}
}

// TestFailuresProgressUsesImpl: stable-failures refinement with the
// rounds calls a Progress callback that uses the impl (NumStates takes
// the Proc's lock, which a round holds) outside the rounds, with the
// figures of one worker. Some (any one inc.i offered, an internal
// choice) refuses everything but nothing, which Sys refuses once every
// counter is full: a refusal, after all the states.
func TestFailuresProgressUsesImpl(t *testing.T) {
	n, max := 5, 11
	if raceOn {
		max = 9
	}
	src := countersSrc(n, max) + fmt.Sprintf("Some = <> i:{0..%d} @ inc.i -> Some;\n", n-1)
	progressAgrees(t, func(t *testing.T) (impl, spec *csp.Proc) {
		prog, _ := modeltest.CompileSource(t, "m.csp", []byte(src))
		return countersProc(t, prog, "Sys"), countersProc(t, prog, "Some")
	}, func(impl, spec *csp.Proc, opt refine.Options) (*refine.Result, error) {
		return refine.CheckFailures(context.Background(), impl, spec, refine.StableFailures, opt)
	}, func(res *refine.Result) bool {
		return res.Verdict == lts.Invalid && res.Counterexample.Kind == refine.KindRefusal
	})
}

// countersProc is a new system of prog's process name.
func countersProc(t *testing.T, prog *csp.Program, name string) *csp.Proc {
	t.Helper()
	p, err := prog.ProcessByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
