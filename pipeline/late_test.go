package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/lts"
)

// lateCase checks one model with and without LateArgs (symmetry off, as
// the prototype is); it returns the number of assertions whose verdicts
// differ or whose counterexample the history engine rejects, and fails t
// on an error only when mutant is 0.
func lateCase(t *testing.T, name, src string, mutant, wmutant int) (bad int, verdicts []lts.Verdict) {
	t.Helper()
	base := Options{NoSymmetry: true, Limits: lts.Limits{MaxStates: 1 << 20}}
	want, err := Source(context.Background(), name, []byte(src), base)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	o := base
	o.LateArgs, o.lateMutant = true, mutant
	defer linearize.SetTagMutant(wmutant)()
	got, err := Source(context.Background(), name, []byte(src), o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for j, a := range got.Assertions {
		w := want.Assertions[j]
		verdicts = append(verdicts, w.Verdict)
		if w.Kind != "linearizes" && w.Kind != "linearizes_quasi" {
			continue
		}
		switch {
		case a.Error != "" && mutant == 0 && wmutant == 0:
			t.Fatalf("%s: %s: %s\n%s", name, a.Text, a.Error, src)
		case a.Verdict != w.Verdict || a.Error != "":
			bad++
			if mutant == 0 && wmutant == 0 {
				t.Errorf("%s: %s: late says %v, unreduced %v\n%s", name, a.Text, a.Verdict, w.Verdict, src)
			}
		case a.Verdict == lts.Invalid && len(a.Counterexample.History) == 0:
			t.Fatalf("%s: %s: counterexample without its validated history", name, a.Text)
		}
	}
	return bad, verdicts
}

// TestLateArgsRandom: on the random models of
// TestLinearizesReductionsRandom, the check with arguments chosen late
// gives the verdicts of the unreduced check, and its counterexamples,
// mapped back to the model, pass the history engine.
func TestLateArgsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(*linSeed, 3))
	counts := map[string]int{}
	for i := range *linCases {
		src := randomIRModel(r, i%2 == 0)
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
	} {
		r := rand.New(rand.NewPCG(*linSeed, 3))
		caught := 0
		for i := range *linCases {
			src := randomIRModel(r, i%2 == 0)
			if bad, _ := lateCase(t, fmt.Sprintf("case%d.csp", i), src, m.rewrite, m.object); bad > 0 {
				caught++
			}
		}
		t.Logf("mutant %q: %d of %d cases fail", m.name, caught, *linCases)
		if caught == 0 {
			t.Errorf("mutant %q not caught", m.name)
		}
	}
}
