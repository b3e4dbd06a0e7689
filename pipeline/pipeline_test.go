package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/models"
)

// TestExpectations runs every model of testdata/pipeline end to end and compares
// each verdict with the `// expect:` comment of its assertion (taken from
// docs/verdicts.md or worked out by hand, never from the tool).
func TestExpectations(t *testing.T) {
	files, err := filepath.Glob("../testdata/pipeline/*.csp")
	if err != nil || len(files) == 0 {
		t.Fatalf("no models in testdata/pipeline: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want := models.Expectations(src)
			rep, err := Source(context.Background(), f, src, Options{Limits: lts.Limits{Timeout: time.Minute}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Assertions) != len(want) {
				t.Fatalf("%d assertions, %d expectations", len(rep.Assertions), len(want))
			}
			for i, a := range rep.Assertions {
				if want[i].Verdict == lts.Unknown {
					t.Errorf("line %d: no expectation", a.Line)
					continue
				}
				if a.Error != "" {
					t.Errorf("line %d: %s: error %s", a.Line, a.Text, a.Error)
				}
				if a.Verdict != want[i].Verdict {
					t.Errorf("line %d: %s: got %v, want %v", a.Line, a.Text, a.Verdict, want[i].Verdict)
				}
				// An unreachable goal has no trace to show.
				// A refusal or divergence may come after the empty trace.
				if a.Verdict == lts.Invalid && a.Kind != "reaches" && (a.Counterexample == nil || len(a.Counterexample.Trace) == 0 && a.Counterexample.Kind == "") {
					t.Errorf("line %d: invalid without a counterexample", a.Line)
				}
			}
		})
	}
}

const small = `
var x = 0;
Count() = inc{x = x + 1;} -> ([x < 3] Count() [] [x >= 3] done -> Stop);
Spec() = a -> b -> Spec();
Swap() = b -> a -> Swap();
Big() = [] i:{0..9} @ step.i{x = (x * 10 + i) % 1000003;} -> Big();
Div() = div{x = 1 / x;} -> Stop;
#assert Count() deadlockfree;
#assert Swap() refines Spec();
#assert Swap() refines<quasi 1> Spec();
#assert Big() deadlockfree;
#assert Div() deadlockfree;
#assert Count() |= [] <> done;
`

func TestDeadlockCounterexample(t *testing.T) {
	rep, err := Source(context.Background(), "small.csp", []byte(small), Options{Assert: "1"})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Assertions[0]
	if a.Verdict != lts.Invalid || a.Text != "Count() deadlockfree" || a.Line != 8 {
		t.Fatalf("got %+v", a)
	}
	// By hand: three increments, then done, then Stop.
	got := strings.Join(a.Counterexample.Trace, " ")
	if got != "inc inc inc done" {
		t.Errorf("trace %q, want %q", got, "inc inc inc done")
	}
	first := a.Counterexample.Steps[0]
	if len(first.Changed) != 1 || first.Changed[0].Name != "x" || first.Changed[0].Value != "1" {
		t.Errorf("first step changed %v, want x = 1", first.Changed)
	}
}

