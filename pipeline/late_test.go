package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/lts"
)

// lateCase checks one model with and without LateArgs (symmetry off, as
// the prototype is), with the choices compressed with the responses
// after them and without, and with the object's tags eager (one state
// per value at the invocation) and lazy (the default): modes, if given,
// picks some (bit 0 not compressed, bit 1 eager); it returns the number of assertions whose
// verdicts differ or whose counterexample the history engine rejects, and
// fails t on an error only when there is no mutant.
func lateCase(t *testing.T, name, src string, mutant, wmutant int, modes ...int) (bad int, verdicts []lts.Verdict) {
	t.Helper()
	base := Options{NoSymmetry: true, NoLateArgs: true, Limits: lts.Limits{MaxStates: 1 << 20}}
	want, err := Source(context.Background(), name, []byte(src), base)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer linearize.SetTagMutant(wmutant)()
	if modes == nil {
		modes = []int{0, 1, 2, 3}
	}
	for _, k := range modes {
		nc, eager := k&1 != 0, k&2 != 0
		o := base
		o.NoLateArgs, o.lateMutant, o.lateNoCompress = false, mutant, nc
		restore := linearize.SetEagerTags(eager)
		got, err := Source(context.Background(), name, []byte(src), o)
		restore()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		verdicts = nil
		bad += lateCompare(t, name, src, got, want, mutant != 0 || wmutant != 0, &verdicts)
	}
	return bad, verdicts
}

// lateCompare counts the assertions of got whose verdict differs from
// want's or whose counterexample has no validated history (failing t if
// not mutant), and appends want's verdicts.
func lateCompare(t *testing.T, name, src string, got, want *Report, mutant bool, verdicts *[]lts.Verdict) (bad int) {
	t.Helper()
	for j, a := range got.Assertions {
		w := want.Assertions[j]
		*verdicts = append(*verdicts, w.Verdict)
		if w.Kind != "linearizes" && w.Kind != "linearizes_quasi" {
			continue
		}
		if !a.Stats.LateArgs && mutant && strings.HasPrefix(a.LateArgsOff, lateRetried) {
			// A mutant's search found what the rewrite cannot be (a
			// counterexample of no trace of the model): checked again
			// without the option.
			bad++
			continue
		}
		if !a.Stats.LateArgs {
			t.Fatalf("%s: %s: the late arguments do not apply (%s)\n%s", name, a.Text, a.LateArgsOff, src)
		}
		switch {
		case a.Error != "" && !mutant:
			t.Fatalf("%s: %s: %s\n%s", name, a.Text, a.Error, src)
		case a.Verdict != w.Verdict || a.Error != "":
			bad++
			if !mutant {
				t.Errorf("%s: %s: late says %v, unreduced %v\n%s", name, a.Text, a.Verdict, w.Verdict, src)
			}
		case a.Verdict == lts.Invalid && len(a.Counterexample.History) == 0:
			t.Fatalf("%s: %s: counterexample without its validated history", name, a.Text)
		}
	}
	return bad
}

// TestLateArgsRandom: on the random models of
// TestLinearizesReductionsRandom, the check with arguments chosen late
// gives the verdicts of the unreduced check, and its counterexamples,
// mapped back to the model, pass the history engine.
func TestLateArgsRandom(t *testing.T) {
	counts := map[string]int{}
	for i, src := range lateModels(*linCases) {
		_, vs := lateCase(t, fmt.Sprintf("case%d.csp", i), src, 0, 0)
		for _, v := range vs {
			counts[v.String()]++
		}
	}
	if counts["valid"] < 5 || counts["invalid"] < 5 {
		t.Errorf("too few of a verdict: %v", counts)
	}
	t.Log(counts)
}

