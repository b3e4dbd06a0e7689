package csp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// treeKeeps are the thresholds of the tests: the default (the tree is
// whole on these models), none, one state, and thresholds inside the
// first levels or beyond them.
var treeKeeps = []lts.State{1 << 20, 0, 1, 7, 100}

// withTreeKeep sets treeKeep for the rest of the test.
func withTreeKeep(t testing.TB, k lts.State) {
	old := treeKeep
	treeKeep = k
	t.Cleanup(func() { treeKeep = old })
}

// TestTreePathOracle: the path that the parent tree gives to each state
// (its states, and its events found again by expansion, or both rebuilt
// by scanning the levels beyond treeKeep) is the path of a plain
// breadth-first search that records, for each new state, the state and
// the transition that first reached it, with one worker and more (rounds
// of 2048 states and of 3), with and without the thread symmetry, for
// every threshold of treeKeeps, and on a model whose search stops at a
// run-time error in the middle of a level.
func TestTreePathOracle(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func(r int) { parRound = r }(parRound)
	srcs := []string{`
var a[5];
P(i) = [] k:{0..4} @ ([a[k] < 2] s.i.k{a[k] = a[k] + 1} -> P(i)) [] ([a[i] == 2] tau{a[i] = 0} -> P(i));
Sys = ||| i:{0..2} @ P(i);
`, `
var x = 0;
P(i) = (a.i{x = (x + i) % 3} -> P(i)) [] (b -> P(i)) [] ([x == 1] a.i -> P(i)) [] (b -> Q(i));
Q(i) = [x < 2] c.i{x = x + 1} -> P(i);
Sys = ||| i:{0..2} @ P(i);
`, `
var x = 0;
var r[4];
P(i) = a{r[i] = 1} -> Q(i);
Q(i) = ([x < 3] b{x = x + 1; r[i] = 2} -> P(i)) [] (c{r[i] = 0} -> R(i)) [] (c -> P(i));
R(i) = [x > 0] d{x = x - 1} -> P(i);
Sys = ||| i:{0..3} @ P(i);
`, philosophersSrc(t, 7), `
var x = 0;
var y = 0;
P = ([x < 6] a{x = x + 1} -> P) [] ([y < 6] b{y = y + 1} -> P) [] ([x == 4 && y == 3] c{x = x / (y - 3)} -> P);
Sys = P;
`}
	keeps := treeKeeps
	if testing.Short() {
		keeps = []lts.State{0, 7}
	}
	cases, rebuilt, failed := 0, 0, 0
	for k, src := range srcs {
		name := "Sys"
		if k == 3 {
			name = "College"
		}
		for _, sym := range []bool{false, true} {
			if sym && k == 4 {
				continue
			}
			for _, keep := range keeps {
				for _, w := range []int{1, 2, 3} {
					for _, round := range []int{2048, 3} {
						if w == 1 && round != 2048 {
							continue
						}
						parRound = round
						treeKeep = keep
						p := compileSrc(t, src)
						var sys *Proc
						var err error
						if sym {
							var why string
							sys, why, err = p.SymmetricProcess(&lang.RefProc{Name: &lang.Ident{Name: name}})
							if k == 2 && (err != nil || sys.Symmetry() != 4) {
								t.Fatalf("source %d: not symmetric: %v %s", k, err, why)
							}
						} else {
							sys, err = p.ProcessByName(name)
						}
						if err != nil || sys == nil {
							t.Fatalf("%d: %v", k, err)
						}
						what := fmt.Sprintf("source %d, symmetry %v, treeKeep %d, %d workers, rounds of %d", k, sym, keep, w, round)
						cases++
						n, err := func() (n int, err error) {
							defer func() {
								if e := recover(); e != nil {
									err = fmt.Errorf("panic: %v", e)
								}
							}()
							x := newBFS(context.Background(), sys, Options{Workers: w})
							x.run(func(lts.State, []lts.Transition) bool { return false })
							if (x.err != nil) != (k == 4) {
								return 0, fmt.Errorf("error %v", x.err)
							}
							return compareOracle(t, sys, x)
						}()
						rebuilt += n
						if err != nil {
							failed++
							t.Errorf("%s: %v", what, err)
						}
					}
				}
			}
		}
	}
	treeKeep = 1 << 20
	if rebuilt == 0 {
		t.Error("no path was rebuilt")
	}
	t.Logf("%d searches, %d of them differ from the oracle; %d states' paths rebuilt beyond treeKeep", cases, failed, rebuilt)
}

