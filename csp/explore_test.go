package csp

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// checkModel holds the assertions whose verdicts and traces are pinned
// below; the expectations follow from the definitions in docs/verdicts.md and
// docs/semantics.md, worked out by hand.
const checkModel = `
var x = 0;
var c = 0;
#define goal x == 2;
#define big c >= 2;
Dead = a -> (b -> Stop [] c1 -> Skip);
Fine = a -> Fine;
Term = a -> Skip;
Div = (a -> Loop) \ {t};
Loop = t -> Loop;
NoDiv = (a -> t -> b -> Skip) \ {t};
Det = a -> b -> Det;
NonDet = a -> b -> Stop [] a -> c -> Stop;
Inc = [x < 3] inc{x = x + 1} -> Inc;
Cnt = [c < 3] up{c = c + 1} -> Cnt [] [c > 0] down{c = c - 1} -> Cnt;
Bad = [x < 2] inc{x = x + 1} -> Bad [] [x == 2] oops{x = 5 / (x - 2)} -> Skip;
#assert Dead deadlockfree;
#assert Fine deadlockfree;
#assert Term deadlockfree;
#assert Div divergencefree;
#assert NoDiv divergencefree;
#assert Term nonterminating;
#assert Fine nonterminating;
#assert Det deterministic;
#assert NonDet deterministic;
#assert Inc reaches goal;
#assert Term reaches goal;
#assert Cnt reaches big with max(c);
#assert Cnt reaches big with min(c);
#assert Bad deadlockfree;
`

func TestChecks(t *testing.T) {
	p := compileSrc(t, checkModel)
	type want struct {
		verdict lts.Verdict
		trace   string // events of the trace, space separated
		value   int64
	}
	wants := []want{
		{lts.Invalid, "a b", 0},     // Dead: after a b, Stop; the c1 branch terminates
		{lts.Valid, "", 0},          // Fine
		{lts.Valid, "", 0},          // Term: a terminated state is not a deadlock
		{lts.Invalid, "a", 0},       // Div: after a, t is hidden and loops
		{lts.Valid, "", 0},          // NoDiv
		{lts.Invalid, "a", 0},       // Term terminates
		{lts.Valid, "", 0},          // Fine never stops
		{lts.Valid, "", 0},          // Det
		{lts.Invalid, "", 0},        // NonDet: two a's from the initial state
		{lts.Valid, "inc inc", 0},   // Inc reaches x == 2 after two steps
		{lts.Invalid, "", 0},        // Term never sets x
		{lts.Valid, "up up up", 3},  // max c over c >= 2 is 3
		{lts.Valid, "up up", 2},     // min is 2
		{lts.Unknown, "inc inc", 0}, // division by zero in the step after x == 2
	}
	asserts := p.info.Asserts
	if len(asserts) != len(wants) {
		t.Fatalf("%d assertions, %d expectations", len(asserts), len(wants))
	}
	for i, a := range asserts {
		w := wants[i]
		for _, workers := range []int{1, 2} {
			r, err := CheckAssertion(context.Background(), p, a, Options{Workers: workers})
			name := a.Left.(*lang.RefProc).Name.Name + " " + a.Kind.String()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if w.verdict == lts.Unknown {
				if r.Err == nil {
					t.Fatalf("%s: want a run-time error", name)
				}
				if e := r.Err.Error(); !strings.Contains(e, "division by zero") || !strings.HasPrefix(e, "test.csp:16:") {
					t.Errorf("%s: error %v", name, e)
				}
			} else if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if r.Verdict != w.verdict {
				t.Errorf("%s (workers %d): verdict %v (%s), want %v", name, workers, r.Verdict, r.Reason, w.verdict)
				continue
			}
			if w.trace != "" || r.Verdict == lts.Invalid && w.trace == "" && len(r.Trace) > 1 {
				var evs []string
				for _, s := range r.Trace[1:] {
					evs = append(evs, s.Event)
				}
				if got := strings.Join(evs, " "); got != w.trace {
					t.Errorf("%s: trace %q, want %q", name, got, w.trace)
				}
			}
			if w.value != 0 && (!r.HasValue || r.Value != w.value) {
				t.Errorf("%s: value %d (%v), want %d", name, r.Value, r.HasValue, w.value)
			}
		}
	}
}