// TestLateArgsMutants: each hand mutant of the late arguments changes
// some verdict of the random models.
func TestLateArgsMutants(t *testing.T) {
	for _, m := range []struct {
		name            string
		rewrite, object int
	}{
		{"covered only asks for a state", 0, 1},
		{"the object forgets a value", 0, 2},
		{"the split forgets a value", 2, 0},
		{"a linearization step loses the tag", 0, 4},
		{"a choice compressed with a response keeps every tag", 0, 5},
	} {
		caught, traced := 0, 0
		var byMode [2]int
		models := lateModels(*linCases)
		for i, src := range models {
			any := false
			for eager := range 2 {
				if bad, _ := lateCase(t, fmt.Sprintf("case%d.csp", i), src, m.rewrite, m.object, 2*eager, 2*eager+1); bad > 0 {
					byMode[eager]++
					any = true
				}
			}
			if any {
				caught++
			}
			if m.rewrite != 0 {
				orig, mapped := lateTraceSets(t, src, 7, m.rewrite)
				if len(orig) != len(mapped) {
					traced++
				}
			}
		}
		t.Logf("mutant %q: verdicts differ in %d of %d models (lazy tags %d, eager %d); trace sets in %d", m.name, caught, len(models), byMode[0], byMode[1], traced)
		caught += traced
		if caught == 0 {
			t.Errorf("mutant %q not caught", m.name)
		}
	}
}

// lateCrafted are models in which a thread invokes an enqueue and never
// reaches the step that reads its argument, while another thread's
// response is linearizable for one value only: the violation is seen
// before any choice, so only the coverage test finds it. (The thread
// takes one step after its invocation: an invocation with no next step
// is never taken by the partial-order reduction.)
var lateCrafted = []string{
	lateCraft("deq_inv.t -> deq_res.t.2 -> Stop"),
	lateCraft("deq_inv.t -> deq_res.t.1 -> Stop"),
	lateCraft("(deq_inv.t -> deq_res.t.1 -> Stop) [] (deq_inv.t -> deq_res.t.0 -> Stop)"),
	// Thread 0's enqueue may take effect before its CAS, for either value,
	// and a later dequeue tells the value apart. (With lazy tags the states
	// in which it took effect early are pruned, since the one in which it
	// has not simulates them, so a compressed choice that kept every tag
	// still passes here.)
	`var sq[2];
var sn = 0;
var x = 0;
var y = 0;
var z = 0;
var q = 0;
Queue() = ([] v:{1..2} @ ([sn < 2] enq.v{sq[sn] = v; sn = sn + 1;} -> Queue()))
       [] ([] v:{1..2} @ ([sn > 0 && sq[0] == v] deq.v{sq[0] = sq[1]; sq[1] = 0; sn = sn - 1;} -> Queue()))
       [] ([sn == 0] deq.0 -> Queue());
P0(t) = [] v:{1..2} @ enq_inv.t.v -> tau{x = 1;} -> ([y == 1] tau{q = v; z = 1;} -> enq_res.t -> Stop);
P1(t) = [x == 1] enq_inv.t.2 -> enq_res.t -> deq_inv.t -> deq_res.t.2 -> tau{y = 1;} -> ([z == 1] deq_inv.t -> deq_res.t.2 -> Stop);
Impl() = P0(0) ||| P1(1);
#assert Impl() linearizes Queue();
`,
	// The value read in a process argument (the step before is split) and
	// in a guard.
	`var sq[2];
var sn = 0;
var x = 0;
Queue() = ([] v:{1..2} @ ([sn < 2] enq.v{sq[sn] = v; sn = sn + 1;} -> Queue()))
       [] ([] v:{1..2} @ ([sn > 0 && sq[0] == v] deq.v{sq[0] = sq[1]; sq[1] = 0; sn = sn - 1;} -> Queue()))
       [] ([sn == 0] deq.0 -> Queue());
P0(t) = [] v:{1..2} @ enq_inv.t.v -> tau -> W(t, 3 - v);
W(t, w) = ([w == 1] tau{x = 3 - w;} -> enq_res.t -> Stop) [] ([w == 2] tau{x = 0;} -> tau{x = 1;} -> enq_res.t -> Stop);
P1(t) = deq_inv.t -> (([x > 0] deq_res.t.x -> P1(t)) [] ([x == 0] deq_res.t.0 -> P1(t)));
Impl() = P0(0) ||| P1(1);
#assert Impl() linearizes Queue();
#assert Impl() linearizes<quasi 1 on {deq} barrier {deq.0}> Queue();
`,
}