func TestRefinementCounterexample(t *testing.T) {
	rep, err := Source(context.Background(), "small.csp", []byte(small), Options{Assert: "Swap() refines"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Assertions) != 2 {
		t.Fatalf("selected %d assertions, want 2", len(rep.Assertions))
	}
	plain, quasi := rep.Assertions[0], rep.Assertions[1]
	if plain.Verdict != lts.Invalid || strings.Join(plain.Counterexample.Trace, " ") != "b" ||
		strings.Join(plain.Counterexample.Offered, " ") != "a" {
		t.Errorf("plain: %+v %+v", plain, plain.Counterexample)
	}
	// b a b a ... is within displacement 1 of a b a b ...
	if quasi.Verdict != lts.Valid {
		t.Errorf("quasi 1: %v, want valid", quasi.Verdict)
	}
}

func TestLimitsGiveUnknown(t *testing.T) {
	rep, err := Source(context.Background(), "small.csp", []byte(small), Options{Assert: "4", Limits: lts.Limits{MaxStates: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Assertions[0]
	if a.Verdict != lts.Unknown || !strings.Contains(a.Reason, "state limit") || a.Stats.States < 1000 {
		t.Errorf("got %v %q %+v", a.Verdict, a.Reason, a.Stats)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err = Source(ctx, "small.csp", []byte(small), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rep.Assertions {
		if a.Verdict != lts.Unknown {
			t.Errorf("cancelled: %s gave %v", a.Text, a.Verdict)
		}
	}
}

func TestRuntimeErrorAndUnsupported(t *testing.T) {
	rep, err := Source(context.Background(), "small.csp", []byte(small), Options{Assert: "Div"})
	if err != nil {
		t.Fatal(err)
	}
	div := rep.Assertions[0]
	if rep, err = Source(context.Background(), "small.csp", []byte(small), Options{Assert: "|="}); err != nil {
		t.Fatal(err)
	}
	ltl := rep.Assertions[0]
	if !strings.Contains(div.Error, "small.csp:7:") || !strings.Contains(div.Error, "division by zero") {
		t.Errorf("division by zero: error %q", div.Error)
	}
	// Count() deadlocks after done: the deadlock loop has no done.
	if ltl.Verdict != lts.Invalid || ltl.Counterexample == nil || ltl.Counterexample.Steps[len(ltl.Counterexample.Steps)-1].Event != "(deadlock)" {
		t.Errorf("LTL: %v %q %+v", ltl.Verdict, ltl.Reason, ltl.Counterexample)
	}
}

func TestBadInput(t *testing.T) {
	_, err := Source(context.Background(), "bad.csp", []byte("P() = a -> ;\n"), Options{})
	var list lang.ErrorList
	if !errors.As(err, &list) || list[0].Pos.Line != 1 {
		t.Fatalf("want a positioned error on line 1, got %v", err)
	}
	_, err = Source(context.Background(), "small.csp", []byte(small), Options{Assert: "99"})
	if err == nil || !strings.Contains(err.Error(), "no assertion 99") {
		t.Errorf("assertion 99: %v", err)
	}
}

func TestJSONSchema(t *testing.T) {
	rep, err := Source(context.Background(), "small.csp", []byte(small), Options{Assert: "2"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		File       string `json:"file"`
		Assertions []struct {
			Line    int    `json:"line"`
			Text    string `json:"text"`
			Kind    string `json:"kind"`
			Verdict string `json:"verdict"`
			Stats   struct {
				States      *int64   `json:"states"`
				Transitions *int64   `json:"transitions"`
				Seconds     *float64 `json:"seconds"`
				PeakBytes   *int64   `json:"peak_bytes"`
			} `json:"stats"`
			Counterexample struct {
				Trace []string `json:"trace"`
			} `json:"counterexample"`
		} `json:"assertions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	a := doc.Assertions[0]
	if doc.File != "small.csp" || a.Line != 9 || a.Kind != "refines" || a.Verdict != "invalid" ||
		a.Stats.States == nil || a.Stats.Transitions == nil || a.Stats.Seconds == nil || a.Stats.PeakBytes == nil ||
		len(a.Counterexample.Trace) != 1 {
		t.Errorf("schema: %s", b)
	}
}

// TestValidateLTS: the re-validation of single-process counterexamples
// accepts what the search found and rejects tampered traces.
func TestValidateLTS(t *testing.T) {
	m, err := lang.Parse("small.csp", []byte(small))
	if err != nil {
		t.Fatal(err)
	}
	c, err := lang.Check(m)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := csp.Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Info.Asserts[0] // Count() deadlockfree: invalid after inc inc inc done
	r, err := csp.CheckAssertion(context.Background(), prog, a, csp.Options{})
	if err != nil || r.Verdict != lts.Invalid {
		t.Fatalf("%v %v", r, err)
	}
	if err := validateLTS(prog, a, r); err != nil {
		t.Fatalf("genuine counterexample rejected: %v", err)
	}
	short := *r
	short.Trace = r.Trace[:len(r.Trace)-1] // stops before done: not a deadlock
	if err := validateLTS(prog, a, &short); err == nil {
		t.Error("a trace that ends in a live state was accepted")
	}
	wrongVars := *r
	wrongVars.Trace = slices.Clone(r.Trace)
	wrongVars.Trace[1].Vars = []lts.Binding{{Name: "x", Value: "7"}}
	if err := validateLTS(prog, a, &wrongVars); err == nil {
		t.Error("a step with the wrong variables was accepted")
	}
	wrongEvent := *r
	wrongEvent.Trace = slices.Clone(r.Trace)
	wrongEvent.Trace[len(r.Trace)-1].Event = "inc"
	if err := validateLTS(prog, a, &wrongEvent); err == nil {
		t.Error("a step the process cannot make was accepted")
	}
}

// TestProgress: a long single-process check reports progress while it runs.
func TestProgress(t *testing.T) {
	var calls []Progress
	opt := Options{Assert: "Big()", Limits: lts.Limits{Timeout: 600 * time.Millisecond}, Progress: func(p Progress) { calls = append(calls, p) }}
	if _, err := Source(context.Background(), "small.csp", []byte(small), opt); err != nil {
		t.Fatal(err)
	}
	if len(calls) == 0 {
		t.Fatal("no progress reported in 600 ms")
	}
	last := calls[len(calls)-1]
	if last.Assertion != "Big() deadlockfree" || last.States == 0 {
		t.Errorf("last progress %+v", last)
	}
}

// TestSymmetryAgrees runs every refinement of the library's model instances
// with and without the thread-symmetry reduction: the verdicts, the number
// of specification macrostates reached and the number of steps of the
// shortest counterexample must agree (the renamings preserve traces and the distance
// from the symmetric initial state), and the reduced search must store fewer
// states. With symmetry, 4 workers must give what 1 gives, counterexample
// included, and every verdict must be the one the model's comments expect.
func TestSymmetryAgrees(t *testing.T) {
	files, _ := filepath.Glob("../models/testdata/*.csp")
	three, _ := filepath.Glob("../testdata/sym/*.csp") // three threads
	files = append(files, three...)
	if len(files) == 0 {
		t.Fatal("no model instances")
	}
	reduced := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{Limits: lts.Limits{Timeout: time.Minute}, Workers: 1}
		with, err := Source(context.Background(), f, src, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Workers = 4
		wide, err := Source(context.Background(), f, src, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Workers, opt.NoSymmetry = 1, true
		without, err := Source(context.Background(), f, src, opt)
		if err != nil {
			t.Fatal(err)
		}
		want := models.Expectations(src)
		for i, a := range with.Assertions {
			if i < len(want) && want[i].Verdict != lts.Unknown && a.Verdict != want[i].Verdict {
				t.Errorf("%s: %s: %v, the model expects %v", filepath.Base(f), a.Text, a.Verdict, want[i].Verdict)
			}
			b := without.Assertions[i]
			if b.Stats.Symmetry != 0 {
				t.Fatalf("%s: %s: reduced with NoSymmetry", f, b.Text)
			}
			if a.Stats.Symmetry == 0 {
				continue
			}
			reduced++
			w := wide.Assertions[i]
			aj, _ := json.Marshal([]any{a.Verdict, a.Stats.States, a.Stats.Pairs, a.Counterexample})
			wj, _ := json.Marshal([]any{w.Verdict, w.Stats.States, w.Stats.Pairs, w.Counterexample})
			if string(aj) != string(wj) {
				t.Errorf("%s: %s: 4 workers give another result than 1:\n%s\n%s", filepath.Base(f), a.Text, aj, wj)
			}
			if a.Verdict != b.Verdict || a.Error != b.Error {
				t.Errorf("%s: %s: %v (%s) with symmetry, %v (%s) without", filepath.Base(f), a.Text, a.Verdict, a.Error, b.Verdict, b.Error)
				continue
			}
			// A linearizes check renames the specification's side too (pair
			// symmetry): it reaches other macrostates.
			lin := strings.Contains(a.Text, " linearizes")
			if a.Verdict == lts.Valid && !lin && a.Stats.SpecStates != b.Stats.SpecStates {
				t.Errorf("%s: %s: %d spec macrostates with symmetry, %d without", filepath.Base(f), a.Text, a.Stats.SpecStates, b.Stats.SpecStates)
			}
			if a.Verdict == lts.Valid && a.Stats.States >= b.Stats.States {
				t.Errorf("%s: %s: %d states with symmetry, %d without", filepath.Base(f), a.Text, a.Stats.States, b.Stats.States)
			}
			if a.Verdict == lts.Invalid && len(a.Counterexample.Steps) != len(b.Counterexample.Steps) {
				t.Errorf("%s: %s: counterexample of %d steps with symmetry, %d without", filepath.Base(f), a.Text, len(a.Counterexample.Steps), len(b.Counterexample.Steps))
			}
		}
	}
	if reduced == 0 {
		t.Fatal("no assertion was reduced")
	}
	t.Logf("%d assertions reduced", reduced)
}

// TestSymmetricDeadlock: a deadlock found in the symmetry-reduced search is
// reported on the unreduced model (re-validated there by validateLTS), as
// long as the one found without the reduction, and a divergence check
// (a cycle property) is not reduced.
func TestSymmetricDeadlock(t *testing.T) {
	const src = `var lock = 0;
var held = [0, 0];
P(t) = [lock == 0] acq{lock = 1; held[t] = 1} -> ([lock == 0] again{held[t] = 2} -> P(t)
                                                 [] rel{lock = 0; held[t] = 0} -> P(t));
Sys() = ||| t:{0..1} @ P(t);
#assert Sys() deadlockfree; // expect: valid
Bad(t) = [lock == 0] acq{lock = 1; held[t] = 1} -> [lock == 0] again{held[t] = 2} -> Bad(t);
Dead() = ||| t:{0..1} @ Bad(t);
#assert Dead() deadlockfree; // expect: invalid
#assert Dead() divergencefree; // expect: valid
`
	var got [2]*Report
	for i, off := range []bool{false, true} {
		rep, err := Source(context.Background(), "sym.csp", []byte(src), Options{NoSymmetry: off, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		got[i] = rep
	}
	with, without := got[0].Assertions, got[1].Assertions
	for i, want := range []lts.Verdict{lts.Valid, lts.Invalid, lts.Valid} {
		if with[i].Verdict != want || without[i].Verdict != want || with[i].Error != "" {
			t.Fatalf("%s: %v / %v (%s), want %v", with[i].Text, with[i].Verdict, without[i].Verdict, with[i].Error, want)
		}
	}
	if with[0].Stats.Symmetry != 2 || with[0].Stats.States >= without[0].Stats.States {
		t.Errorf("deadlockfree not reduced: %+v against %+v", with[0].Stats, without[0].Stats)
	}
	if with[1].Stats.Symmetry != 2 || len(with[1].Counterexample.Steps) != len(without[1].Counterexample.Steps) {
		t.Errorf("deadlock: %+v, %d steps; without symmetry %d steps", with[1].Stats, len(with[1].Counterexample.Steps), len(without[1].Counterexample.Steps))
	}
	if with[2].Stats.Symmetry != 0 {
		t.Errorf("divergencefree was reduced")
	}
}
