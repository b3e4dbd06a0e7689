package relax

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestExplain checks explanations of rejected traces from docs/verdicts.md §4:
// the event that could not be justified (its position) and the kind of
// reason are what the definition implies; the full rendering is a golden
// file.
func TestExplain(t *testing.T) {
	cases := []struct {
		name   string
		spec   func(*lts.EventTable) lts.Automaton
		cfg    string
		trace  string
		prefix int    // expected longest accepted prefix
		reason string // expected substring of the reason
	}{
		{"row4-slack", func(tb *lts.EventTable) lts.Automaton { return queueSpec(tb, 3, 3) },
			"1 on {deq} barrier {deq.0}", "enq1 enq2 enq3 deq2 deq3 deq1", 4, "obligation deq.1 ran out of slack"},
		{"row3-unjustified", func(tb *lts.EventTable) lts.Automaton { return queueSpec(tb, 3, 3) },
			"1 on {deq} barrier {deq.0}", "enq1 enq2 enq3 deq3 deq1 deq2", 3, "deq.3 cannot be justified"},
		{"row8-barrier", func(tb *lts.EventTable) lts.Automaton { return queueSpec(tb, 2, 2) },
			"1 on {deq} barrier {deq.0}", "enq1 enq2 deq2 deq.0 deq1", 3, "barrier deq.0 occurs while obligations are pending: deq.1"},
		{"row11-complete", func(tb *lts.EventTable) lts.Automaton { return queueSpec(tb, 0, 2, 1, 2) },
			"1 on {deq} barrier {deq.0} complete", "deq2", 1, "obligations pending"},
		{"rigid", func(tb *lts.EventTable) lts.Automaton { return queueSpec(tb, 4, 3) },
			"1 on {deq} barrier {deq.0}", "enq1 enq2 enq3 enq4", 3, "rigid event enq.4 is not enabled"},
		{"row5-window", func(tb *lts.EventTable) lts.Automaton { return queueSpec(tb, 5, 4) },
			"1 window", "enq1 enq2 enq3 deq1 enq4 deq2 deq4 enq5 deq3", -1, ""},
		{"row5-exact-accepted", func(tb *lts.EventTable) lts.Automaton { return queueSpec(tb, 5, 4) },
			"1 on {deq} barrier {deq.0}", "enq1 enq2 enq3 deq1 enq4 deq2 deq4 enq5 deq3", 9, ""},
	}
	var golden strings.Builder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := lts.NewEventTable()
			spec := c.spec(tb)
			cfg := mustParse(t, c.cfg)
			r := mustNew(t, spec, cfg)
			tr := trace(tb, c.trace)
			x, err := r.Explain(tr)
			if err != nil {
				t.Fatal(err)
			}
			want := accepts(t, r, tr, cfg.Complete)
			if x.Accepted != want {
				t.Fatalf("Explain says accepted=%v, set simulation %v", x.Accepted, want)
			}
			if c.prefix >= 0 && x.Prefix != c.prefix {
				t.Errorf("prefix %d, want %d", x.Prefix, c.prefix)
			}
			if !strings.Contains(x.Reason, c.reason) {
				t.Errorf("reason %q, want it to contain %q", x.Reason, c.reason)
			}
			if len(x.Run) != x.Prefix || len(x.States) != x.Prefix+1 {
				t.Errorf("run of %d steps and %d states for prefix %d", len(x.Run), len(x.States), x.Prefix)
			}
			// The run is a run: the accepted prefix, replayed.
			for i, st := range x.Run {
				if st.Event != tr[i] {
					t.Errorf("step %d is %s, trace has %s", i, tb.Name(st.Event), tb.Name(tr[i]))
				}
			}
			if x.Prefix < len(tr) && accepts(t, r, tr[:x.Prefix+1], false) {
				t.Errorf("prefix of length %d is accepted", x.Prefix+1)
			}
			fmt.Fprintf(&golden, "== %s: quasi %s: %s\n%s\n", c.name, c.cfg, c.trace, x.Text(tb))
		})
	}
	path := filepath.Join("testdata", "explain.golden")
	if *update {
		if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != golden.String() {
		t.Errorf("explanations differ from %s (go test -update rewrites it):\n%s", path, golden.String())
	}
}