// lateCraft is a model in which thread 0 invokes an enqueue, sets x and
// stops, and thread 1, once x is set, runs p1.
func lateCraft(p1 string) string {
	return `#define T 2;
var sq[2];
var sn = 0;
var x = 0;
Queue() = ([] v:{1..2} @ ([sn < 2] enq.v{sq[sn] = v; sn = sn + 1;} -> Queue()))
       [] ([] v:{1..2} @ ([sn > 0 && sq[0] == v] deq.v{sq[0] = sq[1]; sq[1] = 0; sn = sn - 1;} -> Queue()))
       [] ([sn == 0] deq.0 -> Queue());
P0(t) = [] v:{1..2} @ enq_inv.t.v -> tau{x = 1;} -> Stop;
P1(t) = [x == 1] (` + p1 + `);
Impl() = P0(0) ||| P1(1);
#assert Impl() linearizes Queue();
#assert Impl() linearizes<quasi 1 on {deq} barrier {deq.0}> Queue();
`
}

// lateModels are the random models of TestLinearizesReductionsRandom and,
// in half of the models whose threads differ, thread 0's enqueue never
// reaches its write (it stops one step after the invocation), plus
// lateCrafted.
func lateModels(n int) []string {
	r := rand.New(rand.NewPCG(*linSeed, 3))
	var out []string
	for i := range n {
		src := randomIRModel(r, i%2 == 0)
		if i%4 == 1 {
			lines := strings.Split(src, "\n")
			for j, l := range lines {
				if strings.HasPrefix(l, "P0E(t, v) = ") {
					lines[j] = "P0E(t, v) = tau -> Stop;"
				}
			}
			src = strings.Join(lines, "\n")
		}
		out = append(out, src)
	}
	return append(out, lateCrafted...)
}

// traces returns the traces of sys with at most n events that count
// (count says which), each as its names joined by spaces.
func traces(t *testing.T, sys lts.System, n int, count func(string) bool) map[string]bool {
	t.Helper()
	type node struct {
		s     lts.State
		trace string
		k     int
	}
	seen := map[node]bool{}
	out := map[string]bool{"": true}
	stack := []node{{sys.Initial(), "", 0}}
	var buf []lts.Transition
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var err error
		if buf, err = sys.Successors(x.s, buf[:0]); err != nil {
			t.Fatal(err)
		}
		for _, tr := range buf {
			y := node{tr.Target, x.trace, x.k}
			if tr.Event != lts.Tau {
				name := sys.Events().Name(tr.Event)
				if count(name) {
					y.k++
				}
				if y.k > n {
					continue
				}
				y.trace = strings.TrimSpace(x.trace + " " + name)
				out[y.trace] = true
			}
			if !seen[y] {
				seen[y] = true
				stack = append(stack, y)
			}
		}
		if len(seen) > 2_000_000 {
			t.Fatal("too many traces")
		}
	}
	return out
}