// TestTraceDetails checks the variables and the component shown in a
// counterexample.
func TestTraceDetails(t *testing.T) {
	p := compileSrc(t, `
var x = 0;
var y = 0;
P(i) = [x < 2] inc.i{x = x + 1} -> P(i);
Q = [x == 2] set{y = 7} -> Stop;
Sys = (||| i:{0..1} @ P(i)) ||| Q;
`)
	sys, err := p.ProcessByName("Sys")
	if err != nil {
		t.Fatal(err)
	}
	r, err := DeadlockFree(context.Background(), sys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != lts.Invalid || len(r.Trace) != 4 {
		t.Fatalf("verdict %v, trace %v", r.Verdict, r.Trace)
	}
	last := r.Trace[3]
	if last.Event != "set" || last.Who != "Q()" {
		t.Errorf("last step %q by %q, want set by Q()", last.Event, last.Who)
	}
	if r.Trace[1].Who != "P(0)" || r.Trace[1].Event != "inc.0" {
		t.Errorf("first step %q by %q, want inc.0 by P(0)", r.Trace[1].Event, r.Trace[1].Who)
	}
	vars := map[string]string{}
	for _, b := range last.Vars {
		vars[b.Name] = b.Value
	}
	if vars["x"] != "2" || vars["y"] != "7" {
		t.Errorf("vars after the last step: %v", vars)
	}
}

// TestLimits: a state limit, a time limit and a cancelled context give
// Unknown with the stats so far.
func TestLimits(t *testing.T) {
	p := compileSrc(t, `
var x = 0;
P = inc{x = x + 1} -> P;
`)
	sys, err := p.ProcessByName("P")
	if err != nil {
		t.Fatal(err)
	}
	r, err := DeadlockFree(context.Background(), sys, Options{Limits: lts.Limits{MaxStates: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != lts.Unknown || !strings.Contains(r.Reason, "state limit") || r.Stats.States < 1000 {
		t.Errorf("state limit: %v %q %+v", r.Verdict, r.Reason, r.Stats)
	}
	r, _ = DeadlockFree(context.Background(), sys, Options{Limits: lts.Limits{Timeout: 50 * time.Millisecond}})
	if r.Verdict != lts.Unknown || !strings.Contains(r.Reason, "time limit") {
		t.Errorf("time limit: %v %q", r.Verdict, r.Reason)
	}
	r, _ = DeadlockFree(context.Background(), sys, Options{Limits: lts.Limits{MaxBytes: 1}})
	if r.Verdict != lts.Unknown || !strings.Contains(r.Reason, "memory limit") {
		t.Errorf("memory limit: %v %q", r.Verdict, r.Reason)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, _ = DeadlockFree(ctx, sys, Options{Workers: 2})
	if r.Verdict != lts.Unknown || r.Reason != "cancelled" {
		t.Errorf("cancelled: %v %q", r.Verdict, r.Reason)
	}
}

// TestParallelSameAsSequential: with GOMAXPROCS=2, the parallel search
// finds the same number of states and the same verdicts and traces.
func TestParallelSameAsSequential(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	src := `
#define T 2;
var q[4];
var n = 0;
P(i) = [] v:{1..2} @ ([n < 4] put.i.v{q[n] = v; n = n + 1} -> P(i))
    [] [n > 0] take.i.q[n - 1]{n = n - 1; q[n] = 0} -> P(i);
Sys = ||| i:{0..T-1} @ P(i);
`
	for _, w := range []int{1, 2, 3} {
		p := compileSrc(t, src)
		sys, err := p.ProcessByName("Sys")
		if err != nil {
			t.Fatal(err)
		}
		r, err := Explore(context.Background(), sys, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		// 1 + 2 + 4 + 8 + 16 stack contents (values 1..2, up to 4 deep).
		if r.Stats.States != 31 || r.Verdict != lts.Valid {
			t.Errorf("workers %d: %d states, %v", w, r.Stats.States, r.Verdict)
		}
	}
	// A bigger space: compare the counts and the deadlock traces.
	big := `
var a[6];
P(i) = [] k:{0..5} @ ([a[k] < 2] s.i.k{a[k] = a[k] + 1} -> P(i));
Sys = ||| i:{0..2} @ P(i);
`
	var counts []int64
	var traces []string
	for _, w := range []int{1, 2} {
		p := compileSrc(t, big)
		sys, _ := p.ProcessByName("Sys")
		r, err := DeadlockFree(context.Background(), sys, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, r.Stats.States)
		var evs []string
		for _, s := range r.Trace {
			evs = append(evs, s.Event)
		}
		traces = append(traces, strings.Join(evs, " "))
		if r.Verdict != lts.Invalid {
			t.Errorf("workers %d: verdict %v", w, r.Verdict)
		}
	}
	if counts[0] != counts[1] || traces[0] != traces[1] {
		t.Errorf("sequential %d %q, parallel %d %q", counts[0], traces[0], counts[1], traces[1])
	}
	full := `
var a[6];
P(i) = [] k:{0..5} @ ([a[k] < 2] s.i.k{a[k] = a[k] + 1} -> P(i));
Sys = ||| i:{0..2} @ P(i);
`
	counts = counts[:0]
	for _, w := range []int{1, 2} {
		p := compileSrc(t, full)
		sys, _ := p.ProcessByName("Sys")
		r, _ := Explore(context.Background(), sys, Options{Workers: w})
		counts = append(counts, r.Stats.States)
	}
	// 3^6 array contents; the control of each thread is always P(i).
	if counts[0] != 729 || counts[1] != 729 {
		t.Errorf("states %v, want 729", counts)
	}
}

// TestComponentNames: components are named after the reference that made
// them, even when the definition's body starts in another definition.
func TestComponentNames(t *testing.T) {
	p := compileSrc(t, `
Thread(i) = Enq(i) [] Deq(i);
Enq(i) = enq.i -> Thread(i);
Deq(i) = deq.i -> Thread(i);
Sys = ||| i:{0..1} @ Thread(i);
`)
	sys, err := p.ProcessByName("Sys")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sys.Components(), " "); got != "Thread(0) Thread(1)" {
		t.Errorf("components %q", got)
	}
	ts, _ := sys.Successors(sys.Initial(), nil)
	for _, tr := range ts {
		want := "Thread(" + sys.Events().Name(tr.Event)[4:] + ")"
		if w := sys.Who(sys.Initial(), tr.Event, tr.Target); w != want {
			t.Errorf("%s made by %q, want %q", sys.Events().Name(tr.Event), w, want)
		}
	}
}

// TestUnguardedRecursion: a process that reaches itself without a step is
// an error, whether found when the term is built or when it moves.
func TestUnguardedRecursion(t *testing.T) {
	p := compileSrc(t, `
var x = 0;
U = U;
P = R(x);
R(k) = P;
S = a -> P;
`)
	if _, err := p.ProcessByName("U"); err == nil || !strings.Contains(err.Error(), "unguarded recursion") {
		t.Errorf("U: %v", err)
	}
	sys, err := p.ProcessByName("S")
	if err != nil {
		t.Fatal(err)
	}
	r, err := DeadlockFree(context.Background(), sys, Options{})
	if err != nil || r.Err == nil || !strings.Contains(r.Err.Error(), "unguarded recursion") || r.Verdict != lts.Unknown {
		t.Errorf("S: %v %+v", err, r)
	}
}

func TestDescribe(t *testing.T) {
	p := compileSrc(t, `
channel ca[2] 2;
var b = true;
var arr[2];
P = ca[1]!3 -> set{arr[1] = 5; b = false} -> Stop;
`)
	sys, err := p.ProcessByName("P")
	if err != nil {
		t.Fatal(err)
	}
	s := sys.Initial()
	for i := 0; i < 2; i++ {
		ts, err := sys.Successors(s, nil)
		if err != nil || len(ts) != 1 {
			t.Fatalf("step %d: %v %v", i, ts, err)
		}
		s = ts[0].Target
	}
	var got []string
	for _, b := range sys.Describe(s) {
		got = append(got, b.Name+"="+b.Value)
	}
	want := "b=false arr=[0, 5] ca[0]=[] ca[1]=[3] @P()=Stop"
	if strings.Join(got, " ") != want {
		t.Errorf("describe: %q, want %q", strings.Join(got, " "), want)
	}
}

// TestWhoSync: a synchronisation names every component that took part.
func TestWhoSync(t *testing.T) {
	p := compileSrc(t, `
A = a -> Skip;
B = a -> Skip;
C = c -> Skip;
Sys = A || B || C;
`)
	sys, err := p.ProcessByName("Sys")
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := sys.Successors(sys.Initial(), nil)
	got := map[string]string{}
	for _, tr := range ts {
		got[sys.Events().Name(tr.Event)] = sys.Who(sys.Initial(), tr.Event, tr.Target)
	}
	if got["a"] != "A()+B()" || got["c"] != "C()" || len(got) != 2 {
		t.Errorf("who: %v", got)
	}
}

// TestExplicitSearch runs the checks on an Explicit graph (the search path
// for systems without batches), sequentially and in parallel.
func TestExplicitSearch(t *testing.T) {
	x := lts.NewExplicit(nil)
	x.Add(0, "a", 1)
	x.Add(0, "b", 2)
	x.Add(1, "tau", 3)
	x.Add(3, "tau", 1)
	x.Add(2, "c", 4) // 4 has no transitions and is not final: a deadlock
	for _, w := range []int{1, 2} {
		r, err := DeadlockFree(context.Background(), x, Options{Workers: w})
		if err != nil || r.Verdict != lts.Invalid || len(r.Trace) != 3 || r.Trace[2].Event != "c" {
			t.Errorf("workers %d: deadlock %v %v %+v", w, err, r.Verdict, r.Trace)
		}
		r, _ = DivergenceFree(context.Background(), x, Options{Workers: w})
		if r.Verdict != lts.Invalid || len(r.Loop) != 2 {
			t.Errorf("workers %d: divergence %v %+v", w, r.Verdict, r.Loop)
		}
		r, _ = Explore(context.Background(), x, Options{Workers: w})
		if r.Stats.States != 5 || r.Stats.Transitions != 5 {
			t.Errorf("workers %d: %+v", w, r.Stats)
		}
	}
}

// TestExploreReusedSystem: the batched search skips the parent-tree reads
// of targets it knows seen only while it has marked every state the
// system holds; a system explored before (its store full, the new tree
// empty) and a system grown by other callers in between must give the
// same counts and shortest counterexample as a fresh one.
func TestExploreReusedSystem(t *testing.T) {
	src := `
var a[5];
P(i) = [] k:{0..4} @ ([a[k] < 2] s.i.k{a[k] = a[k] + 1} -> P(i));
Sys = ||| i:{0..2} @ P(i);
`
	run := func(sys *Proc) (int64, int64, string) {
		r, err := DeadlockFree(context.Background(), sys, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var evs []string
		for _, s := range r.Trace {
			evs = append(evs, s.Event)
		}
		return r.Stats.States, r.Stats.Transitions, strings.Join(evs, " ")
	}
	fresh, _ := compileSrc(t, src).ProcessByName("Sys")
	s0, t0, tr0 := run(fresh)
	if s0 != 243 || tr0 == "" {
		t.Fatalf("fresh: %d states, trace %q; want 3^5 states and a deadlock", s0, tr0)
	}
	// Explored before: every state is in the store already.
	s1, t1, tr1 := run(fresh)
	// Grown in between: another caller interned some successors first.
	grown, _ := compileSrc(t, src).ProcessByName("Sys")
	var buf []lts.Transition
	for s := lts.State(0); s < 20; s++ {
		buf, _ = grown.Successors(s, buf[:0])
	}
	s2, t2, tr2 := run(grown)
	if s1 != s0 || t1 != t0 || tr1 != tr0 || s2 != s0 || t2 != t0 || tr2 != tr0 {
		t.Errorf("fresh %d/%d %q, again %d/%d %q, grown %d/%d %q", s0, t0, tr0, s1, t1, tr1, s2, t2, tr2)
	}
}

// TestIDRun checks runBatched's levels (idRun) against a slice: sequences
// of ids that run in order, then break off (a gap, a repeat, a smaller
// id) at random moments, with resets between; n, at and slice must give
// the slice's ids, and a level stays a run (no list) while in order.
func TestIDRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 16))
	var r idRun
	var buf []lts.State
	for round := range 2000 {
		r.reset()
		var want []lts.State
		s := lts.State(rng.IntN(1 << 20))
		breakAt := rng.IntN(40)
		if round%3 == 0 {
			breakAt = -1 // in order throughout
		}
		for i := range rng.IntN(600) {
			if i == breakAt || breakAt >= 0 && i > breakAt && rng.IntN(5) == 0 {
				s = lts.State(rng.IntN(1 << 20))
			}
			r.add(s)
			want = append(want, s)
			s++
		}
		if r.n() != len(want) {
			t.Fatalf("round %d: %d ids, want %d", round, r.n(), len(want))
		}
		if inOrder := breakAt < 0 || breakAt >= len(want); inOrder && r.listed && len(want) > 0 {
			t.Fatalf("round %d: %d ids in order listed", round, len(want))
		}
		for i, id := range want {
			if r.at(i) != id {
				t.Fatalf("round %d: at(%d) = %d, want %d", round, i, r.at(i), id)
			}
		}
		for lo := 0; lo < len(want); lo += 7 {
			hi := min(lo+1+rng.IntN(300), len(want))
			if got := r.slice(lo, hi, &buf); !slices.Equal(got, want[lo:hi]) {
				t.Fatalf("round %d: slice(%d, %d) = %v, want %v", round, lo, hi, got, want[lo:hi])
			}
		}
	}
}
