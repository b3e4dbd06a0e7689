package refine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/models"
	"github.com/quasar-verify/quasar/pipeline"
	"github.com/quasar-verify/quasar/refine"
)

// TestPrefetchChangesNothing: the prefetches of the search (the
// normaliser's memo slots of a prepared batch, the wrapper's memo slots
// of a set's steps) only load memory, so every linearizes assertion of
// the segmented queue (one and two segments), the list queue and the
// stack (with and without the symmetry, one worker and two) gives the
// same verdict, pairs, states and counterexample with them and without.
func TestPrefetchChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("the checks take a while")
	}
	run := func() []string {
		var out []string
		for _, in := range []struct {
			name   string
			params map[string]int
		}{
			{"segqueue", map[string]int{"seg": 1}},
			{"segqueue", map[string]int{"seg": 2}},
			{"linstack", nil},
			{"linqueue", nil},
		} {
			f, src, err := models.Generate(in.name, in.params)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []pipeline.Options{{Workers: 1}, {Workers: 2}, {NoSymmetry: true, Workers: 1}} {
				o.Assert, o.Limits = " linearizes", lts.Limits{Timeout: 120 * time.Second}
				rep, err := pipeline.Source(context.Background(), f, src, o)
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range rep.Assertions {
					line := fmt.Sprintf("%s %v: %v %d pairs %d states", in.name, in.params, a.Verdict, a.Stats.Pairs, a.Stats.States)
					if a.Counterexample != nil {
						line += fmt.Sprint(" ", a.Counterexample.Trace)
					}
					out = append(out, line)
				}
			}
		}
		return out
	}
	on := run()
	restore := refine.SetNoPrefetch(true)
	off := run()
	restore()
	if len(on) == 0 || strings.Join(on, "\n") != strings.Join(off, "\n") {
		t.Fatalf("with prefetches:\n%s\nwithout:\n%s", strings.Join(on, "\n"), strings.Join(off, "\n"))
	}
	t.Logf("%d assertions, equal", len(on))
}
