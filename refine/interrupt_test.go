package refine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
)

// stuckSpec is a spec whose first step never ends on its own: like a window
// expansion of millions of permutations, it only polls the interrupt.
type stuckSpec struct {
	lts.Automaton
	stop   func() bool
	polled int
}

func (s *stuckSpec) SetInterrupt(stop func() bool) { s.stop = stop }

func (s *stuckSpec) Step(st lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	for s.stop != nil {
		s.polled++
		if s.stop() {
			return buf, errors.New("interrupted")
		}
		time.Sleep(time.Millisecond)
	}
	return nil, errors.New("no interrupt function was set")
}

// A limit that fires inside a spec step ends the search unknown with the
// limit as its reason, not with the step's error.
func TestInterruptedSpecStep(t *testing.T) {
	tab := lts.NewEventTable()
	impl := graph(t, tab, "0-a->1")
	spec := &stuckSpec{Automaton: graph(t, tab, "0-a->0")}
	res, err := Check(context.Background(), impl, spec, Options{Limits: lts.Limits{Timeout: 30 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != lts.Unknown || !strings.HasPrefix(res.Reason, "time limit") {
		t.Fatalf("verdict %v (%q), want unknown (time limit)", res.Verdict, res.Reason)
	}
	if spec.polled == 0 || spec.stop != nil {
		t.Errorf("polled %d times; interrupt still set: %v", spec.polled, spec.stop != nil)
	}
}