// compareOracle compares the path of every state the search x marked
// (and, after a run-time error, the path to the state that failed) with
// those of oracleTree, and returns the number of states whose path was
// rebuilt beyond treeKeep.
func compareOracle(t *testing.T, sys *Proc, x *bfs) (rebuilt int, err error) {
	up, ev, errAt := oracleTree(t, sys)
	if int64(len(up)) != x.seen {
		return 0, fmt.Errorf("%d states, the oracle %d", x.seen, len(up))
	}
	if x.err != nil && errAt != x.errAt {
		return 0, fmt.Errorf("error at %d, the oracle's at %d", x.errAt, errAt)
	}
	for s := range up {
		if x.treeless(s) {
			rebuilt++
		}
		ss, es, err := x.path(s)
		if err != nil {
			return rebuilt, err
		}
		var want []string
		for c := s; ; c = up[c] {
			want = append(want, fmt.Sprint(c, ev[c]))
			if c == sys.Initial() {
				break
			}
		}
		slices.Reverse(want)
		var got []string
		for i := range ss {
			got = append(got, fmt.Sprint(ss[i], es[i]))
		}
		if !slices.Equal(got, want) {
			return rebuilt, fmt.Errorf("path to %d: %v, the oracle %v", s, got, want)
		}
	}
	return rebuilt, nil
}

// oracleTree is a plain breadth-first search of sys: each state's
// predecessor and event, from the first transition that reached it, up to
// the first state whose successors fail (errAt, noState if none).
func oracleTree(t *testing.T, sys lts.System) (up map[lts.State]lts.State, ev map[lts.State]lts.Event, errAt lts.State) {
	init := sys.Initial()
	up = map[lts.State]lts.State{init: init}
	ev = map[lts.State]lts.Event{init: lts.Tau}
	level := []lts.State{init}
	for len(level) > 0 {
		var next []lts.State
		for _, s := range level {
			ts, err := sys.Successors(s, nil)
			if err != nil {
				return up, ev, s
			}
			for _, tr := range ts {
				if _, ok := up[tr.Target]; !ok {
					up[tr.Target], ev[tr.Target] = s, tr.Event
					next = append(next, tr.Target)
				}
			}
		}
		level = next
	}
	return up, ev, noState
}

// searchPaths explores a fresh system of mk with treeKeep keep and
// returns the path (states and events) of every state it marked, and of
// the state whose successors failed, if one did; a panic is returned as
// the only path.
func searchPaths(t *testing.T, mk func() *Proc, keep lts.State, workers, limit int) (paths []string, treeless int) {
	defer func() {
		if e := recover(); e != nil {
			paths = []string{fmt.Sprint("panic: ", e)}
		}
	}()
	old := treeKeep
	treeKeep = keep
	defer func() { treeKeep = old }()
	sys := mk()
	x := newBFS(context.Background(), sys, Options{Workers: workers, Limits: lts.Limits{MaxStates: limit}})
	x.run(func(lts.State, []lts.Transition) bool { return false })
	show := func(s lts.State) string {
		if x.treeless(s) {
			treeless++
		}
		ss, es, err := x.path(s)
		if err != nil {
			return err.Error()
		}
		var b strings.Builder
		for i := range ss {
			fmt.Fprintf(&b, " %s>%d", sys.Events().Name(es[i]), ss[i])
		}
		return b.String()
	}
	if !x.inOrder {
		return []string{"not in order"}, 0
	}
	for s := range lts.State(x.seen) {
		paths = append(paths, show(s))
	}
	if x.err != nil {
		paths = append(paths, "error at"+show(x.errAt))
	}
	return paths, treeless
}

