package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/lts"
)

// lateQueue is the bounded FIFO queue of the hand-made models below.
const lateQueue = `var sq[2];
var sn = 0;
Queue() = ([] v:{1..2} @ ([sn < 2] enq.v{sq[sn] = v; sn = sn + 1;} -> Queue()))
       [] ([] v:{1..2} @ ([sn > 0 && sq[0] == v] deq.v{sq[0] = sq[1]; sq[1] = 0; sn = sn - 1;} -> Queue()))
       [] ([sn == 0] deq.0 -> Queue());
`

// lateAgrees is lateAgreesEach with one applied for every linearizes
// assertion of src.
func lateAgrees(t *testing.T, name, src string, applied bool) {
	t.Helper()
	lateAgreesEach(t, name, src, applied)
}

// TestLateArgsNames: a model that already uses the names the rewrite
// invents (the choice's event `choose`, a variable named like the
// rewrite's placeholder for a dead value, a definition named like a
// rewritten copy) gets the verdict of the check without the option.
func TestLateArgsNames(t *testing.T) {
	for i, src := range []string{
		// The user's own event `choose`, hidden: hiding it must not hide
		// the rewrite's choices (thread 0 enqueues 1 or 2, thread 1 may
		// dequeue 1 only: not linearizable when 2 was enqueued). (Any
		// hiding makes the rewrite fall back now; the test is here
		// because it caught the clash of names first.)
		lateQueue + `var q = 0;
Thread(t) = ([] v:{1..2} @ enq_inv.t.v -> tau{q = v;} -> enq_res.t -> Stop)
         [] (deq_inv.t -> choose.t -> ([q != 0] deq_res.t.1 -> Stop));
Impl() = (||| t:{0..1} @ Thread(t)) \ {choose};
#assert Impl() linearizes Queue();
`,
		// The same without hiding, the user's `choose` a process name, a
		// variable and an event the implementation shows (an error of
		// the model, with or without the option).
		lateQueue + `var choose = 0;
var q = 0;
Thread(t) = ([] v:{1..2} @ enq_inv.t.v -> tau{q = v; choose = 1;} -> enq_res.t -> Stop)
         [] (deq_inv.t -> ([q != 0] deq_res.t.1 -> Stop));
Impl() = ||| t:{0..1} @ Thread(t);
#assert Impl() linearizes Queue();
`,
		// A global variable with the name the rewrite gave a value no
		// longer passed on (the split's index variable would hide it).
		lateQueue + `var __none = 0;
var x = 5;
Thread(t) = ([] v:{1..2} @ enq_inv.t.v -> W(t)) [] (deq_inv.t -> (([x == 1] deq_res.t.2 -> Stop) [] ([x != 1] deq_res.t.0 -> Stop)));
W(t) = tau{x = __none;} -> enq_res.t -> Stop;
Impl() = ||| t:{0..1} @ Thread(t);
#assert Impl() linearizes Queue();
`,
		// Definitions named like the rewrite's copies.
		lateQueue + `var q = 0;
Thread(t) = ([] v:{1..2} @ enq_inv.t.v -> Thread__late(t, v)) [] (deq_inv.t -> ([q != 0] deq_res.t.1 -> Stop));
Thread__late(t, v) = tau{q = v;} -> enq_res.t -> Stop;
Impl() = ||| t:{0..1} @ Thread(t);
#assert Impl() linearizes Queue();
`,
	} {
		lateAgrees(t, fmt.Sprintf("names%d.csp", i), src, i != 0)
	}
}

