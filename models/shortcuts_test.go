package models

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/pipeline"
)

// shortcutRun is what TestReduceShortcutsLibrary compares of one check.
type shortcutRun struct {
	verdict lts.Verdict
	pairs   int64
	cex     string
}

// runShortcuts checks every linearizes assertion of the library
// instances with at most maxSeg segments (with and without the thread
// symmetry) under a linearize.ReduceCheck.
func runShortcuts(t *testing.T, maxSeg int) ([]shortcutRun, *linearize.ReduceCheck) {
	c := &linearize.ReduceCheck{}
	defer linearize.SetReduceCheck(c)()
	var out []shortcutRun
	for _, ls := range linearizesSources(t, func(in instance) bool { return in.params["seg"] <= maxSeg }) {
		f, src := ls.file, ls.src
		for _, o := range []pipeline.Options{{}, {NoSymmetry: true}} {
			o.Assert, o.Limits, o.Workers = " linearizes", lts.Limits{Timeout: 120 * time.Second}, 1
			rep, err := pipeline.Source(context.Background(), f, src, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range rep.Assertions {
				r := shortcutRun{verdict: a.Verdict, pairs: a.Stats.Pairs}
				if a.Counterexample != nil {
					r.cex = fmt.Sprint(a.Counterexample.Trace)
				}
				out = append(out, r)
			}
		}
	}
	return out, c
}

// TestReduceShortcutsLibrary: on the library's linearizes assertions (up
// to two segments, with and without the symmetry), every set reduction
// of linearize.Wrapper (its masks, and the key of statuses and slack
// class before the slack rule) equals the rules applied pair by pair, and
// every set interned without Reduce because KeepsReduced said so is one
// Reduce leaves as it is; with KeepsReduced off, the verdicts, pairs and
// counterexamples are the same. The hand mutants are caught: KeepsReduced
// claiming every event, a key of the statuses that is their number and is
// trusted, and a key that tells specification states apart.
func TestReduceShortcutsLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("the reference reductions take a while")
	}
	want, c := runShortcuts(t, 2)
	t.Logf("%d checks: %d sets reduced, %d kept unreduced (%d after a plain choice), %d states dropped by the slack rule alone", len(want), c.Reduced.Load(), c.Kept.Load(), c.KeptChoices.Load(), c.Slack.Load())
	if c.Bad.Load() != 0 || c.BadKept.Load() != 0 {
		t.Fatalf("%d reductions and %d kept sets unlike the reference", c.Bad.Load(), c.BadKept.Load())
	}
	if c.Slack.Load() == 0 || c.Kept.Load() == 0 {
		t.Fatal("the slack rule or KeepsReduced never applied: the test shows nothing")
	}
	restore := linearize.SetKeepMutant(-1)
	got, off := runShortcuts(t, 2)
	restore()
	if off.Kept.Load() != 0 || !slices.Equal(got, want) {
		t.Errorf("KeepsReduced off: %d kept; runs equal: %v", off.Kept.Load(), slices.Equal(got, want))
	}
	want1, _ := runShortcuts(t, 1)
	for _, m := range []struct {
		keep, prune int
		what        string
	}{
		{1, 0, "KeepsReduced claims every event"},
		{2, 0, "KeepsReduced claims every choice, also one compressed with its response"},
		{0, 5, "the key of the statuses is their number, and trusted"},
		{0, 6, "the key tells specification states apart"},
	} {
		restore := linearize.SetKeepMutant(m.keep)
		linearize.SetPruneMutant(m.prune)
		got, mc := runShortcuts(t, 1)
		linearize.SetPruneMutant(0)
		restore()
		changed := 0
		for i := range got {
			if got[i] != want1[i] {
				changed++
			}
		}
		t.Logf("mutant %q: %d reductions and %d kept sets unlike the reference, %d of %d checks changed", m.what, mc.Bad.Load(), mc.BadKept.Load(), changed, len(got))
		if mc.Bad.Load()+mc.BadKept.Load() == 0 {
			t.Errorf("mutant %q went unnoticed", m.what)
		}
	}
}