// TestTreeRebuiltPaths: on every asserted process of the library models
// (and the parallel comparisons' extra ones), their symmetry-reduced
// systems and random programs (a third of which stop at a run-time error
// in the middle of a level), searched with a state limit (which stops
// them in the middle of a level too), every marked state's path rebuilt
// beyond treeKeep (0, 5, 60) is the path the whole tree gives to it in
// the same search, with one worker and two (rounds of 2048 and of 5
// states).
func TestTreeRebuiltPaths(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func(r int) { parRound = r }(parRound)
	limit := 1500
	if testing.Short() {
		limit = 400
	}
	type tcase struct {
		name string
		mk   func() *Proc
	}
	var cs []tcase
	for _, pr := range comparedProcs(t) {
		name := strings.TrimSuffix(strings.TrimSpace(pr.text), "()")
		if _, err := compileSrc(t, pr.src).ProcessByName(name); err != nil {
			continue
		}
		cs = append(cs, tcase{pr.file + " " + pr.text, func() *Proc {
			sys, err := compileSrc(t, pr.src).ProcessByName(name)
			if err != nil {
				t.Fatal(err)
			}
			return sys
		}})
	}
	for _, c := range symmetricCases(t) {
		cs = append(cs, tcase{"symmetric " + c.name, c.mk})
	}
	rng := rand.New(rand.NewPCG(21, 6))
	for c := 0; c < 40; c++ {
		src := randomShapeModel(rng) + "var z = 0;\nQ = [z < 70] up{z = z + 9} -> Q [] [z > 0] down{z = z - 5} -> Q;\nSys = P ||| P ||| Q;\n"
		if m, err := lang.Parse("test.csp", []byte(src)); err != nil {
			t.Fatal(err)
		} else if _, err := lang.Check(m); err != nil {
			continue
		}
		cs = append(cs, tcase{fmt.Sprintf("random %d\n%s", c, src), func() *Proc {
			sys, err := compileSrc(t, src).ProcessByName("Sys")
			if err != nil {
				t.Fatal(err)
			}
			return sys
		}})
	}
	cases, failed, rebuilt := 0, 0, 0
	for _, c := range cs {
		for _, w := range []int{1, 2} {
			for _, round := range []int{2048, 5} {
				if w == 1 && round != 2048 {
					continue
				}
				parRound = round
				want, _ := searchPaths(t, c.mk, ^lts.State(0), w, limit)
				for _, keep := range []lts.State{0, 5, 60} {
					got, n := searchPaths(t, c.mk, keep, w, limit)
					cases++
					rebuilt += n
					if !slices.Equal(got, want) {
						failed++
						i := 0
						for i < min(len(got), len(want)) && got[i] == want[i] {
							i++
						}
						g, wt := "(none)", "(none)"
						if i < len(got) {
							g = got[i]
						}
						if i < len(want) {
							wt = want[i]
						}
						t.Errorf("%s, treeKeep %d, %d workers, rounds of %d: %d paths, the tree's %d; path %d: %s, the tree's %s", c.name, keep, w, round, len(got), len(want), i, g, wt)
					}
				}
			}
		}
	}
	if rebuilt == 0 {
		t.Error("no path was rebuilt")
	}
	t.Logf("%d systems, %d searches, %d of them differ from the whole tree; %d paths rebuilt", len(cs), cases, failed, rebuilt)
}

// TestTreeOutOfOrder: a Proc that holds states the search has not marked
// (another search, or another goroutine, interned them) gives ids out of
// the BFS order: the search sees it (inOrder ends), marks the rest in the
// tree and still gives the oracle's paths.
func TestTreeOutOfOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func(r int) { parRound = r }(parRound)
	parRound = 3
	text := philosophersSrc(t, 6)
	left, failed := 0, 0
	for _, keep := range []lts.State{0, 7, 100} {
		withTreeKeep(t, keep)
		for _, w := range []int{1, 2} {
			for trial := range 6 {
				sys, err := compileSrc(t, text).ProcessByName("College")
				if err != nil {
					t.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(uint64(trial), 2))
				if trial < 3 {
					// A random walk first, interning states in its order.
					s := sys.Initial()
					for range 40 * (trial + 1) {
						ts, _ := sys.Successors(s, nil)
						s = ts[rng.IntN(len(ts))].Target
					}
				}
				var stop atomic.Bool
				var wg sync.WaitGroup
				if trial >= 3 {
					// Another goroutine, during the search.
					wg.Add(1)
					go func() {
						defer wg.Done()
						var buf []lts.Transition
						for !stop.Load() {
							buf, _ = sys.Successors(lts.State(rng.IntN(sys.NumStates())), buf[:0])
							time.Sleep(time.Microsecond)
						}
					}()
				}
				x := newBFS(context.Background(), sys, Options{Workers: w})
				err = func() (err error) {
					defer func() {
						if e := recover(); e != nil {
							err = fmt.Errorf("panic: %v", e)
						}
					}()
					x.run(func(lts.State, []lts.Transition) bool { return false })
					stop.Store(true)
					wg.Wait()
					_, err = compareOracle(t, sys, x)
					return err
				}()
				stop.Store(true)
				wg.Wait()
				if !x.inOrder {
					left++
				}
				if err != nil {
					failed++
					t.Errorf("treeKeep %d, %d workers, trial %d: %v", keep, w, trial, err)
				}
			}
		}
	}
	if left == 0 {
		t.Error("no search left the order")
	}
	t.Logf("%d searches out of order, %d differ from the oracle", left, failed)
}