// TestLateArgsFallBack: models the rewrite must not touch are checked as
// without the option (and the report says so): shapes whose events take
// part in something besides the thread's own steps (hiding, alphabetised
// parallel, atomic, interrupt), a thread named by a variable, a family
// over no value, an operation invoked with and without its argument,
// `map` assertions and included files.
func TestLateArgsFallBack(t *testing.T) {
	th := func(body string) string {
		return lateQueue + `var q = 0;
var th = 0;
` + body + `
#assert Impl() linearizes Queue();
`
	}
	cases := map[string]string{
		"hide": th(`Thread(t) = ([] v:{1..2} @ enq_inv.t.v -> tau{q = v;} -> log.t -> enq_res.t -> Stop) [] (deq_inv.t -> ([q != 0] deq_res.t.1 -> Stop));
Impl() = (||| t:{0..1} @ Thread(t)) \ {log};`),
		"parallel": th(`Thread(t) = ([] v:{1..2} @ enq_inv.t.v -> tau{q = v;} -> enq_res.t -> Stop) [] (deq_inv.t -> ([q != 0] deq_res.t.1 -> Stop));
Impl() = Thread(0) || Thread(1);`),
		"atomic": th(`Thread(t) = atomic{[] v:{1..2} @ enq_inv.t.v -> tau{q = v;} -> enq_res.t -> Stop} [] (deq_inv.t -> ([q != 0] deq_res.t.1 -> Stop));
Impl() = ||| t:{0..1} @ Thread(t);`),
		"interrupt": th(`Thread(t) = (([] v:{1..2} @ enq_inv.t.v -> tau{q = v;} -> enq_res.t -> Stop) interrupt (deq_inv.t -> deq_res.t.0 -> Stop)) [] (deq_inv.t -> ([q != 0] deq_res.t.1 -> Stop));
Impl() = ||| t:{0..1} @ Thread(t);`),
		// The thread is a variable that changes before the choice.
		"thread variable": th(`P0() = [] v:{1..2} @ enq_inv.th.v -> tau{th = 1;} -> tau{q = v;} -> enq_res.0 -> Stop;
P1() = [th == 1] deq_inv.1 -> ([q != 0] deq_res.1.1 -> Stop);
Impl() = P0() ||| P1();`),
		// An index variable named like the thread hides it.
		"thread hidden": th(`P(t) = [] v:{1..2} @ enq_inv.t.v -> ([] t:{5..5} @ tau{q = v + t - 5;} -> enq_res.1 -> Stop);
D(t) = deq_inv.t -> ([q != 0] deq_res.t.1 -> Stop);
Impl() = P(1) ||| D(0);`),
		// A family over no value: no invocation at all.
		"empty family": th(`Thread(t) = ([] v:{2..1} @ enq_inv.t.v -> tau{q = 1;} -> enq_res.t -> Stop) [] (deq_inv.t -> ([q != 0] deq_res.t.1 -> Stop));
Impl() = ||| t:{0..1} @ Thread(t);`),
		// enq invoked without its argument elsewhere: not an open call.
		"arity": th(`P0() = [] v:{1..2} @ enq_inv.0.v -> tau{q = v;} -> enq_res.0 -> Stop;
P1() = enq_inv.1 -> enq_res.1 -> Stop;
Impl() = P0() ||| P1();`),
		"map": lateQueue + `var q = 0;
Thread(t) = ([] v:{1..2} @ push.t.v -> tau{q = v;} -> pushed.t -> Stop) [] (pop.t -> ([q != 0] popped.t.1 -> Stop));
Impl() = ||| t:{0..1} @ Thread(t);
#assert Impl() linearizes Queue() map {push.t.v -> enq_inv.t.v, pushed.t -> enq_res.t, pop.t -> deq_inv.t, popped.t.v -> deq_res.t.v};
`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) { lateAgrees(t, name+".csp", src, false) })
	}
	t.Run("include", func(t *testing.T) {
		dir := t.TempDir()
		inc := `var q = 0;
Thread(t) = ([] v:{1..2} @ enq_inv.t.v -> tau{q = v;} -> enq_res.t -> Stop) [] (deq_inv.t -> ([q != 0] deq_res.t.1 -> Stop));
`
		if err := os.WriteFile(filepath.Join(dir, "thread.csp"), []byte(inc), 0o644); err != nil {
			t.Fatal(err)
		}
		main := filepath.Join(dir, "main.csp")
		src := lateQueue + `#include "thread.csp";
Impl() = ||| t:{0..1} @ Thread(t);
#assert Impl() linearizes Queue();
`
		if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		lateAgrees(t, main, src, false)
	})
}

