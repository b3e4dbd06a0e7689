package relax

import (
	"fmt"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// TestSemanticsTable checks every row of docs/verdicts.md §4 in both modes. The
// expected verdicts are copied from that table. Unless a row says
// otherwise, exact mode relaxes deq (enq rigid, deq.0 a barrier) and window
// mode relaxes every visible event.
func TestSemanticsTable(t *testing.T) {
	queue := func(vals, capacity int, preload ...int) func(*lts.EventTable) lts.Automaton {
		return func(tb *lts.EventTable) lts.Automaton { return queueSpec(tb, vals, capacity, preload...) }
	}
	stack := func(tb *lts.EventTable) lts.Automaton { return stackSpec(tb, 3, 3) }
	chain := func(tb *lts.EventTable) lts.Automaton { return chainSpec(tb) }
	const deqExact = "%d on {deq} barrier {deq.0}"
	rows := []struct {
		row      int
		spec     func(*lts.EventTable) lts.Automaton
		trace    string
		qf       int
		exactCfg string // format with qf; default deqExact
		window   bool
		exact    bool
		complete *bool // row 11: exact verdict in complete mode
	}{
		{row: 1, spec: queue(3, 3, 1, 2, 3), trace: "deq1 deq2 deq3", qf: 1, window: true, exact: true},
		{row: 1, spec: queue(3, 3, 1, 2, 3), trace: "deq1 deq3 deq2", qf: 1, window: true, exact: true},
		{row: 1, spec: queue(3, 3, 1, 2, 3), trace: "deq2 deq1 deq3", qf: 1, window: true, exact: true},
		{row: 1, spec: queue(3, 3, 1, 2, 3), trace: "deq2 deq3 deq1", qf: 1, window: false, exact: false},
		{row: 1, spec: queue(3, 3, 1, 2, 3), trace: "deq3 deq1 deq2", qf: 1, window: false, exact: false},
		{row: 1, spec: queue(3, 3, 1, 2, 3), trace: "deq3 deq2 deq1", qf: 1, window: false, exact: false},
		{row: 2, spec: queue(4, 4, 1, 2, 3, 4), trace: "deq1 deq2 deq3 deq4", qf: 1, window: true, exact: true},
		{row: 2, spec: queue(4, 4, 1, 2, 3, 4), trace: "deq2 deq1 deq3 deq4", qf: 1, window: true, exact: true},
		{row: 2, spec: queue(4, 4, 1, 2, 3, 4), trace: "deq1 deq2 deq4 deq3", qf: 1, window: true, exact: true},
		{row: 2, spec: queue(4, 4, 1, 2, 3, 4), trace: "deq2 deq1 deq4 deq3", qf: 1, window: true, exact: true},
		{row: 2, spec: queue(4, 4, 1, 2, 3, 4), trace: "deq1 deq3 deq2 deq4", qf: 1, window: true, exact: true},
		{row: 3, spec: queue(3, 3), trace: "enq1 enq2 enq3 deq3 deq1 deq2", qf: 1, window: true, exact: false},
		{row: 4, spec: queue(3, 3), trace: "enq1 enq2 enq3 deq2 deq3 deq1", qf: 1, window: true, exact: false},
		{row: 5, spec: queue(5, 4), trace: "enq1 enq2 enq3 deq1 enq4 deq2 deq4 enq5 deq3", qf: 1, window: false, exact: true},
		{row: 6, spec: queue(2, 2), trace: "enq1 deq2 enq2 deq1", qf: 1, window: false, exact: false},
		{row: 7, spec: queue(2, 2, 1, 2), trace: "deq2 deq1", qf: 0, window: false, exact: false},
		{row: 7, spec: queue(2, 2, 1, 2), trace: "deq1 deq2", qf: 0, window: true, exact: true},
		{row: 8, spec: queue(2, 2), trace: "enq1 enq2 deq2 deq.0 deq1", qf: 1, window: true, exact: false},
		{row: 9, spec: chain, trace: "b a", qf: 1, exactCfg: "%d", window: true, exact: true},
		{row: 10, spec: stack, trace: "push1 push2 pop1 push3 pop3 pop2", qf: 0, exactCfg: "%d on {pop} barrier {pop.0}", window: false, exact: false},
		{row: 11, spec: queue(2, 2, 1, 2), trace: "deq2", qf: 1, window: true, exact: true, complete: ptr(false)},
	}
	for _, row := range rows {
		name := fmt.Sprintf("row%d/%s", row.row, row.trace)
		t.Run(name, func(t *testing.T) {
			tb := lts.NewEventTable()
			spec := row.spec(tb)
			tr := trace(tb, row.trace)
			format := row.exactCfg
			if format == "" {
				format = deqExact
			}
			exactCfg := mustParse(t, fmt.Sprintf(format, row.qf))
			windowCfg := mustParse(t, fmt.Sprintf("%d window", row.qf))
			cases := []struct {
				mode string
				cfg  Config
				want bool
			}{
				{"exact", exactCfg, row.exact},
				{"window", windowCfg, row.window},
			}
			if row.complete != nil {
				c := exactCfg
				c.Complete = true
				cases = append(cases, struct {
					mode string
					cfg  Config
					want bool
				}{"exact complete", c, *row.complete})
			}
			for _, c := range cases {
				r := mustNew(t, spec, c.cfg)
				if got := accepts(t, r, tr, c.cfg.Complete); got != c.want {
					t.Errorf("%s (%s): automaton accepts = %v, want %v", c.mode, c.cfg, got, c.want)
				}
				ok, err := Admits(spec, c.cfg, tr)
				if err != nil {
					t.Fatal(err)
				}
				if ok != c.want {
					t.Errorf("%s (%s): Admits = %v, want %v", c.mode, c.cfg, ok, c.want)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
