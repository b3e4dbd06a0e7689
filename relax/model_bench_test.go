package relax_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/quasar-verify/quasar/internal/modeltest"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
	"github.com/quasar-verify/quasar/relax"
)

// BenchmarkModelQuasi reports, for QF 1, 2, 3 and both modes, the relaxed
// spec's size (states, memo entries) and the quasi check's time, next to
// the plain refinement check of the same implementation: against the FIFO
// queue for the linearizable queue, against the manual cluster spec (the
// paper's Table 1) for the segmented queue.
func BenchmarkModelQuasi(b *testing.B) {
	type run struct {
		name   string
		model  string
		params map[string]int
		plain  string // the spec of the plain check
		qf     int
		mode   relax.Mode
		want   lts.Verdict
	}
	var runs []run
	for qf := 1; qf <= 3; qf++ {
		for _, mode := range []relax.Mode{relax.Exact, relax.Window} {
			runs = append(runs, run{"linqueue", "linqueue", map[string]int{"cap": 2, "vals": 2}, "Queue", qf, mode, lts.Valid})
			// One segment: both modes accept at the segment's own factor.
			runs = append(runs, run{"segqueue-seg1", "segqueue", map[string]int{"qf": qf, "seg": 1}, "ClusterSpec", qf, mode, lts.Valid})
		}
	}
	for _, r := range runs {
		b.Run(fmt.Sprintf("%s/qf=%d/%s", r.name, r.qf, r.mode), func(b *testing.B) {
			prog, _, _ := modeltest.Compile(b, r.model, r.params)
			check := func(spec lts.Automaton) *refine.Result {
				impl, err := prog.ProcessByName("Impl")
				if err != nil {
					b.Fatal(err)
				}
				res, err := refine.Check(context.Background(), impl, spec, refine.Options{})
				if err != nil {
					b.Fatal(err)
				}
				return res
			}
			fifo := func() lts.Automaton {
				sys, err := prog.ProcessByName("Queue")
				if err != nil {
					b.Fatal(err)
				}
				return lts.NewTauClosed(sys)
			}
			plainSys, err := prog.ProcessByName(r.plain)
			if err != nil {
				b.Fatal(err)
			}
			plain := check(lts.NewTauClosed(plainSys))
			cfg := relax.Config{Mode: r.mode, Barriers: []lts.Pattern{lts.ParsePattern("deq.0")},
				Classes: []relax.Class{{Patterns: []lts.Pattern{lts.ParsePattern("deq")}, Bound: r.qf}}}
			if r.mode == relax.Window {
				cfg = relax.Config{Mode: relax.Window, All: r.qf}
			}
			var st relax.Stats
			var res *refine.Result
			for b.Loop() {
				rx, err := relax.New(fifo(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				res = check(rx)
				st = rx.Stats()
				rx.Close()
			}
			if res.Verdict != r.want && !(r.mode == relax.Window && res.Verdict == lts.Invalid) {
				b.Fatalf("verdict %v, want %v", res.Verdict, r.want)
			}
			b.ReportMetric(float64(st.States), "relaxed-states")
			b.ReportMetric(float64(st.Expanded), "memo-entries")
			b.ReportMetric(float64(res.Stats.Pairs), "pairs")
			b.ReportMetric(res.Stats.Seconds, "quasi-s")
			b.ReportMetric(float64(plain.Stats.Pairs), "plain-pairs")
			b.ReportMetric(plain.Stats.Seconds, "plain-s")
		})
	}
}
