package relax

import (
	"fmt"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// BenchmarkRelaxedQueue builds the whole reachable relaxed automaton of a
// synthetic FIFO queue (values 1..3, capacity 3: 40 spec states), relaxing
// deq (exact: enq rigid, deq.0 a barrier) or every event (window), and
// reports its size: relaxed states, pseudo-states, memo entries
// (expanded states) and transitions.
func BenchmarkRelaxedQueue(b *testing.B) {
	for _, mode := range []string{"exact", "window"} {
		for qf := 1; qf <= 3; qf++ {
			b.Run(fmt.Sprintf("%s/qf=%d", mode, qf), func(b *testing.B) {
				text := fmt.Sprintf("%d on {deq} barrier {deq.0}", qf)
				if mode == "window" {
					text = fmt.Sprintf("%d window", qf)
				}
				cfg := mustParse(b, text)
				b.ReportAllocs()
				var st Stats
				for b.Loop() {
					table := lts.NewEventTable()
					r, err := New(queueSpec(table, 3, 3), cfg)
					if err != nil {
						b.Fatal(err)
					}
					reachable(b, r, 1<<30)
					st = r.Stats()
					r.Close()
				}
				b.ReportMetric(float64(st.States), "states")
				b.ReportMetric(float64(st.Pseudo), "pseudo")
				b.ReportMetric(float64(st.Expanded), "memo")
				b.ReportMetric(float64(st.Transitions), "transitions")
			})
		}
	}
}
