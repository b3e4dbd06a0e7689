package csp

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
)

// settled waits for the goroutine count to fall back to before (a
// closed gang's goroutines have called exit.Done but may not have ended
// yet) and reports how many remain.
// gangWorkers counts the goroutines running a gang's worker loop. (A
// count of all goroutines also sees transient ones that the test does not
// own: measured before and after, it flaked about once in 300 runs on a
// loaded machine, one less than expected.)
func gangWorkers() int {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "internal/gang.(*Gang).worker(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

func settled(before int) int {
	for range 400 {
		if n := runtime.NumGoroutine(); n <= before {
			return n
		}
		time.Sleep(5 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}

// countCtx is a context that ends (with err) at the k-th look at Done:
// the search stops at a poll between its rounds, after k-1 of them,
// whatever the machine's speed.
type countCtx struct {
	context.Context
	k, n atomic.Int64
	done chan struct{}
	once sync.Once
	err  error
}

func newCountCtx(k int64, err error) *countCtx {
	c := &countCtx{Context: context.Background(), done: make(chan struct{}), err: err}
	c.k.Store(k)
	return c
}

func (c *countCtx) Done() <-chan struct{} {
	if c.n.Add(1) >= c.k.Load() {
		c.once.Do(func() { close(c.done) })
	}
	return c.done
}

func (c *countCtx) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// TestParallelEndsStopWorkers: however a parallel search ends (its
// verdict, a state limit, a time limit, a cancellation, a run-time error
// of the model found by a worker, a counterexample, a panic in a phase),
// the gang's goroutines are gone when it returns; with spinning workers
// (GOMAXPROCS = 2) and with more workers than Ps (1: no spin). Each case
// checks that the search ran parallel rounds (the gang existed).
func TestParallelEndsStopWorkers(t *testing.T) {
	phil := philosophersSrc(t, 7)
	// All philosophers left-handed: a deadlock, at depth 2N.
	dead := phil + "\nDead() = ||| x:{0..N-1} @ Phil(x);\n"
	// A counter beside the philosophers divides by zero at depth 12.
	errSrc := phil + divByZeroAt(12) + "Bad() = College() ||| Count();\n"
	type search struct {
		name, src, proc string
		opt             func() (context.Context, Options)
		visit           visitor
		want            func(r *Result) string // "" if r is what the case wants
	}
	none := func(lts.State, []lts.Transition) bool { return false }
	bg := func(o Options) func() (context.Context, Options) {
		return func() (context.Context, Options) { return context.Background(), o }
	}
	reason := func(want string) func(r *Result) string {
		return func(r *Result) string {
			if r.Verdict != lts.Unknown || !strings.HasPrefix(r.Reason, want) {
				return fmt.Sprintf("%v %q, want unknown (%s)", r.Verdict, r.Reason, want)
			}
			return ""
		}
	}
	cases := []search{
		{"complete", phil, "College", bg(Options{Workers: 2}), none, func(r *Result) string {
			if r.Verdict != lts.Valid || r.Stats.States != 2187 {
				return fmt.Sprintf("%v %d states, want valid and 3^7", r.Verdict, r.Stats.States)
			}
			return ""
		}},
		{"state limit", phil, "College", bg(Options{Workers: 2, Limits: lts.Limits{MaxStates: 1000}}), none, reason("state limit")},
		{"time limit", phil, "College", func() (context.Context, Options) {
			return newCountCtx(10, context.DeadlineExceeded), Options{Workers: 2}
		}, none, reason("time limit")},
		{"cancelled", phil, "College", func() (context.Context, Options) {
			return newCountCtx(10, context.Canceled), Options{Workers: 2}
		}, none, reason("cancelled")},
		{"run-time error", errSrc, "Bad", bg(Options{Workers: 2}), none, func(r *Result) string {
			if r.Err == nil || !strings.Contains(r.Err.Error(), "division by zero") {
				return fmt.Sprintf("%v %q, want a division by zero", r.Verdict, r.Reason)
			}
			return ""
		}},
		{"counterexample", dead, "Dead", bg(Options{Workers: 2}), func(_ lts.State, ts []lts.Transition) bool { return len(ts) == 0 }, func(r *Result) string {
			if r.Stats.States >= 2187 {
				return fmt.Sprintf("%d states: the search did not stop at the deadlock", r.Stats.States)
			}
			return ""
		}},
	}
	for _, procs := range []int{2, 1} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("GOMAXPROCS=%d/%s", procs, c.name), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				sys, err := compileSrc(t, c.src).ProcessByName(c.proc)
				if err != nil {
					t.Fatal(err)
				}
				before := runtime.NumGoroutine()
				ctx, opt := c.opt()
				x := newBFS(ctx, sys, opt)
				x.run(c.visit)
				r := x.finish(&Result{Verdict: lts.Valid})
				if x.parTotal == 0 {
					t.Fatal("no parallel round ran: the case tests nothing")
				}
				if msg := c.want(r); msg != "" {
					t.Error(msg)
				}
				if n := settled(before); n > before {
					t.Errorf("%d goroutines after the search, %d before", n, before)
				}
			})
		}
	}
	t.Run("panic", func(t *testing.T) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
		sys, err := compileSrc(t, phil).ProcessByName("College")
		if err != nil {
			t.Fatal(err)
		}
		p := sys
		before := runtime.NumGoroutine()
		func() {
			// As runParallelProc does.
			r := newParSearch(p, 3)
			defer r.close()
			defer func() {
				if e := recover(); e != "boom" {
					t.Errorf("recovered %v, want boom", e)
				}
				if n := gangWorkers(); n != 2 {
					t.Errorf("%d gang workers in the search, want 2", n)
				}
			}()
			r.parallel(func(int) {})
			r.parallel(func(w int) {
				if w == 2 {
					panic("boom")
				}
			})
		}()
		if n := settled(before); n > before {
			t.Errorf("%d goroutines after the search, %d before", n, before)
		}
	})
}

// TestParallelConcurrentSearchesStopWorkers: two parallel searches of
// one Proc at once, and a third goroutine asking it for successors,
// leave no goroutine behind.
func TestParallelConcurrentSearchesStopWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	text := philosophersSrc(t, 7)
	before := runtime.NumGoroutine()
	for trial := range 20 {
		sys, err := compileSrc(t, text).ProcessByName("College")
		if err != nil {
			t.Fatal(err)
		}
		var stop atomic.Bool
		var user, searches sync.WaitGroup
		user.Add(1)
		go func() {
			defer user.Done()
			var buf []lts.Transition
			for i := 0; !stop.Load(); i++ {
				buf, _ = sys.Successors(lts.State(i%sys.NumStates()), buf[:0])
			}
		}()
		var states [2]int64
		searches.Add(2)
		for i := range 2 {
			go func() {
				defer searches.Done()
				r, _ := Explore(context.Background(), sys, Options{Workers: 2 + i, Limits: lts.Limits{MaxStates: 500 + 1500*i}})
				states[i] = r.Stats.States
			}()
		}
		searches.Wait()
		stop.Store(true)
		user.Wait()
		if states[0] < 500 || states[1] < 2000 {
			t.Fatalf("trial %d: %v states, want at least 500 and 2000", trial, states)
		}
	}
	if n := settled(before); n > before {
		t.Errorf("%d goroutines after the searches, %d before", n, before)
	}
}