// TestRebuildLimits: a cancelled context stops the rebuilding of a path,
// and the check is unknown, saying what it found; a passed deadline (the
// CLI's --timeout) does not stop it.
func TestRebuildLimits(t *testing.T) {
	withTreeKeep(t, 0)
	src := philosophersSrc(t, 6) + "\nDead() = College() ||| (stop -> Stop);\n"
	for _, kind := range []string{"cancel", "deadline", "none"} {
		sys, err := compileSrc(t, src).ProcessByName("College")
		if err != nil {
			t.Fatal(err)
		}
		ctx := &flipCtx{Context: context.Background()}
		x := newBFS(ctx, sys, Options{})
		var last lts.State
		x.run(func(s lts.State, _ []lts.Transition) bool { last = s; return false })
		switch kind {
		case "cancel":
			ctx.err.Store(context.Canceled)
		case "deadline":
			ctx.err.Store(context.DeadlineExceeded)
		}
		r := &Result{Verdict: lts.Invalid, Reason: "deadlock"}
		x.witness(r, last)
		if kind == "cancel" {
			if r.Verdict != lts.Unknown || r.Trace != nil || !strings.Contains(r.Reason, "cancelled while rebuilding") || !strings.Contains(r.Reason, "deadlock found at depth") {
				t.Errorf("cancelled: %v %q, %d steps", r.Verdict, r.Reason, len(r.Trace))
			}
			continue
		}
		if r.Verdict != lts.Invalid || len(r.Trace) != x.depth+1 || !x.treeless(last) {
			t.Errorf("%s: %v %q, %d steps, depth %d", kind, r.Verdict, r.Reason, len(r.Trace), x.depth)
		}
	}
}

// flipCtx is a context whose Err is set by the test.
type flipCtx struct {
	context.Context
	err atomic.Value
}

func (c *flipCtx) Err() error {
	if e, ok := c.err.Load().(error); ok {
		return e
	}
	return nil
}

// TestTreeKeepSameResults: every single-process assertion of the library
// and test models gives the same result (verdict, reason, counterexample
// with its variables, loop, value) whether its paths come from the whole
// tree or are rebuilt beyond treeKeep (0 and 3), with one worker and two.
func TestTreeKeepSameResults(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	kinds := map[lang.AssertKind]bool{lang.KindDeadlockFree: true, lang.KindDivergenceFree: true, lang.KindNonTerminating: true, lang.KindDeterministic: true, lang.KindReaches: true}
	show := func(r *Result, err error) string {
		if err != nil {
			return "error " + err.Error()
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%v %q %d %v %v states %d", r.Verdict, r.Reason, r.Value, r.HasValue, r.Err, r.Stats.States)
		for _, st := range append(append([]Step(nil), r.Trace...), r.Loop...) {
			fmt.Fprintf(&b, "\n%s %s %v", st.Event, st.Who, st.Vars)
		}
		return b.String()
	}
	cases, traces, failed := 0, 0, 0
	for _, am := range assertedModels(t, "../models/lib/*.csp", "../models/testdata/*.csp", "../testdata/pipeline/*.csp", "../testdata/sym/*.csp") {
		for i, a := range am.checked.Info.Asserts {
			if !kinds[a.Kind] {
				continue
			}
			for _, w := range []int{1, 2} {
				run := func(keep lts.State) (out string) {
					old := treeKeep
					treeKeep = keep
					defer func() { treeKeep = old }()
					prog, err := Compile(am.checked)
					if err != nil {
						t.Fatal(err)
					}
					defer func() {
						if e := recover(); e != nil {
							out = fmt.Sprint("panic: ", e)
						}
					}()
					return show(CheckAssertion(context.Background(), prog, a, Options{Workers: w, Limits: lts.Limits{MaxStates: 50000}}))
				}
				want := run(^lts.State(0))
				if strings.Count(want, "\n") > 0 {
					traces++
				}
				for _, keep := range []lts.State{0, 3} {
					cases++
					if got := run(keep); got != want {
						failed++
						t.Errorf("%s assertion %d, %d workers, treeKeep %d:\n%s\nwith the whole tree:\n%s", am.path, i, w, keep, got, want)
					}
				}
			}
		}
	}
	if traces == 0 {
		t.Error("no counterexample")
	}
	t.Logf("%d checks (%d with a trace), %d differ", cases, traces, failed)
}
