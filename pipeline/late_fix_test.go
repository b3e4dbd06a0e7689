package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// Models of the second review of the late arguments (issue 20): a
// register, a writer thread 0 whose argument may be chosen late and a
// reader thread 1.
const lateReg = `var sr = 0;
var x = 0;
Reg() = ([] a:{1..2} @ write.a{sr = a;} -> Reg()) [] ([] a:{0..2} @ [sr == a] read.a -> Reg());
R(t) = read_inv.t -> read_res.t.x -> R(t);
`

// lateAgreesEach checks src as lateAgrees does (every verdict and error
// the check's without the option, with and without the symmetry, one and
// two workers), applied[k] saying whether the k-th linearizes assertion
// must use the late arguments (the last one standing for those after it).
func lateAgreesEach(t *testing.T, name, src string, applied ...bool) {
	t.Helper()
	want, err := Source(context.Background(), name, []byte(src), Options{NoSymmetry: true, NoReduction: true, NoLateArgs: true})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, o := range []Options{{NoSymmetry: true}, {}, {Workers: 2}} {
		got, err := Source(context.Background(), name, []byte(src), o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		k := 0
		for j, a := range got.Assertions {
			w := want.Assertions[j]
			if a.Verdict != w.Verdict || a.Error != w.Error {
				t.Errorf("%s: %s (symmetry %v, %d workers): late arguments %v (%s), says %v (%s); without %v (%s)", name, a.Text, !o.NoSymmetry, o.Workers, a.Stats.LateArgs, a.LateArgsOff, a.Verdict, a.Error, w.Verdict, w.Error)
			}
			if w.Kind != "linearizes" {
				continue
			}
			if want := applied[min(k, len(applied)-1)]; a.Stats.LateArgs != want {
				t.Errorf("%s: %s: late arguments used %v, want %v (%s)", name, a.Text, a.Stats.LateArgs, want, a.LateArgsOff)
			}
			if a.Stats.LateArgs == (a.LateArgsOff != "") {
				t.Errorf("%s: %s: late arguments used %v, and LateArgsOff %q", name, a.Text, a.Stats.LateArgs, a.LateArgsOff)
			}
			k++
			if a.Counterexample != nil && a.Stats.LateArgs { // (a check that fell back shows the model's own events)
				for _, e := range slices.Concat(a.Counterexample.Trace, a.Counterexample.Offered) {
					if base, data := lts.SplitName(e); strings.Contains(e, "$") || (base == "write_inv" || base == "enq_inv") && len(data) != 2 {
						t.Errorf("%s: %s: the counterexample shows %s, no event of the model", name, a.Text, e)
					}
				}
			}
		}
	}
}

// TestLateArgsReviewFixes: each model of the review's findings (or a
// smaller one) gets the verdict of the check without the option, and
// the option is used where the rewrite can be sure and not elsewhere.
func TestLateArgsReviewFixes(t *testing.T) {
	w := `W(t) = [] v:{1..2} @ write_inv.t.v -> tau{x = 3 - v;} -> write_res.t -> W(t);
`
	cases := []struct {
		name, src string
		applied   []bool
	}{
		// Finding 1: #alphabet of a reached definition (the copies had
		// none; with || that changed the synchronisation).
		{"alphabet sync", lateReg + `W(t) = [] v:{1..2} @ write_inv.t.v -> e -> tau{x = 3 - v;} -> write_res.t -> W(t);
Gate() = [x == 5] e -> Gate();
#alphabet Gate {g};
Impl() = ((W(0) ||| R(1)) || Gate()) \ {e};
#assert Impl() linearizes Reg();
`, []bool{false}},
		{"alphabet", lateReg + w + `#alphabet W {write_inv.0.1, write_res.0};
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`, []bool{false}},
		// Finding 2: a hide set or a partner naming an invocation with
		// its argument; another component invoking for the thread (an
		// error of the model, reported as without the option).
		{"hide value", lateReg + `W(t) = [] v:{1..2} @ write_inv.t.v -> tau{x = v;} -> Stop;
Impl() = (W(0) ||| R(1)) \ {write_inv.0.1};
#assert Impl() linearizes Reg();
`, []bool{false}},
		{"sync value", lateReg + `W(t) = [] v:{1..2} @ write_inv.t.v -> tau{x = v;} -> write_res.t -> W(t);
Mon() = write_inv.0.1 -> tau{x = 2;} -> Stop;
Impl() = (W(0) ||| R(1)) || Mon();
#assert Impl() linearizes Reg();
`, []bool{false}},
		// Finding 3: names. A global __none (the old placeholder); a
		// #define v read by a second index set; an inner binder named
		// like the thread; a family's set read in a callee where a
		// parameter has the set's constant's name (the split over
		// {1..N} chose from no value: invalid became valid).
		{"none", lateReg + `var __none = 0;
W(t) = [] v:{1..2} @ write_inv.t.v -> B(t);
B(t) = [__none == 0] tau{x = 3;} -> write_res.t -> Stop;
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`, []bool{true}},
		{"second index set", "#define v 0;\n" + lateReg + `W(t) = [] v:{1..2} @ write_inv.t.v -> ([] w:{0..0}; u:{2..v} @ tau{x = 3 - v;} -> write_res.t -> W(t));
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`, []bool{false}},
		{"thread shadowed", lateReg + `W(t) = [] v:{1..2} @ write_inv.t.v -> ([] t:{1..1} @ tau{x = v;} -> Stop);
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`, []bool{false}},
		{"set captured", "#define N 2;\n" + lateReg + `W(t) = [] v:{1..N} @ write_inv.t.v -> Q(t, v, 0);
Q(t, w, N) = tau{x = 3 - w;} -> write_res.t -> W(t);
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`, []bool{true}},
		// The user's names like the rewrite's old ones.
		{"names", lateReg + `var choose = 0;
var none = 0;
W(t) = [] v:{1..2} @ write_inv.t.v -> W__late(t, v);
W__late(t, v) = tau{choose = 1;} -> W_open1_0(t, v);
W_open1_0(t, v) = [none == 0] tau{x = 3 - v;} -> write_res.t -> W(t);
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`, []bool{true}},
		// A channel named like the op (not like its invocation).
		{"channel", "channel write 1;\n" + lateReg + w + `Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`, []bool{true}},
		{"channel inv", "channel write_inv 1;\n" + lateReg + w + `Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`, []bool{false}},
		// Finding 4: a guard on a reference whose callee starts with a
		// visible step: the guard was moved onto the choice only.
		{"guarded reference", lateReg + `var y = 0;
W(t) = [] v:{1..2} @ write_inv.t.v -> ([y == 0] Q(t, v));
Q(t, w) = write_res.t -> tau{x = w;} -> Stop;
R2(t) = read_inv.t -> tau{y = 1;} -> read_res.t.x -> read_inv.t -> read_res.t.x -> Stop;
Impl() = W(0) ||| R2(1);
#assert Impl() linearizes Reg();
`, []bool{false}},
		// A guard on a reference whose callee starts with a silent step
		// that reads the value: split under the guard, as before.
		{"guarded reference split", lateReg + `var y = 0;
W(t) = [] v:{1..2} @ write_inv.t.v -> ([y == 0] Q(t, v));
Q(t, w) = tau{x = 3 - w;} -> write_res.t -> W(t);
R2(t) = read_inv.t -> tau{y = 1;} -> read_res.t.x -> R2(t);
Impl() = W(0) ||| R2(1);
#assert Impl() linearizes Reg();
`, []bool{true}},
		// Finding 5: the values are per assertion: another assertion's
		// object writes with no argument (its write_inv.T was read as an
		// open call), or with other values.
		{"two assertions", lateReg + `var c = 0;
var sc = 0;
W(t) = [] v:{1..2} @ write_inv.t.v -> tau{x = v;} -> write_res.t -> W(t);
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
Flag() = write{sc = 1;} -> Flag() [] ([] a:{0..1} @ [sc == a] read.a -> Flag());
FW(t) = write_inv.t -> tau{c = 1;} -> write_res.t -> FW(t);
FR(t) = read_inv.t -> read_res.t.c -> FR(t);
Impl2() = FW(0) ||| FR(1);
#assert Impl2() linearizes Flag();
`, []bool{true, false}},
		{"two value sets", lateReg + `var sr3 = 0;
Reg3() = ([] a:{1..3} @ write.a{sr3 = a;} -> Reg3()) [] ([] a:{0..3} @ [sr3 == a] read.a -> Reg3());
W(t) = [] v:{1..2} @ write_inv.t.v -> tau{x = v;} -> write_res.t -> W(t);
W3(t) = [] v:{1..3} @ write_inv.t.v -> tau{x = 4 - v;} -> write_res.t -> W3(t);
Impl() = W(0) ||| R(1);
Impl3() = W3(0) ||| R(1);
#assert Impl() linearizes Reg();
#assert Impl3() linearizes Reg3();
`, []bool{true, true}},
		// Finding 7: another component answers for the thread before it
		// chose (found during the search: checked again without the
		// option); an interrupt; a family over no value; a user event
		// choose, hidden.
		{"helper responds", lateReg + `var d = 0;
W(t) = [] v:{1..2} @ write_inv.t.v -> tau{d = 1;} -> tau{x = v;} -> Stop;
H(t) = [d == 1] write_res.t -> Stop;
Impl() = W(0) ||| H(0);
#assert Impl() linearizes Reg();
`, []bool{false}},
		{"helper responds, invalid", lateReg + `var d = 0;
W(t) = [] v:{1..2} @ write_inv.t.v -> tau{d = 1;} -> tau{x = 3 - v;} -> Stop;
H(t) = [d == 1] write_res.t -> Stop;
Impl() = W(0) ||| H(0) ||| R(1);
#assert Impl() linearizes Reg();
`, []bool{false}},
		// (The same in every thread of a symmetric model: the thread
		// symmetry and the partial-order reduction apply.)
		{"helper responds in each thread", lateReg + `var d[2];
W(t) = [] v:{1..2} @ write_inv.t.v -> tau{d[t] = 1;} -> tau{x = v;} -> Stop;
H(t) = [d[t] == 1] write_res.t -> Stop;
P(t) = W(t) ||| H(t);
Impl() = ||| t:{0..1} @ P(t);
#assert Impl() linearizes Reg();
`, []bool{false}},
		{"other component invokes", lateReg + w + `Mon() = write_inv.0.1 -> tau{x = 2;} -> Stop;
Impl() = W(0) ||| R(1) ||| Mon();
#assert Impl() linearizes Reg();
`, []bool{false}},
		// A broken model (thread 1 may respond to no call): the check
		// without the option finds a violation first, the rewritten
		// model's search the error; reported as without the option.
		{"error of the model", "#define T 3;\nvar y = 0;\nvar h[T];\n" + lateReg + `P0(t) = [] v:{1, 2} @ write_inv.t.v -> tau{if (v == 1) { x = 2; } else { x = 1; }} -> write_res.t -> Stop;
P1(t) = read_inv.t -> tau{h[t] = x;} -> tau -> read_res.t.h[t] -> P1_1(t);
P1_1(t) = [] v:{1, 2} @ write_inv.t.v -> ([v == 1] tau{x = 1;} -> write_res.t -> Stop) [] ([v != 1] tau{x = v;} -> write_res.t -> Stop);
P2(t) = read_inv.t -> read_res.t.x -> Stop;
Impl() = P0(0) ||| P1(1) ||| P2(2);
#assert Impl() linearizes Reg();
`, []bool{false}},
		{"interrupt", lateReg + `var s = 0;
W(t) = ([] v:{1..2} @ write_inv.t.v -> tau{s = 1;} -> tau{x = v;} -> write_res.t -> Stop) interrupt ([s == 1] write_res.t -> Stop);
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`, []bool{false}},
		{"empty family", "#define N 0;\n" + lateReg + `W(t) = [] v:{0..N-1} @ write_inv.t.v -> tau{x = 1;} -> tau{x = v;} -> write_res.t -> W(t);
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`, []bool{false}},
		{"hidden choose", lateReg + `W(t) = [] v:{1..2} @ write_inv.t.v -> choose.t -> tau{x = 3 - v;} -> write_res.t -> W(t);
Impl() = (W(0) ||| R(1)) \ {choose};
#assert Impl() linearizes Reg();
`, []bool{false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lateAgreesEach(t, c.name+".csp", c.src, c.applied...)
		})
	}
}

// TestLateArgsOffered: a counterexample's Offered are events of the
// model, what the check without the option offers after the same trace
// (the rewritten model's object offered an open call's every value, and
// for another thread responses no linearization of the model allows).
func TestLateArgsOffered(t *testing.T) {
	for _, src := range []string{
		lateReg + `var __none = 0;
W(t) = [] v:{1..2} @ write_inv.t.v -> B(t);
B(t) = [__none == 0] tau{x = 3;} -> write_res.t -> Stop;
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`,
		lateQueue + `var x = 0;
P0(t) = [] v:{1..2} @ enq_inv.t.v -> tau{x = 1;} -> Stop;
P1(t) = [x == 1] (deq_inv.t -> deq_res.t.2 -> Stop);
Impl() = P0(0) ||| P1(1);
#assert Impl() linearizes Queue();
`,
	} {
		want, err := Source(context.Background(), "o.csp", []byte(src), Options{NoLateArgs: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Source(context.Background(), "o.csp", []byte(src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, w := got.Assertions[0], want.Assertions[0]
		if !a.Stats.LateArgs || a.Verdict != lts.Invalid || w.Verdict != lts.Invalid {
			t.Fatalf("late %v: %v, without %v\n%s", a.Stats.LateArgs, a.Verdict, w.Verdict, src)
		}
		if !slices.Equal(a.Counterexample.Trace, w.Counterexample.Trace) {
			t.Fatalf("traces %v and %v: not the same counterexample\n%s", a.Counterexample.Trace, w.Counterexample.Trace, src)
		}
		if !slices.Equal(a.Counterexample.Offered, w.Counterexample.Offered) {
			t.Errorf("after %v the specification offers %v, without the option %v\n%s", a.Counterexample.Trace, a.Counterexample.Offered, w.Counterexample.Offered, src)
		}
		if len(a.Counterexample.Steps) != len(w.Counterexample.Steps) {
			t.Errorf("%d steps, without the option %d", len(a.Counterexample.Steps), len(w.Counterexample.Steps))
		}
	}
}

// TestLateArgsNamesFresh: the choices' event is no name a model can
// write, and the definitions the rewrite makes (each assertion its own)
// have names the model does not use, also when it uses the rewrite's
// mark.
func TestLateArgsNamesFresh(t *testing.T) {
	src := lateReg + `var none__late = 0;
W(t) = [] v:{1..2} @ write_inv.t.v -> Q(t, v);
Q(t, w) = tau -> write_res.t -> tau{x = w;} -> W(t);
W__late(t) = Stop;
W__late_2(t) = Stop;
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
#assert Impl() linearizes Reg();
`
	m, err := lang.Parse("n.csp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := lang.Check(m)
	if err != nil {
		t.Fatal(err)
	}
	out, err := lateModel(m, c.Info, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lang.Parse("x.csp", []byte("P() = "+out.choose+".0 -> Stop;\n")); err == nil {
		t.Errorf("a model can name an event %s", out.choose)
	}
	used := map[string]bool{}
	for _, d := range m.Decls {
		eachIdent(d, func(id *lang.Ident) { used[id.Name] = true })
	}
	made := map[string]bool{}
	for _, d := range out.file.Decls[len(m.Decls):] {
		n := d.(*lang.ProcDecl).Name.Name
		if used[n] || made[n] {
			t.Errorf("the rewrite makes a definition %s, a name already used", n)
		}
		made[n] = true
	}
	if len(made) < 8 {
		t.Errorf("definitions %v: fewer copies than two assertions make", made)
	}
	lateAgreesEach(t, "n.csp", src, true, true)
}

// TestLateArgsTracesHand: on the review's models, where the rewrite
// applies, the rewritten implementation's traces mapped back are the
// model's, up to 7 events (TestLateArgsTraces on random models).
func TestLateArgsTracesHand(t *testing.T) {
	for _, src := range []string{
		// A guard on a reference to a visible step (finding 4: 32 traces
		// more within 6 events).
		lateReg + `var y = 0;
W(t) = [] v:{1..2} @ write_inv.t.v -> ([y == 0] Q(t, v));
Q(t, w) = write_res.t -> tau{x = w;} -> Stop;
R2(t) = read_inv.t -> tau{y = 1;} -> read_res.t.x -> read_inv.t -> read_res.t.x -> Stop;
Impl() = W(0) ||| R2(1);
#assert Impl() linearizes Reg();
`,
		lateReg + `var y = 0;
W(t) = [] v:{1..2} @ write_inv.t.v -> ([y == 0] Q(t, v));
Q(t, w) = tau{x = 3 - w;} -> write_res.t -> W(t);
R2(t) = read_inv.t -> tau{y = 1;} -> read_res.t.x -> R2(t);
Impl() = W(0) ||| R2(1);
#assert Impl() linearizes Reg();
`,
		// The set read in a callee (finding 3).
		"#define N 2;\n" + lateReg + `W(t) = [] v:{1..N} @ write_inv.t.v -> Q(t, v, 0);
Q(t, w, N) = tau{x = 3 - w;} -> write_res.t -> W(t);
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`,
		lateReg + `var y = 0;
W(t) = ([] v:{1..2} @ write_inv.t.v -> tau -> Q(v, t)) [] (write_inv.t.2 -> Q(1, t));
Q(w, t) = tau{y = 1;} -> [y == 1] tau{x = w;} -> write_res.t -> W(t);
Impl() = W(0) ||| R(1);
#assert Impl() linearizes Reg();
`,
	} {
		m, err := lang.Parse("x.csp", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		c, err := lang.Check(m)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := lateModel(m, c.Info, 0, nil); err != nil || out.asserts[c.Info.Asserts[0]].off != "" {
			t.Logf("not rewritten (%v)", err)
			continue
		}
		orig, mapped := lateTraceSets(t, src, 7, 0)
		for tr := range orig {
			if !mapped[tr] {
				t.Errorf("the rewrite loses the trace %q\n%s", tr, src)
				break
			}
		}
		for tr := range mapped {
			if !orig[tr] {
				t.Errorf("the rewrite adds the trace %q\n%s", tr, src)
				break
			}
		}
	}
}

// TestLateArgsSelection: an assertion checked alone (Options.Assert) gets
// the pairs and the counterexample it gets among all of the model's: only
// the selected assertions are rewritten, and the names of their copies do
// not depend on the selection.
func TestLateArgsSelection(t *testing.T) {
	r := rand.New(rand.NewPCG(*linSeed, 17))
	for i := range 20 {
		src := randomIRModel(r, i%2 == 0)
		all, err := Source(context.Background(), "s.csp", []byte(src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for j, a := range all.Assertions {
			one, err := Source(context.Background(), "s.csp", []byte(src), Options{Assert: fmt.Sprint(j + 1)})
			if err != nil {
				t.Fatal(err)
			}
			b := one.Assertions[0]
			if !a.Stats.LateArgs || b.Stats.LateArgs != a.Stats.LateArgs || b.Verdict != a.Verdict || b.Stats.Pairs != a.Stats.Pairs || fmt.Sprint(b.Counterexample) != fmt.Sprint(a.Counterexample) {
				t.Errorf("case %d, %s: alone %v (late %v), %d pairs, %v; among all %v (late %v), %d pairs, %v", i, a.Text, b.Verdict, b.Stats.LateArgs, b.Stats.Pairs, b.Counterexample, a.Verdict, a.Stats.LateArgs, a.Stats.Pairs, a.Counterexample)
			}
		}
	}
}
