package paper

import (
	"context"
	"fmt"
	"testing"

	"github.com/quasar-verify/quasar/models"
	"github.com/quasar-verify/quasar/pipeline"
)

// TestFiguresReproducible checks that a symmetric check's figures (product
// pairs and transitions, not only the verdict) are a function of the model's
// text: the same under every file name, with one search worker or two, run
// after run. The thread-symmetry representative decides which pairs a
// refinement check's antichains keep, so a representative that depended on
// the file name (it once did: `a.csp` and `x.csp` gave 28,303 and 28,353
// pairs for the exact row of `segqueue qf=2 seg=2`) or on anything but the
// orbit would show here. Each instance showed it.
func TestFiguresReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	cases := []struct {
		model  string
		params map[string]int
		assert string // "" for every assertion of the model
	}{
		{"segqueue", map[string]int{"qf": 1, "seg": 1}, ""},
		{"segqueue", map[string]int{"qf": 2, "seg": 2}, "refines<quasi 2 on"},
		{"segqueue", map[string]int{"qf": 2, "seg": 2}, "refines ClusterSpec()"},
		{"linqueue", map[string]int{"cap": 2}, ""},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %v %s", c.model, c.params, c.assert), func(t *testing.T) {
			reproducible(t, c.model, c.params, c.assert)
		})
	}
}

// reproducible checks the assertions of a library model that contain
// assert under several file names, one and two workers, twice each.
func reproducible(t *testing.T, model string, params map[string]int, assert string) {
	gen, src, err := models.Generate(model, params)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var wantFrom string
	for _, name := range []string{gen, "a.csp", "x.csp", "ccc.csp", "some/dir/seg_q2_s4.csp", "<stdin>"} {
		for _, workers := range []int{1, 2} {
			for run := 1; run <= 2; run++ {
				rep, err := pipeline.Source(context.Background(), name, src, pipeline.Options{Workers: workers, Assert: assert})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				sym := false
				for _, a := range rep.Assertions {
					s := a.Stats
					got = append(got, fmt.Sprintf("%s: %v, %d pairs, %d states, %d transitions", a.Text, a.Verdict, s.Pairs, s.States, s.Transitions))
					sym = sym || s.Symmetry > 0
				}
				if !sym {
					t.Fatal("no assertion was checked up to symmetry")
				}
				from := fmt.Sprintf("as %s, %d workers, run %d", name, workers, run)
				if want == nil {
					want, wantFrom = got, from
					continue
				}
				if len(got) != len(want) {
					t.Fatalf("%s: %d assertions; %s: %d", from, len(got), wantFrom, len(want))
				}
				for i := range got {
					if got[i] != want[i] {
						t.Errorf("%s:\n\t%s\n%s:\n\t%s", from, got[i], wantFrom, want[i])
					}
				}
			}
		}
	}
}
