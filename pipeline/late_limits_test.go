package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/models"
	"github.com/quasar-verify/quasar/pipeline"
)

// TestLateArgsLimits: a state limit or a timeout during a check with the
// late arguments (the segmented queue at two segments: 27,530 pairs) ends
// unknown, without an error, with one worker and with two.
func TestLateArgsLimits(t *testing.T) {
	f, src, err := models.Generate("segqueue", map[string]int{"seg": 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, lim := range []lts.Limits{{MaxStates: 2000}, {Timeout: 5 * time.Millisecond}} {
		for _, w := range []int{1, 2} {
			rep, err := pipeline.Source(context.Background(), f, src, pipeline.Options{Assert: "ImplIR() linearizes<quasi 2 on", Limits: lim, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			a := rep.Assertions[0]
			if !a.Stats.LateArgs || a.Verdict != lts.Unknown || a.Error != "" || a.Counterexample != nil {
				t.Errorf("%+v, %d workers: %s: late %v, %v (%s; %s)", lim, w, a.Text, a.Stats.LateArgs, a.Verdict, a.Reason, a.Error)
			}
		}
	}
}
