package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

var expectRE = regexp.MustCompile(`// expect: (valid|invalid)(?: fair: (\w+))?`)

// TestLTLModels checks the LTL assertions of testdata/ltl/*.csp against
// the verdicts reasoned by hand in their comments; each assertion is on
// one line, with its expected verdict and fairness after it.
func TestLTLModels(t *testing.T) {
	files, _ := filepath.Glob("../testdata/ltl/*.csp")
	if len(files) == 0 {
		t.Fatal("no models")
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, line := range strings.Split(string(src), "\n") {
			if !strings.HasPrefix(line, "#assert") {
				continue
			}
			n++
			m := expectRE.FindStringSubmatch(line)
			if m == nil || !strings.Contains(line, "|=") {
				continue
			}
			t.Run(filepath.Base(file)+":"+strconv.Itoa(i+1), func(t *testing.T) {
				rep, err := Source(context.Background(), file, src, Options{Assert: strconv.Itoa(n), Fair: m[2]})
				if err != nil {
					t.Fatal(err)
				}
				a := rep.Assertions[0]
				if a.Error != "" || a.Verdict.String() != m[1] {
					t.Fatalf("%s (fair %q): %v, want %s; error %q reason %q", a.Text, m[2], a.Verdict, m[1], a.Error, a.Reason)
				}
				if (a.Verdict == lts.Invalid) != (a.Counterexample != nil) {
					t.Fatalf("%s: verdict %v with counterexample %v", a.Text, a.Verdict, a.Counterexample)
				}
			})
		}
	}
}

// TestLTLErrors: a bad formula or atom is an error at its position in the
// model file, not a verdict.
func TestLTLErrors(t *testing.T) {
	tests := []struct{ assert, want string }{
		{"#assert P() |= [] (a &&\n   ));", "e.csp:4:4: expected a formula (an event, a proposition, true, false, '(' or a unary operator), found ')'"},
		{"#assert P() |= [] c.k;", "e.csp:3:19: k in event c.k is not a constant"},
		{"#assert P() |= N;", "e.csp:3:16: N is a constant, not a proposition or an event"},
		{"#assert P() |= a b;", "e.csp:3:18: expected an operator or the end of the formula, found name b"},
	}
	for _, tc := range tests {
		src := "P() = a -> P();\n#define N 1;\n" + tc.assert + "\n"
		rep, err := Source(context.Background(), "e.csp", []byte(src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a := rep.Assertions[0]; a.Verdict != lts.Unknown || a.Error != tc.want {
			t.Errorf("%s: %v, error %q, want %q", tc.assert, a.Verdict, a.Error, tc.want)
		}
	}
}

// TestLTLCounterexample: the lasso of `[]<> a` on a process that can do b
// forever is reported with its cycle, and the run's events.
func TestLTLCounterexample(t *testing.T) {
	src := "P() = a -> P() [] b -> P();\n#assert P() |= []<> a;\n"
	rep, err := Source(context.Background(), "c.csp", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Assertions[0]
	if a.Verdict != lts.Invalid || a.Counterexample == nil {
		t.Fatalf("%v %+v", a.Verdict, a)
	}
	ce := a.Counterexample
	if strings.Trim(strings.Join(ce.Trace, " "), "b ") != "" || !strings.HasSuffix(ce.Explanation, "forever") {
		t.Errorf("trace %v, explanation %q", ce.Trace, ce.Explanation)
	}
	rep, err = Source(context.Background(), "c.csp", []byte(src), Options{Fair: "weak"})
	if err != nil {
		t.Fatal(err)
	}
	if a := rep.Assertions[0]; a.Verdict != lts.Valid || a.Reason != "under weak fairness" {
		t.Errorf("weak: %v %q", a.Verdict, a.Reason)
	}
}

// TestLTLLimits: a state limit gives unknown with the figures so far; a bad
// fairness is an error of the assertion.
func TestLTLLimits(t *testing.T) {
	rep, err := Source(context.Background(), "counters.csp", []byte(counters), Options{Limits: lts.Limits{MaxStates: 50000}})
	if err != nil {
		t.Fatal(err)
	}
	if a := rep.Assertions[0]; a.Verdict != lts.Unknown || !strings.HasPrefix(a.Reason, "state limit") || a.Stats.Pairs < 50000 {
		t.Errorf("%v %q %+v", a.Verdict, a.Reason, a.Stats)
	}
	rep, err = Source(context.Background(), "counters.csp", []byte(counters), Options{Fair: "sometimes"})
	if err != nil {
		t.Fatal(err)
	}
	if a := rep.Assertions[0]; a.Verdict != lts.Unknown || !strings.Contains(a.Error, "unknown fairness") {
		t.Errorf("%v %q", a.Verdict, a.Error)
	}
}

// TestLTLEarly: without fairness a violation is reported when its cycle
// closes: a bad state 8 steps deep in the 10^6-state counters is found
// after a few thousand pairs, with a shortest prefix: 8 steps to the bad
// state and the step that leaves it (the position where goal holds).
func TestLTLEarly(t *testing.T) {
	src := strings.Replace(counters, "#assert Sys() |= [] (zero -> X !zero);", "#define goal x == 5 && y == 3;\n#assert Sys() |= [] !goal;", 1)
	rep, err := Source(context.Background(), "deep.csp", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Assertions[0]
	if a.Verdict != lts.Invalid || a.Stats.Pairs > 100000 || len(a.Counterexample.Trace) > 200 {
		t.Errorf("%v, %d pairs, trace of %d", a.Verdict, a.Stats.Pairs, len(a.Counterexample.Trace))
	}
	if !strings.Contains(a.Counterexample.Explanation, "steps 1-9 to a cycle") {
		t.Errorf("prefix: %s", a.Counterexample.Explanation)
	}
}
