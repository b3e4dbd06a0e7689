package csp

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
)

var update = flag.Bool("update", false, "rewrite testdata/lts/statecounts.golden")

// TestStateCounts pins the size of the state space of every process that an
// assertion of a library model names (the default instances in
// models/testdata and the fixed models in models/lib): a change in the
// semantics or the state encoding that adds or merges states shows here.
// The golden file is rewritten with -update, never by hand.
func TestStateCounts(t *testing.T) {
	var sb strings.Builder
	for _, am := range assertedModels(t, "../models/lib/*.csp", "../models/testdata/*.csp") {
		p, err := Compile(am.checked)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range am.procs {
			f, text := am.path, am.texts[i]
			sys, err := p.Process(q)
			if err != nil {
				t.Fatalf("%s: %s: %v", f, text, err)
			}
			res, err := Explore(context.Background(), sys, Options{Limits: lts.Limits{MaxStates: 1 << 21, Timeout: time.Minute}})
			if err != nil {
				t.Fatalf("%s: %s: %v", f, text, err)
			}
			if res.Verdict == lts.Unknown {
				t.Fatalf("%s: %s: %s", f, text, res.Reason)
			}
			fmt.Fprintf(&sb, "%s\t%s\t%d states\t%d transitions\n", filepath.Base(f), text, res.Stats.States, res.Stats.Transitions)
		}
	}
	// One anchor counted by hand: the demo's FIFO queue of capacity 2 over
	// values 1..2 holds a sequence of length <= 2 (1 + 2 + 4 = 7 states);
	// enqueues from the 3 non-full states (2 values each), dequeues from the
	// 6 non-empty ones, and deq.0 from the empty one: 13 transitions.
	if !strings.Contains(sb.String(), "demo.csp\tQueue()\t7 states\t13 transitions\n") {
		t.Errorf("demo.csp Queue(): want 7 states and 13 transitions (counted by hand)")
	}
	golden := "../testdata/lts/statecounts.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := sb.String(); got != string(want) {
		t.Errorf("state counts differ from %s (-update rewrites it):\n--- got\n%s--- want\n%s", golden, got, want)
	}
}