// lateTraceSets returns the traces (up to n events) of the linearizes
// assertion's implementation in src, and those of its rewrite mapped back
// by lateTraces.
func lateTraceSets(t *testing.T, src string, n, mutant int) (orig, mapped map[string]bool) {
	m, err := lang.Parse("x.csp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := lang.Check(m)
	if err != nil {
		t.Fatal(err)
	}
	lc, lprog, lout, err := lateSetup(m, c, mutant, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The model's own program compiled after the rewritten one, as
	// Parsed does.
	prog, err := csp.Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	a, la := c.Info.Asserts[0], lc.Info.Asserts[0]
	impl, err := prog.Process(a.Left)
	if err != nil {
		t.Fatal(err)
	}
	limpl, err := lprog.Process(la.Left)
	if err != nil {
		t.Fatal(err)
	}
	orig = traces(t, impl, n, func(string) bool { return true })
	late := traces(t, limpl, n, func(s string) bool { return !strings.HasPrefix(s, lout.choose+".") })
	mapped = map[string]bool{}
	for tr := range late {
		var names []string
		if tr != "" {
			names = strings.Split(tr, " ")
		}
		ms, err := lateTraces(names, lout.asserts[a].values, lout.choose)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range ms {
			mapped[strings.Join(x, " ")] = true
		}
	}
	return orig, mapped
}

// TestLateArgsTraces: the rewritten implementation, its traces mapped back
// (each open invocation given its choice's value, or every value), has
// exactly the traces of the original, up to 7 events: the rewrite neither
// loses nor adds behaviour.
func TestLateArgsTraces(t *testing.T) {
	for i, src := range lateModels(*linCases / 2) {
		orig, mapped := lateTraceSets(t, src, 7, 0)
		for tr := range orig {
			if !mapped[tr] {
				t.Fatalf("model %d: the rewrite loses the trace %q\n%s", i, tr, src)
			}
		}
		for tr := range mapped {
			if !orig[tr] {
				t.Fatalf("model %d: the rewrite adds the trace %q\n%s", i, tr, src)
			}
		}
	}
}

// TestLateArgsSymmetry: with the thread symmetry too, the late arguments
// give the verdicts of the unreduced check, with counterexamples the
// history engine confirms, and two workers the pairs and counterexample
// of one.
func TestLateArgsSymmetry(t *testing.T) {
	sym, proved := 0, 0
	for i, src := range lateModels(*linCases) {
		name := fmt.Sprintf("case%d.csp", i)
		want, err := Source(context.Background(), name, []byte(src), Options{NoSymmetry: true, NoReduction: true, NoLateArgs: true, Limits: lts.Limits{MaxStates: 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		var one *Report
		for _, w := range []int{1, 2} {
			got, err := Source(context.Background(), name, []byte(src), Options{Workers: w, Limits: lts.Limits{MaxStates: 1 << 20}})
			if err != nil {
				t.Fatal(err)
			}
			var vs []lts.Verdict
			lateCompare(t, name, src, got, want, false, &vs)
			if w == 1 {
				one = got
				for _, a := range got.Assertions {
					sym++
					if a.Stats.Symmetry > 0 {
						proved++
					}
				}
				continue
			}
			for j, a := range got.Assertions {
				if a.Stats.Pairs != one.Assertions[j].Stats.Pairs || fmt.Sprint(a.Counterexample) != fmt.Sprint(one.Assertions[j].Counterexample) {
					t.Fatalf("%s: %s: two workers %d pairs, one %d", name, a.Text, a.Stats.Pairs, one.Assertions[j].Stats.Pairs)
				}
			}
		}
	}
	if proved < 20 {
		t.Errorf("the symmetry was proved in only %d of %d assertions", proved, sym)
	}
	t.Logf("symmetry proved in %d of %d assertions", proved, sym)
}

// TestLateArgsNotApplied: a model the rewrite does not know (here a
// guarded visible step with the value open, and an if) is checked as
// without the option, and says so.
func TestLateArgsNotApplied(t *testing.T) {
	for _, body := range []string{
		"[x == 0] enq_res.t -> P0(t)",
		"if (v == 1) { tau{x = 1;} -> enq_res.t -> P0(t) } else { tau{x = 2;} -> enq_res.t -> P0(t) }",
	} {
		src := `var sq[2];
var sn = 0;
var x = 0;
Queue() = ([] v:{1..2} @ ([sn < 2] enq.v{sq[sn] = v; sn = sn + 1;} -> Queue()))
       [] ([] v:{1..2} @ ([sn > 0 && sq[0] == v] deq.v{sq[0] = sq[1]; sq[1] = 0; sn = sn - 1;} -> Queue()))
       [] ([sn == 0] deq.0 -> Queue());
P0(t) = [] v:{1..2} @ enq_inv.t.v -> ` + body + `;
W(t, v) = tau{x = v;} -> enq_res.t -> P0(t);
P1(t) = deq_inv.t -> ((deq_res.t.1 -> P1(t)) [] (deq_res.t.2 -> P1(t)) [] (deq_res.t.0 -> P1(t)));
Impl() = P0(0) ||| P1(1);
#assert Impl() linearizes Queue();
`
		want, err := Source(context.Background(), "x.csp", []byte(src), Options{NoLateArgs: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Source(context.Background(), "x.csp", []byte(src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		a := got.Assertions[0]
		if a.Stats.LateArgs || a.LateArgsOff == "" || a.Verdict != want.Assertions[0].Verdict || a.Stats.Pairs != want.Assertions[0].Stats.Pairs {
			t.Errorf("%s: late %v (%q), %v in %d pairs; without the option %v in %d", body, a.Stats.LateArgs, a.LateArgsOff, a.Verdict, a.Stats.Pairs, want.Assertions[0].Verdict, want.Assertions[0].Stats.Pairs)
		}
	}
}

// TestLateArgsKeepChoices: a plain choice of an argument chosen late
// keeps a reduced set reduced (linearize.Wrapper.KeepsReduced; the
// argument is in its comment and in docs/linearizes-log.md): on the random
// models of TestLateArgsRandom, with lazy and eager tags and with the
// choices compressed with their responses and not (uncompressed, every
// choice is plain), every set a plain choice made and the search
// interned without Reduce is one that the reference reduction
// (linearize's referenceReduce) leaves as it is, every set reduced
// equals the reference's, and the verdicts and pairs are those with
// KeepsReduced off. The hand mutant that claims every choice, also one
// compressed with its response, is caught.
func TestLateArgsKeepChoices(t *testing.T) {
	type run struct {
		verdict lts.Verdict
		pairs   int64
	}
	check := func(keep int) ([]run, *linearize.ReduceCheck) {
		c := &linearize.ReduceCheck{}
		defer linearize.SetReduceCheck(c)()
		defer linearize.SetKeepMutant(keep)()
		var out []run
		for i, src := range lateModels(*linCases) {
			for k := range 4 {
				o := Options{NoSymmetry: k&1 != 0, lateNoCompress: k&2 != 0, Limits: lts.Limits{MaxStates: 1 << 20}}
				restore := linearize.SetEagerTags(i%2 == 1)
				rep, err := Source(context.Background(), fmt.Sprintf("case%d.csp", i), []byte(src), o)
				restore()
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range rep.Assertions {
					out = append(out, run{a.Verdict, a.Stats.Pairs})
				}
			}
		}
		return out, c
	}
	want, c := check(0)
	t.Logf("%d checks: %d sets reduced, %d kept unreduced, %d of them after a plain choice", len(want), c.Reduced.Load(), c.Kept.Load(), c.KeptChoices.Load())
	if c.Bad.Load() != 0 || c.BadKept.Load() != 0 {
		t.Fatalf("%d reductions and %d kept sets (%d after a plain choice) unlike the reference", c.Bad.Load(), c.BadKept.Load(), c.BadChoices.Load())
	}
	if c.KeptChoices.Load() < 100 {
		t.Fatalf("only %d sets kept after a plain choice: the test shows little", c.KeptChoices.Load())
	}
	got, off := check(-1)
	if off.Kept.Load() != 0 || !slices.Equal(got, want) {
		t.Errorf("KeepsReduced off: %d kept; verdicts and pairs equal: %v", off.Kept.Load(), slices.Equal(got, want))
	}
	_, mc := check(2)
	t.Logf("mutant (every choice, also one compressed with its response): %d kept sets unlike the reference", mc.BadKept.Load())
	if mc.BadKept.Load() == 0 {
		t.Error("the mutant went unnoticed")
	}
}
