package models

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/internal/run"
	"github.com/quasar-verify/quasar/lts"
)

// TestVerdicts checks every model of the library at its default parameters
// through the whole pipeline (the same path as `quasar check`) and compares
// each assertion's verdict with the `// expect:` comment written in the model.
// A disagreement means the model, the expectation or the engine is wrong:
// investigate; never edit an expectation to match the tool without writing
// the reason next to it.
func TestVerdicts(t *testing.T) {
	for _, i := range List() {
		t.Run(i.Name, func(t *testing.T) {
			f, src, err := Generate(i.Name, nil)
			if err != nil {
				t.Fatal(err)
			}
			exp := map[int]Expect{}
			for _, e := range Expectations(src) {
				exp[e.Line] = e
			}
			ctx := context.Background()
			rep, err := run.Source(ctx, f, src, run.Options{Limits: lts.Limits{Timeout: 60 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Assertions) != len(exp) {
				t.Errorf("%d assertions checked, %d expected", len(rep.Assertions), len(exp))
			}
			for _, a := range rep.Assertions {
				e, ok := exp[a.Line]
				if !ok {
					t.Errorf("%s:%d: %s: no expectation", f, a.Line, a.Text)
					continue
				}
				t.Logf("%s:%d: %-60s %-8v %8d states %6.2fs", f, a.Line, a.Text, a.Verdict, a.Stats.States, a.Stats.Seconds)
				if a.Verdict != e.Verdict {
					msg := a.Reason
					if a.Counterexample != nil {
						msg += fmt.Sprintf(" trace %v %s", a.Counterexample.Trace, a.Counterexample.Explanation)
					}
					t.Errorf("%s:%d: %s: got %v, expected %v %s", f, a.Line, a.Text, a.Verdict, e.Verdict, msg)
				}
			}
		})
	}
}
