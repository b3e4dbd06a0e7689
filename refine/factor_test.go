package refine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// runSpec is a family of specs indexed by k: runs of at most k a's, each
// ended by b; c (to a dead state) is allowed only when k >= cFrom.
func runSpec(tab *lts.EventTable, k, cFrom int) *lts.Explicit {
	x := lts.NewExplicit(tab)
	for i := 0; i < k; i++ {
		x.Add(lts.State(i), "a", lts.State(i+1))
	}
	for i := 0; i <= k; i++ {
		x.Add(lts.State(i), "b", 0)
	}
	if k >= cFrom {
		x.Add(0, "c", lts.State(k+1))
	}
	return x
}

func TestMinFactor(t *testing.T) {
	tests := []struct {
		name    string
		impl    string
		cFrom   int
		maxK    int
		verdict lts.Verdict
		k       int
		below   string // K-1 counterexample (or maxK's when none is valid)
		offered string
		steps   string // k:verdict, "r" when refuted by replay
	}{
		{name: "three a's", impl: "0-a->1 1-a->2 2-tau->5 5-a->3 3-b->0", cFrom: 0, maxK: 5,
			verdict: lts.Valid, k: 3, below: "a a a", offered: "b",
			steps: "0:invalid 1:invalid 2:invalid 3:valid"},
		{name: "zero", impl: "0-b->0", cFrom: 0, maxK: 5, verdict: lts.Valid, k: 0, steps: "0:valid"},
		{name: "none up to max", impl: "0-a->1 1-a->2 2-a->3 3-b->0", cFrom: 0, maxK: 2,
			verdict: lts.Invalid, k: -1, below: "a a a", offered: "b", steps: "0:invalid 1:invalid 2:invalid"},
		// c is rejected below 2: factor 1 is refuted by replaying [c], then
		// re-checked in full to report its shortest counterexample.
		{name: "replay then recheck", impl: "0-c->4 0-a->1 1-a->2 2-b->0", cFrom: 2, maxK: 5,
			verdict: lts.Valid, k: 2, below: "c", offered: "a b", steps: "0:invalid 1:invalid(r) 2:valid"},
		{name: "replay then search", impl: "0-c->4 0-a->1 1-a->2 2-a->3 3-b->0", cFrom: 2, maxK: 5,
			verdict: lts.Valid, k: 3, below: "a a a", offered: "b", steps: "0:invalid 1:invalid(r) 2:invalid 3:valid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, opt := range []Options{{}, {Workers: 2}} {
				tab := lts.NewEventTable()
				impl := graph(t, tab, tc.impl)
				build := func(k int) (lts.Automaton, error) { return runSpec(tab, k, tc.cFrom), nil }
				fr, err := MinFactor(context.Background(), impl, build, tc.maxK, opt)
				if err != nil {
					t.Fatal(err)
				}
				var steps []string
				for _, s := range fr.Steps {
					r := ""
					if s.Replayed {
						r = "(r)"
					}
					steps = append(steps, fmt.Sprintf("%d:%v%s", s.K, s.Verdict, r))
				}
				if fr.Verdict != tc.verdict || fr.K != tc.k || strings.Join(steps, " ") != tc.steps {
					t.Fatalf("verdict %v K %d steps %v, want %v %d %s", fr.Verdict, fr.K, steps, tc.verdict, tc.k, tc.steps)
				}
				cexRes := fr.Below
				if tc.verdict == lts.Invalid {
					cexRes = fr.Result
				} else if fr.Result.Verdict != lts.Valid {
					t.Fatalf("result at K: %v", fr.Result.Verdict)
				}
				if tc.below == "" {
					if cexRes != nil {
						t.Fatalf("unexpected result below K: %+v", cexRes)
					}
					return
				}
				if cexRes.Verdict != lts.Invalid {
					t.Fatalf("below: verdict %v", cexRes.Verdict)
				}
				cex := cexRes.Counterexample
				if got := strings.Join(cex.Trace, " "); got != tc.below {
					t.Errorf("below: trace %q, want %q", got, tc.below)
				}
				if got := strings.Join(sorted(cex.Offered), " "); got != tc.offered {
					t.Errorf("below: offered %q, want %q", got, tc.offered)
				}
			}
		})
	}
}

func TestMinFactorErrors(t *testing.T) {
	tab := lts.NewEventTable()
	impl := graph(t, tab, "0-a->0")
	if _, err := MinFactor(context.Background(), impl, func(k int) (lts.Automaton, error) {
		return nil, fmt.Errorf("no spec %d", k)
	}, 3, Options{}); err == nil || !strings.Contains(err.Error(), "no spec 0") {
		t.Errorf("build error: %v", err)
	}
	if _, err := MinFactor(context.Background(), impl, nil, -1, Options{}); err == nil {
		t.Error("negative maxK accepted")
	}
	impl2, spec := bigLoop(t, 50000)
	fr, err := MinFactor(context.Background(), impl2, func(int) (lts.Automaton, error) { return spec, nil }, 3,
		Options{Limits: lts.Limits{MaxStates: 1000}})
	if err != nil || fr.Verdict != lts.Unknown || fr.Result == nil || fr.Result.Stats.Pairs == 0 {
		t.Fatalf("limit: %v %+v", err, fr)
	}
}

func TestCachedSystemSameSuccessors(t *testing.T) {
	tab := lts.NewEventTable()
	x := graph(t, tab, "0-a->1 0-tau->2 1-b->0 2-c->2 2-a->0")
	c := newCachedSystem(x, 2) // full after state 0
	for round := 0; round < 2; round++ {
		for s := lts.State(0); s < 3; s++ {
			got, _ := c.Successors(s, []lts.Transition{{Event: 9, Target: 9}})
			want, _ := x.Successors(s, []lts.Transition{{Event: 9, Target: 9}})
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("state %d: %v, want %v", s, got, want)
			}
		}
	}
	if states, tr := c.cachedLen(); tr != 2 || states < 1 {
		t.Errorf("cached %d states %d transitions, want state 0's 2 transitions only", states, tr)
	}
}

// MinFactor checks through its successor cache; counterexamples are still
// validated and described on the system itself.
func TestMinFactorDescribes(t *testing.T) {
	tab := lts.NewEventTable()
	impl := described{graph(t, tab, "0-a->1 1-a->2 2-b->0")}
	fr, err := MinFactor(context.Background(), impl, func(k int) (lts.Automaton, error) { return runSpec(tab, k, 0), nil }, 4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fr.K != 2 || fr.Below == nil || len(fr.Below.Counterexample.Initial) != 2 || len(fr.Below.Counterexample.Path[0].Vars) != 2 {
		t.Fatalf("K %d below %+v", fr.K, fr.Below)
	}
}
