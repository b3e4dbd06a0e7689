package relax

import (
	"fmt"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// BenchmarkRelaxedQueue builds the whole reachable relaxed automaton of a
// synthetic FIFO queue, relaxing deq (exact: enq rigid, deq.0 a barrier)
// or every event (window), and reports its size: relaxed states, open
// windows (window mode), memo entries (expanded states) and transitions.
// Queue "v2c2" holds values 1..2 with capacity 2 (7 spec states), "v3c3"
// values 1..3 with capacity 3 (40 spec states). (Window mode on v3c3 with
// QF 3 was left out when windows were enumerated eagerly: about 11
// million permuted windows per spec state, 4^7 paths × 675 permutations.)
func BenchmarkRelaxedQueue(b *testing.B) {
	for _, size := range []int{2, 3} {
		for _, mode := range []string{"exact", "window"} {
			for qf := 1; qf <= 3; qf++ {
				b.Run(fmt.Sprintf("v%dc%d/%s/qf=%d", size, size, mode, qf), func(b *testing.B) {
					text := fmt.Sprintf("%d on {deq} barrier {deq.0}", qf)
					if mode == "window" {
						text = fmt.Sprintf("%d window", qf)
					}
					cfg := mustParse(b, text)
					b.ReportAllocs()
					var st Stats
					for b.Loop() {
						table := lts.NewEventTable()
						r, err := New(queueSpec(table, size, size), cfg)
						if err != nil {
							b.Fatal(err)
						}
						reachable(b, r, 1<<30)
						st = r.Stats()
						r.Close()
					}
					b.ReportMetric(float64(st.States), "states")
					b.ReportMetric(float64(st.Pseudo), "open-windows")
					b.ReportMetric(float64(st.Expanded), "memo")
					b.ReportMetric(float64(st.Transitions), "transitions")
				})
			}
		}
	}
}

// BenchmarkAdmits times the re-validator on a 16-event queue trace (a
// segmented queue's behaviour, dequeues within 2 of FIFO order) and on the
// same trace with its last event corrupted (rejected: the search is
// exhaustive).
func BenchmarkAdmits(b *testing.B) {
	const text = "enq1 enq2 enq3 deq2 enq4 deq1 deq4 enq5 deq3 enq1 enq2 deq2 deq5 enq3 deq1 deq3"
	for _, cfgText := range []string{"2 on {deq} barrier {deq.0}", "3 on {deq} barrier {deq.0}", "2", "2 window", "3 window"} {
		for _, bad := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/bad=%v", cfgText, bad), func(b *testing.B) {
				table := lts.NewEventTable()
				spec := queueSpec(table, 5, 4)
				tr := trace(table, text)
				if bad {
					tr[len(tr)-1] = table.InternName("deq.4")
				}
				cfg := mustParse(b, cfgText)
				var ok bool
				for b.Loop() {
					var err error
					ok, err = Admits(spec, cfg, tr)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(map[bool]float64{false: 0, true: 1}[ok], "admitted")
			})
		}
	}
}
