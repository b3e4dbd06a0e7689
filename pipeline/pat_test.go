package pipeline

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// TestDiningDeadlock: PAT's dining philosophers (testdata/pipeline/
// pat_dining*.csp, as PAT ships them) deadlock with the classic trace, the
// shortest one: each philosopher picks up its first fork, get.i.(i+1)%N,
// in some order, and nothing else happens. Under C#'s remainder instead of
// PAT's, Fork(0) would offer get.-1.0 and philosopher N-1 could never take
// it, so no such trace would exist.
func TestDiningDeadlock(t *testing.T) {
	for file, n := range map[string]int{"pat_dining.csp": 2, "pat_dining5.csp": 5} {
		src, err := os.ReadFile("../testdata/pipeline/" + file)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Source(context.Background(), file, src, Options{Assert: "deadlockfree"})
		if err != nil {
			t.Fatal(err)
		}
		a := rep.Assertions[0]
		if a.Verdict != lts.Invalid || a.Counterexample == nil {
			t.Fatalf("%s: %v, want a deadlock", file, a.Verdict)
		}
		got := slices.Clone(a.Counterexample.Trace)
		var want []string
		for i := range n {
			want = append(want, fmt.Sprintf("get.%d.%d", i, (i+1)%n))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: deadlock after %v, want each philosopher's first fork %v", file, got, want)
		}
	}
}

// TestDiningFailures: the counterexamples of the refinement template's
// failing <F> and <FD> assertions are the ones reasoned in its comments: the
// deadlock (a refusal of eat.0 by a state that offers nothing) and
// philosopher 1's hidden meal loop (a divergence), both after the empty
// trace.
func TestDiningFailures(t *testing.T) {
	src, err := os.ReadFile("../testdata/pipeline/pat_dining.csp")
	if err != nil {
		t.Fatal(err)
	}
	for sel, kind := range map[string]string{"Implementation() refines <F>": "refusal", "Implementation() refines <FD>": "divergence"} {
		rep, err := Source(context.Background(), "pat_dining.csp", src, Options{Assert: sel})
		if err != nil {
			t.Fatal(err)
		}
		c := rep.Assertions[0].Counterexample
		if c == nil || c.Kind != kind || len(c.Trace) != 0 {
			t.Fatalf("%s: %+v, want a %s after the empty trace", sel, c, kind)
		}
		if kind == "refusal" && (!slices.Equal(c.Refused, []string{"eat.0"}) || len(c.Acceptances) != 1) {
			t.Errorf("%s: refuses %v, acceptances %v; want eat.0 refused, {eat.0} accepted", sel, c.Refused, c.Acceptances)
		}
		if kind == "refusal" {
			// Both first forks, taken in some order, end in the deadlock.
			var evs []string
			for _, s := range c.Steps {
				evs = append(evs, s.Event)
			}
			slices.Sort(evs)
			if !slices.Equal(evs, []string{"tau", "tau"}) {
				t.Errorf("%s: path %v, want the two hidden first forks", sel, evs)
			}
		}
	}
}

// TestReachesWitness: a valid `reaches` shows its witness, a shortest trace
// to a goal state (as PAT does), and no counterexample; an unreachable goal
// shows neither.
func TestReachesWitness(t *testing.T) {
	src := "var x = 0;\nP() = inc{x = x + 1} -> P() [] reset{x = 0} -> P();\n#define goal x == 3;\n#define never x < 0;\n#assert P() reaches goal;\n#assert P() reaches never;\n"
	rep, err := Source(context.Background(), "r.csp", []byte(src), Options{Limits: lts.Limits{MaxStates: 100}})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Assertions[0]
	if a.Verdict != lts.Valid || a.Counterexample != nil || a.Witness == nil || !slices.Equal(a.Witness.Trace, []string{"inc", "inc", "inc"}) {
		t.Errorf("reaches goal: %v, witness %+v, counterexample %+v", a.Verdict, a.Witness, a.Counterexample)
	}
	if b := rep.Assertions[1]; b.Verdict == lts.Valid || b.Witness != nil {
		t.Errorf("reaches never: %v, witness %+v", b.Verdict, b.Witness)
	}
}
