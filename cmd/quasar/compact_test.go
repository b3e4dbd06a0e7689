package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/pipeline"
)

// TestCompactTinyFingerprints: with 12-bit fingerprints (an option of the
// library, not of the CLI) the 6561 states of 8 asymmetric philosophers
// cannot all be told apart (4096 fingerprints): states are missed, the
// valid verdict says it is probabilistic, and the printed bound is 1.
func TestCompactTinyFingerprints(t *testing.T) {
	ar, err := os.ReadFile("testdata/script/compact.txtar")
	if err != nil {
		t.Fatal(err)
	}
	_, src, ok := strings.Cut(string(ar), "-- phil.csp --\n")
	if !ok {
		t.Fatal("no phil.csp in compact.txtar")
	}
	rep, err := pipeline.Source(context.Background(), "phil.csp", []byte(src), pipeline.Options{
		Assert: "1", Compact: csp.Compaction{Mode: csp.HashCompact, FingerprintBits: 12},
	})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Assertions[0]
	if a.Verdict != lts.Valid || !a.Probabilistic || a.Stats.States > 4096 || a.Coverage.Omission != 1 {
		t.Fatalf("got %v probabilistic=%v, %d states, coverage %+v", a.Verdict, a.Probabilistic, a.Stats.States, a.Coverage)
	}
	var b bytes.Buffer
	writeReport(&b, rep, nil)
	for _, want := range []string{"phil.csp:10: valid (probabilistic) College() deadlockfree  (", "  probabilistic: hash compaction with 12-bit fingerprints; estimated probability that some state was missed 1 (n(n-1)/2^13, n = "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
}
