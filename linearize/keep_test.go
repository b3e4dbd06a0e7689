package linearize_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
	"github.com/quasar-verify/quasar/relax"
)

// reduceOracle checks n random implementations of
// TestWrapperAgreesWithHistories (up to three operations a thread, plain
// and with a quasi factor of 2) against the wrapped queue under a
// linearize.ReduceCheck, and returns how many checks met a reduction
// unlike the reference (or a set kept unreduced that Reduce would
// change), the check's counts, and the verdicts.
func reduceOracle(t *testing.T, seed uint64, n int) (wrong int, c *linearize.ReduceCheck, verdicts []lts.Verdict) {
	r := rand.New(rand.NewPCG(seed, 13))
	quasi, err := relax.ParseConfig("2 on {deq} barrier {deq.0}")
	if err != nil {
		t.Fatal(err)
	}
	c = &linearize.ReduceCheck{}
	defer linearize.SetReduceCheck(c)()
	for range n {
		tab := lts.NewEventTable()
		spec := queueSpec(tab)
		impl := randomImpl(r, tab, 3)
		for _, cfg := range []*relax.Config{nil, &quasi} {
			s := relaxedSpec(t, spec, cfg)
			bad := c.Bad.Load() + c.BadKept.Load()
			res, err := refine.Check(context.Background(), impl, linearize.New(s, linearize.DefaultNaming), refine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			verdicts = append(verdicts, res.Verdict)
			if c.Bad.Load()+c.BadKept.Load() > bad {
				wrong++
			}
		}
	}
	return wrong, c, verdicts
}

// TestReduceShortcutsAgree: Wrapper.Reduce's shortcuts (the thread masks,
// a key of each state's statuses and of its specification state's slack
// class, read before the slack rule compares two states) drop exactly the
// states the rules drop (linearize's referenceReduce, which applies them
// to every pair as defined), and every set a step interns without Reduce
// because KeepsReduced said so (an invocation) is one that Reduce leaves
// as it is, on 200 random checks, plain and quasi. The verdicts are the
// same with KeepsReduced off. The hand mutants of KeepsReduced and of the
// key are caught here; TestReduceShortcutsLibrary (package models) runs
// the same comparison on the library's models, where the slack rule
// applies.
func TestReduceShortcutsAgree(t *testing.T) {
	const n = 100
	wrong, c, want := reduceOracle(t, 5, n)
	t.Logf("%d sets reduced, %d kept unreduced, %d states dropped by the slack rule alone", c.Reduced.Load(), c.Kept.Load(), c.Slack.Load())
	if wrong != 0 {
		t.Fatalf("%d of %d checks met a reduction unlike the reference", wrong, 2*n)
	}
	if c.Kept.Load() < 100 || c.Reduced.Load() < 100 {
		t.Fatalf("too few sets to say anything: %d reduced, %d kept", c.Reduced.Load(), c.Kept.Load())
	}
	restore := linearize.SetKeepMutant(-1)
	_, off, got := reduceOracle(t, 5, n)
	restore()
	if off.Kept.Load() != 0 || !slices.Equal(got, want) {
		t.Fatalf("KeepsReduced off: %d kept, verdicts equal %v", off.Kept.Load(), slices.Equal(got, want))
	}
	restore = linearize.SetKeepMutant(1)
	wrong, _, _ = reduceOracle(t, 5, n)
	restore()
	t.Logf("mutant (KeepsReduced claims every event): %d of %d checks differ", wrong, 2*n)
	if wrong == 0 {
		t.Error("the mutant of KeepsReduced went unnoticed")
	}
}
