package refine

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// fsets is a trace's tau-closed sets of impl and spec states.
type fsets struct{ i, s []lts.State }

func (p fsets) key() string {
	b := make([]byte, 0, 2*(len(p.i)+len(p.s))+1)
	for _, x := range p.i {
		b = binary.AppendUvarint(b, uint64(x)+1)
	}
	b = append(b, 0)
	for _, x := range p.s {
		b = binary.AppendUvarint(b, uint64(x)+1)
	}
	return string(b)
}

// divergent reports, from the definition, whether some state of the
// tau-closed set can perform tau forever: in a finite graph, some state of
// it reaches itself by one or more tau steps.
func divergent(x *lts.Explicit, set []lts.State) bool {
	for _, s := range set {
		var from []lts.State
		for _, t := range x.Edges[s] {
			if t.Event == lts.Tau {
				from = append(from, t.Target)
			}
		}
		if slices.Contains(closure(x, from), s) {
			return true
		}
	}
	return false
}

// refusals lists, from the definition, every set X of the universe (the
// visible events, then ✓ as bit len(events)) refused by a stable state of
// the set: X holds no event the state can perform (✓ if it terminated).
// Refusal sets are bitmasks.
func refusals(x *lts.Explicit, set []lts.State, events []lts.Event) map[uint]bool {
	out := map[uint]bool{}
	for _, s := range set {
		var init uint
		stable := true
		for _, t := range x.Edges[s] {
			if t.Event == lts.Tau {
				stable = false
			}
			for i, e := range events {
				if t.Event == e {
					init |= 1 << i
				}
			}
		}
		if x.Terminated(s) {
			init |= 1 << len(events)
		}
		if !stable {
			continue
		}
		for X := uint(0); X < 1<<(len(events)+1); X++ {
			if X&init == 0 {
				out[X] = true
			}
		}
	}
	return out
}

func anyTerminated(x *lts.Explicit, set []lts.State) bool {
	return slices.ContainsFunc(set, x.Terminated)
}

// failuresOracle decides F or FD refinement of explicit graphs from the
// definitions, independently of the package: it enumerates the traces of
// impl breadth first, each with the tau-closed sets of impl and spec states
// it leads to (a trace leading to a pair of sets already seen adds
// nothing), and compares the failures (t, X) of both sides for every X of
// the universe, and the divergences. It returns the length of a shortest
// violation (a trace t·e counts |t|+1, a failure or divergence after t
// counts |t|) or -1.
func failuresOracle(impl, spec *lts.Explicit, events []lts.Event, fd bool, maxLen int) int {
	start := fsets{closure(impl, []lts.State{impl.Init}), closure(spec, []lts.State{spec.Init})}
	seen := map[string]bool{start.key(): true}
	level := []fsets{start}
	for n := 0; n <= maxLen && len(level) > 0; n++ {
		var next []fsets
		traceViolation := false
		for _, p := range level {
			if fd && divergent(spec, p.s) {
				continue // divergence-strict: anything goes from here
			}
			if fd && divergent(impl, p.i) {
				return n
			}
			is, ss := refusals(impl, p.i, events), refusals(spec, p.s, events)
			for X := range is {
				if !ss[X] {
					return n
				}
			}
			if anyTerminated(impl, p.i) && !anyTerminated(spec, p.s) {
				traceViolation = true
			}
			for _, e := range events {
				i := post(impl, p.i, e)
				if len(i) == 0 {
					continue
				}
				s := post(spec, p.s, e)
				if len(s) == 0 {
					traceViolation = true
					continue
				}
				q := fsets{i, s}
				if k := q.key(); !seen[k] {
					seen[k] = true
					next = append(next, q)
				}
			}
		}
		if traceViolation {
			return n + 1
		}
		level = next
	}
	return -1
}

// randomProcess is randomGraph with some deadlocked states marked as
// terminated.
func randomProcess(r *rand.Rand, tab *lts.EventTable, n int, events []string) *lts.Explicit {
	x := randomGraph(r, tab, n, 2, events, 0.3)
	x.Final = make([]bool, n)
	for s := range n {
		x.Final[s] = len(x.Edges[s]) == 0 && r.IntN(2) == 0
	}
	return x
}

func cexLength(c *Counterexample) int { return len(c.Trace) }

func TestFailuresAgainstOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	cases := 3000
	if testing.Short() {
		cases = 600
	}
	count := map[string]int{}
	for c := 0; c < cases; c++ {
		tab := lts.NewEventTable()
		names := []string{"a", "b", "c"}[:1+r.IntN(3)]
		impl := randomProcess(r, tab, 1+r.IntN(5), names)
		spec := randomProcess(r, tab, 1+r.IntN(4), names)
		var events []lts.Event
		for _, n := range names {
			events = append(events, tab.InternName(n))
		}
		for _, model := range []Model{StableFailures, FailuresDivergences} {
			want := failuresOracle(impl, spec, events, model == FailuresDivergences, 64)
			res, err := CheckFailures(context.Background(), impl, spec, model, Options{})
			if err != nil {
				t.Fatalf("case %d %v: %v", c, model, err)
			}
			got := -1
			if res.Verdict == lts.Invalid {
				got = cexLength(res.Counterexample)
				count[model.String()+" "+res.Counterexample.Kind]++
			} else {
				count[model.String()+" "+res.Verdict.String()]++
			}
			if got != want {
				t.Fatalf("case %d %v: counterexample length %d (%+v), oracle %d\nimpl %+v final %v\nspec %+v final %v",
					c, model, got, res.Counterexample, want, impl.Edges, impl.Final, spec.Edges, spec.Final)
			}
		}
	}
	t.Logf("%d cases: %v", cases, count)
	for _, k := range []string{"F valid", "F trace", "F refusal", "FD valid", "FD trace", "FD refusal", "FD divergence"} {
		if count[k] == 0 {
			t.Errorf("no case of %q: the random cases do not cover it", k)
		}
	}
}