// TestLateArgsPanic: a panic inside the rewrite is not a crash: the model
// is checked as without the option, and the report says why.
func TestLateArgsPanic(t *testing.T) {
	src := lateModels(1)[0]
	want, err := Source(context.Background(), "p.csp", []byte(src), Options{NoLateArgs: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Source(context.Background(), "p.csp", []byte(src), Options{lateMutant: latePanic})
	if err != nil {
		t.Fatal(err)
	}
	for j, a := range got.Assertions {
		if a.Stats.LateArgs || a.Verdict != want.Assertions[j].Verdict || a.Kind == "linearizes" && !strings.Contains(a.LateArgsOff, "internal error") {
			t.Errorf("%s: late %v, %v (%q), want %v", a.Text, a.Stats.LateArgs, a.Verdict, a.LateArgsOff, want.Assertions[j].Verdict)
		}
	}
}

// lateWriteModels are models in which no response shows the argument of
// an open call, so a violation may be seen only when a thread's choice
// is taken with its response (Reduced.SetChoose): the object is a
// register whose write must change its value (w.v possible only when the
// register does not hold v; w_res.T is a bare acknowledgement) or a set
// whose add must add a new value. Every thread invokes before any thread
// chooses (n counts the invocations), so every pair of writes overlaps,
// and a history is linearizable exactly when the writes can be ordered
// so that no write repeats the value before it (the register) or no two
// writes add the same value (the set). With two threads writing from
// {1, 2} (or more threads, more values), some run has two threads write
// the same value: every model is invalid by that definition (and by the
// check without the option).
func lateWriteModels() (out []string) {
	reg := `var x = 0;
Reg() = [] v:{1..V} @ ([x != v] w.v{x = v;} -> Reg());
`
	set := `var in[V + 1];
Reg() = [] v:{1..V} @ ([in[v] == 0] w.v{in[v] = 1;} -> Reg());
`
	for _, spec := range []string{reg, set} {
		for _, tv := range [][2]int{{2, 2}, {2, 3}, {3, 2}} {
			for _, body := range []string{
				// The value read by a silent step (the step is split).
				"tau{n = n + 1;} -> ([n == T] tau{r[t] = v;} -> w_res.t -> Thread(t))",
				// The value never read: chosen just before the response.
				"tau{n = n + 1;} -> ([n == T] tau -> w_res.t -> Stop)",
			} {
				out = append(out, fmt.Sprintf("#define T %d;\n#define V %d;\nvar n = 0;\nvar r[T];\n", tv[0], tv[1])+spec+
					"Thread(t) = [] v:{1..V} @ w_inv.t.v -> "+body+";\nImpl() = ||| t:{0..T-1} @ Thread(t);\n#assert Impl() linearizes Reg();\n")
			}
		}
	}
	return out
}

// TestLateArgsMutantCompressed: the hand mutant "a choice compressed with
// a response keeps every tag" changes verdicts with lazy tags (the
// default) on models whose responses do not show the argument.
func TestLateArgsMutantCompressed(t *testing.T) {
	caught, total := 0, 0
	var perModel []int
	for i, src := range lateWriteModels() {
		name := fmt.Sprintf("write%d.csp", i)
		for _, sym := range []bool{false, true} {
			o := Options{NoSymmetry: !sym}
			want, err := Source(context.Background(), name, []byte(src), Options{NoSymmetry: true, NoReduction: true, NoLateArgs: true})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Source(context.Background(), name, []byte(src), o)
			if err != nil {
				t.Fatal(err)
			}
			a, w := got.Assertions[0], want.Assertions[0]
			if w.Verdict != lts.Invalid || a.Verdict != lts.Invalid || !a.Stats.LateArgs || len(a.Counterexample.History) == 0 {
				t.Fatalf("%s: without %v, late %v (applied %v): every model is invalid\n%s", name, w.Verdict, a.Verdict, a.Stats.LateArgs, src)
			}
			restore := linearize.SetTagMutant(5)
			mut, err := Source(context.Background(), name, []byte(src), o)
			restore()
			if err != nil {
				t.Fatal(err)
			}
			total++
			if mut.Assertions[0].Verdict != lts.Invalid {
				caught++
				perModel = append(perModel, i)
			}
		}
	}
	t.Logf("the mutant changes %d of %d verdicts", caught, total)
	t.Logf("caught on models %v (0-5: the register, 6-11: the set; once without the symmetry, once with)", perModel)
	if caught == 0 {
		t.Error("the mutant is not caught")
	}
}

// TestLateArgsModelUnchanged: the rewritten model shares the model's own
// declarations (checking and compiling it must not change them), and its
// new ones are trees of their own: the model's tree and its printed form
// are the same after the rewrite as before, and so is the model's own
// program (the same traces as a fresh compile, TestLateArgsTraces).
func TestLateArgsModelUnchanged(t *testing.T) {
	for i, src := range lateModels(*linCases / 4) {
		m, err := lang.Parse("x.csp", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		dump, text := lang.Dump(m), string(lang.Format(m))
		c, err := lang.Check(m)
		if err != nil {
			t.Fatal(err)
		}
		lc, _, out, err := lateSetup(m, c, 0, nil)
		if err != nil {
			t.Fatalf("model %d: %v", i, err)
		}
		if lang.Dump(m) != dump || string(lang.Format(m)) != text {
			t.Fatalf("model %d: the rewrite changed the model", i)
		}
		// No node of a new declaration is a node of another declaration.
		owner := map[any]int{}
		for j, d := range out.file.Decls {
			eachNode(d, func(n any) bool {
				if k, ok := owner[n]; ok && k != j {
					t.Fatalf("model %d: declarations %d and %d share %T %v", i, k, j, n, n)
				}
				owner[n] = j
				return true
			})
		}
		if len(lc.Info.Asserts) != len(c.Info.Asserts) {
			t.Fatalf("model %d: assertions %d, want %d", i, len(lc.Info.Asserts), len(c.Info.Asserts))
		}
	}
}

// TestLateArgsPerAssertion: of two linearizes assertions of one model,
// only the one whose implementation has an invocation family is checked
// with the late arguments (the stats of the other do not say so).
func TestLateArgsPerAssertion(t *testing.T) {
	src := lateQueue + `var q = 0;
Thread(t) = ([] v:{1..2} @ enq_inv.t.v -> tau{q = v;} -> enq_res.t -> Stop) [] (deq_inv.t -> ([q != 0] deq_res.t.1 -> Stop));
Deqs(t) = deq_inv.t -> deq_res.t.0 -> Deqs(t);
Impl() = ||| t:{0..1} @ Thread(t);
Other() = ||| t:{0..1} @ Deqs(t);
#assert Impl() linearizes Queue();
#assert Other() linearizes Queue();
`
	got, err := Source(context.Background(), "two.csp", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Source(context.Background(), "two.csp", []byte(src), Options{NoLateArgs: true})
	if err != nil {
		t.Fatal(err)
	}
	for j, a := range got.Assertions {
		if a.Verdict != want.Assertions[j].Verdict || a.Stats.LateArgs != (j == 0) || (j == 1) != (a.LateArgsOff != "") {
			t.Errorf("%s: %v (late %v, %q), want %v", a.Text, a.Verdict, a.Stats.LateArgs, a.LateArgsOff, want.Assertions[j].Verdict)
		}
	}
}