// build makes an explicit process from "from event to" triples; final
// lists terminated states.
func build(tab *lts.EventTable, edges [][3]any, final ...int) *lts.Explicit {
	x := lts.NewExplicit(tab)
	for _, e := range edges {
		x.Add(lts.State(e[0].(int)), e[1].(string), lts.State(e[2].(int)))
	}
	x.Final = make([]bool, len(x.Edges))
	for _, f := range final {
		for f >= len(x.Final) {
			x.AddState()
			x.Final = append(x.Final, false)
		}
		x.Final[f] = true
	}
	return x
}

// TestFailuresClassics checks the textbook cases, each reasoned from the
// definitions.
func TestFailuresClassics(t *testing.T) {
	tab := lts.NewEventTable()
	// a -> STOP [] b -> STOP
	external := build(tab, [][3]any{{0, "a", 1}, {0, "b", 2}})
	// a -> STOP |~| b -> STOP: two taus, then one branch each.
	internal := build(tab, [][3]any{{0, "tau", 1}, {0, "tau", 2}, {1, "a", 3}, {2, "b", 4}})
	// (mu P. a -> P) \ {a}: a tau loop.
	diverge := build(tab, [][3]any{{0, "tau", 0}})
	stop := lts.NewExplicit(tab)
	skip := build(tab, nil, 0)
	// a -> STOP |~| DIV
	maybeDiv := build(tab, [][3]any{{0, "tau", 1}, {0, "tau", 2}, {1, "a", 3}, {2, "tau", 2}})
	cases := []struct {
		name       string
		impl, spec *lts.Explicit
		model      Model
		kind       string // "" valid
		trace      int
	}{
		// The internal choice may refuse b after <>: a failure the
		// external choice does not have.
		{"internal F external", internal, external, StableFailures, KindRefusal, 0},
		{"external F internal", external, internal, StableFailures, "", 0},
		// Same traces: trace refinement cannot tell them apart.
		{"internal FD external", internal, external, FailuresDivergences, KindRefusal, 0},
		// A divergent process has no stable failures and only <>.
		{"div F stop", diverge, stop, StableFailures, "", 0},
		{"div FD stop", diverge, stop, FailuresDivergences, KindDivergence, 0},
		// Divergence is the bottom of FD: it is refined by everything.
		{"stop FD div", stop, diverge, FailuresDivergences, "", 0},
		{"external FD div", external, diverge, FailuresDivergences, "", 0},
		// ...but not of F, where DIV is the top: STOP refuses all.
		{"stop F div", stop, diverge, StableFailures, KindRefusal, 0},
		// SKIP terminates: <✓> is not a trace of STOP.
		{"skip F stop", skip, stop, StableFailures, KindTrace, 1},
		// STOP refuses ✓, SKIP does not.
		{"stop F skip", stop, skip, StableFailures, KindRefusal, 0},
		// Its stable part is a -> STOP: refines in F, diverges in FD.
		{"maybeDiv F a", maybeDiv, build(tab, [][3]any{{0, "a", 1}}), StableFailures, "", 0},
		{"maybeDiv FD a", maybeDiv, build(tab, [][3]any{{0, "a", 1}}), FailuresDivergences, KindDivergence, 0},
		{"a F stop", build(tab, [][3]any{{0, "a", 1}}), stop, StableFailures, KindTrace, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := CheckFailures(context.Background(), c.impl, c.spec, c.model, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.kind == "" {
				if res.Verdict != lts.Valid {
					t.Fatalf("verdict %v, want valid: %+v", res.Verdict, res.Counterexample)
				}
				return
			}
			if res.Verdict != lts.Invalid || res.Counterexample.Kind != c.kind || len(res.Counterexample.Trace) != c.trace {
				t.Fatalf("got %v %+v, want a %s of length %d", res.Verdict, res.Counterexample, c.kind, c.trace)
			}
		})
	}
}

// TestFailuresRefusalReport checks what a refusal counterexample says.
func TestFailuresRefusalReport(t *testing.T) {
	tab := lts.NewEventTable()
	external := build(tab, [][3]any{{0, "a", 1}, {0, "b", 2}})
	internal := build(tab, [][3]any{{0, "tau", 1}, {0, "tau", 2}, {1, "a", 3}, {2, "b", 4}})
	res, err := CheckFailures(context.Background(), internal, external, StableFailures, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Counterexample
	// The first stable state the search meets offers a only.
	if !slices.Equal(c.ImplOffers, []string{"a"}) || !slices.Equal(c.Refused, []string{"b"}) ||
		len(c.Acceptances) != 1 || !slices.Equal(c.Acceptances[0], []string{"a", "b"}) || len(c.Path) != 1 {
		t.Fatalf("refusal report %+v", c)
	}
}

// TestFailuresLimits: a state limit or a cancelled context ends the search
// unknown, with the statistics so far.
func TestFailuresLimits(t *testing.T) {
	tab := lts.NewEventTable()
	impl, spec := counters(tab, 200), modSpec(tab, 7, false)
	for _, model := range []Model{StableFailures, FailuresDivergences} {
		res, err := CheckFailures(context.Background(), impl, spec, model, Options{Limits: lts.Limits{MaxStates: 10000}})
		if err != nil || res.Verdict != lts.Unknown || res.Stats.Pairs < 10000 || res.Reason == "" {
			t.Errorf("%v with a state limit: %+v, %v", model, res, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err = CheckFailures(ctx, impl, spec, model, Options{})
		if err != nil || res.Verdict != lts.Unknown {
			t.Errorf("%v cancelled: %+v, %v", model, res, err)
		}
	}
}
