package refine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
)

// graph builds an Explicit over tab from edges written "from-event->to",
// separated by spaces; "tau" is the invisible event.
func graph(t testing.TB, tab *lts.EventTable, edges string) *lts.Explicit {
	t.Helper()
	x := lts.NewExplicit(tab)
	for _, e := range strings.Fields(edges) {
		from, rest, ok1 := strings.Cut(e, "-")
		ev, to, ok2 := strings.Cut(rest, "->")
		a, err1 := strconv.Atoi(from)
		b, err2 := strconv.Atoi(to)
		if !ok1 || !ok2 || err1 != nil || err2 != nil {
			t.Fatalf("bad edge %q", e)
		}
		x.Add(lts.State(a), ev, lts.State(b))
	}
	return x
}

// automaton views x as a spec: directly when it has no tau, else tau-closed.
func automaton(x *lts.Explicit) lts.Automaton {
	for _, out := range x.Edges {
		for _, tr := range out {
			if tr.Event == lts.Tau {
				return lts.NewTauClosed(x)
			}
		}
	}
	return x
}

func TestCheckHandWritten(t *testing.T) {
	tests := []struct {
		name       string
		impl, spec string
		valid      bool
		trace      string // expected shortest counterexample t·e, space separated
		offered    string // expected events offered by the spec after t
	}{
		{name: "equal loops", impl: "0-a->1 1-b->0", spec: "0-a->1 1-b->0", valid: true},
		{name: "spec stops", impl: "0-a->1 1-b->0", spec: "0-a->1", trace: "a b", offered: ""},
		{name: "impl extra choice", impl: "0-a->1 0-b->2", spec: "0-a->0", trace: "b", offered: "a"},
		{name: "spec with no transitions", impl: "0-a->0", spec: "", trace: "a", offered: ""},
		{name: "impl without visible events", impl: "0-tau->1 1-tau->0", spec: "", valid: true},
		// Nondeterministic specs: after a the spec is in {1,2}, offering b and c.
		{name: "nondet spec valid", impl: "0-a->1 1-b->2 2-a->3 3-c->0", spec: "0-a->1 0-a->2 1-b->0 2-c->0", valid: true},
		{name: "nondet spec needs subsets", impl: "0-a->1 1-b->2 1-c->3", spec: "0-a->1 0-a->2 1-b->3 2-c->3", valid: true},
		{name: "nondet spec invalid", impl: "0-a->1 1-b->2 2-c->0", spec: "0-a->1 0-a->2 1-b->0 2-c->0", trace: "a b c", offered: "a"},
		{name: "nondet spec union offered", impl: "0-a->1 1-d->2", spec: "0-a->1 0-a->2 1-b->3 2-c->3", trace: "a d", offered: "b c"},
		// Hiding: tau edges in the implementation.
		{name: "impl tau valid", impl: "0-tau->1 1-a->2 2-tau->0", spec: "0-a->0", valid: true},
		{name: "impl tau invalid", impl: "0-tau->1 1-a->2 2-tau->3 3-a->4 4-b->0", spec: "0-a->1 1-a->2", trace: "a a b", offered: ""},
		// Tau in the spec (TauClosed), including a tau choice.
		{name: "spec tau choice a", impl: "0-a->1", spec: "0-tau->1 0-tau->2 1-a->3 2-b->3", valid: true},
		{name: "spec tau choice both", impl: "0-a->1 0-b->2", spec: "0-tau->1 0-tau->2 1-a->3 2-b->3", valid: true},
		{name: "spec tau choice invalid", impl: "0-a->1 1-a->2", spec: "0-tau->1 0-tau->2 1-a->3 2-b->3", trace: "a a", offered: ""},
		{name: "spec tau loop", impl: "0-a->0", spec: "0-tau->1 1-tau->0 1-a->0", valid: true},
		{name: "spec tau after event", impl: "0-a->1 1-b->2 2-a->3 3-b->0", spec: "0-a->1 1-tau->2 2-b->3 3-tau->0", valid: true},
		// Divergence is invisible to trace refinement.
		{name: "divergent impl refines", impl: "0-tau->0 0-a->1 1-tau->1", spec: "0-a->1", valid: true},
		{name: "divergent impl invalid", impl: "0-tau->1 1-tau->0 1-b->2", spec: "0-a->0", trace: "b", offered: "a"},
		// Shortest in trace length, not in steps: [b] needs 3 steps, [a c] 2.
		{name: "shortest counts visible events", impl: "0-tau->1 1-tau->2 2-b->3 0-a->4 4-c->5", spec: "0-a->1", trace: "b", offered: "a"},
		{name: "shortest behind long tau chain", impl: "0-tau->1 1-tau->2 2-tau->3 3-c->4 0-a->5 5-b->6 6-c->7", spec: "0-a->1 1-b->2", trace: "c", offered: "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, opt := range allOptions() {
				tab := lts.NewEventTable()
				impl := graph(t, tab, tc.impl)
				spec := automaton(graph(t, tab, tc.spec))
				res, err := Check(context.Background(), impl, spec, opt)
				if err != nil {
					t.Fatalf("%+v: %v", opt, err)
				}
				if tc.valid {
					if res.Verdict != lts.Valid {
						t.Fatalf("%+v: verdict %v, want valid (cex %v)", opt, res.Verdict, res.Counterexample.Trace)
					}
					continue
				}
				if res.Verdict != lts.Invalid {
					t.Fatalf("%+v: verdict %v, want invalid", opt, res.Verdict)
				}
				cex := res.Counterexample
				if got := strings.Join(cex.Trace, " "); got != tc.trace {
					t.Errorf("%+v: trace %q, want %q", opt, got, tc.trace)
				}
				if got := strings.Join(cex.Offered, " "); got != tc.offered {
					t.Errorf("%+v: offered %q, want %q", opt, got, tc.offered)
				}
				if cex.Event != cex.Trace[len(cex.Trace)-1] {
					t.Errorf("event %q is not the last of the trace", cex.Event)
				}
			}
		})
	}
}

func allOptions() []Options {
	return []Options{{}, {NoAntichain: true}, {Workers: 2}, {Workers: 3, NoAntichain: true, parallelAll: true}}
}

func TestCounterexamplePathIncludesTau(t *testing.T) {
	tab := lts.NewEventTable()
	impl := graph(t, tab, "0-tau->1 1-tau->2 2-tau->3 3-c->4 0-a->5 5-b->6 6-c->7")
	spec := graph(t, tab, "0-a->1 1-b->2")
	res, err := Check(context.Background(), impl, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range res.Counterexample.Path {
		got = append(got, fmt.Sprintf("%s>%d", st.Event, st.State))
	}
	if want := "tau>1 tau>2 tau>3 c>4"; strings.Join(got, " ") != want {
		t.Errorf("path %q, want %q", strings.Join(got, " "), want)
	}
}

// described is an Explicit whose states show one variable x = state id / 2.
type described struct{ *lts.Explicit }

func (d described) Describe(s lts.State) []lts.Binding {
	return []lts.Binding{{Name: "x", Value: strconv.Itoa(int(s) / 2)}, {Name: "s", Value: strconv.Itoa(int(s))}}
}

func TestCounterexampleDescribesStates(t *testing.T) {
	tab := lts.NewEventTable()
	impl := described{graph(t, tab, "0-a->1 1-tau->2 2-b->3")}
	spec := graph(t, tab, "0-a->1")
	res, err := Check(context.Background(), impl, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cex := res.Counterexample
	if len(cex.Initial) != 2 || cex.Initial[0].Value != "0" {
		t.Fatalf("initial %v", cex.Initial)
	}
	// Steps to states 1, 2, 3: x is 0, 1, 1 and s always changes.
	wantChanged := []string{"s=1", "x=1 s=2", "s=3"}
	for i, st := range cex.Path {
		var ch []string
		for _, b := range st.Changed {
			ch = append(ch, b.Name+"="+b.Value)
		}
		if strings.Join(ch, " ") != wantChanged[i] {
			t.Errorf("step %d changed %v, want %s", i, ch, wantChanged[i])
		}
		if len(st.Vars) != 2 {
			t.Errorf("step %d vars %v", i, st.Vars)
		}
	}
}

func TestStatsHandCounted(t *testing.T) {
	// impl: a b loop over 2 states; spec: the same loop, a nondeterministic
	// copy making the macrostate after a equal to {1,2}.
	tab := lts.NewEventTable()
	impl := graph(t, tab, "0-a->1 1-b->0")
	spec := graph(t, tab, "0-a->1 0-a->2 1-b->0 2-b->0")
	res, err := Check(context.Background(), impl, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	// Pairs (0,{0}) and (1,{1,2}); two transitions; depth 1 (trace "a").
	if res.Verdict != lts.Valid || st.Pairs != 2 || st.States != 2 || st.ImplStates != 2 ||
		st.Macrostates != 2 || st.Transitions != 2 || st.Depth != 1 {
		t.Errorf("stats %+v verdict %v", st, res.Verdict)
	}
}

// failing is a System whose state 1 has a run-time error.
type failing struct{ *lts.Explicit }

func (f failing) Successors(s lts.State, buf []lts.Transition) ([]lts.Transition, error) {
	if s == 2 {
		return buf, &lts.RuntimeError{Pos: "m.csp:3:7", Msg: "division by zero"}
	}
	return f.Explicit.Successors(s, buf)
}

func TestRuntimeErrorCarriesTrace(t *testing.T) {
	for _, opt := range allOptions() {
		tab := lts.NewEventTable()
		impl := failing{graph(t, tab, "0-a->1 1-tau->2 2-b->0")}
		spec := graph(t, tab, "0-a->0 0-b->0")
		_, err := Check(context.Background(), impl, spec, opt)
		var te *TraceError
		var re *lts.RuntimeError
		if !errors.As(err, &te) || !errors.As(err, &re) {
			t.Fatalf("%+v: error %v, want a TraceError wrapping a RuntimeError", opt, err)
		}
		if strings.Join(te.Trace, " ") != "a" || re.Pos != "m.csp:3:7" {
			t.Errorf("trace %v, error %v", te.Trace, re)
		}
	}
}

func TestSeparateEventTablesRejected(t *testing.T) {
	impl := graph(t, lts.NewEventTable(), "0-a->0")
	spec := graph(t, lts.NewEventTable(), "0-a->0")
	if _, err := Check(context.Background(), impl, spec, Options{}); err == nil {
		t.Fatal("want an error for distinct event tables")
	}
}

// chain is an impl a^n (n states in a line) and a spec that accepts a^*.
func bigLoop(t testing.TB, n int) (*lts.Explicit, *lts.Explicit) {
	tab := lts.NewEventTable()
	impl := lts.NewExplicit(tab)
	for i := 0; i < n; i++ {
		impl.Add(lts.State(i), "a", lts.State(i+1))
	}
	return impl, graph(t, tab, "0-a->0")
}

func TestLimitsGiveUnknown(t *testing.T) {
	impl, spec := bigLoop(t, 100000)
	for _, opt := range []Options{{Limits: lts.Limits{MaxStates: 10000}}, {Workers: 2, Limits: lts.Limits{MaxStates: 10000}}} {
		res, err := Check(context.Background(), impl, spec, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != lts.Unknown || !strings.HasPrefix(res.Reason, "state limit") {
			t.Fatalf("verdict %v reason %q", res.Verdict, res.Reason)
		}
		if res.Stats.Pairs < 10000 || res.Stats.Pairs > 10000+2*pollEvery || res.Stats.ImplStates != res.Stats.Pairs {
			t.Errorf("stats %+v", res.Stats)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Check(ctx, impl, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != lts.Unknown || res.Reason != "cancelled" || res.Stats.Pairs == 0 {
		t.Fatalf("cancelled: verdict %v reason %q stats %+v", res.Verdict, res.Reason, res.Stats)
	}
	res, err = Check(context.Background(), impl, spec, Options{Limits: lts.Limits{Timeout: time.Nanosecond}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != lts.Unknown || !strings.HasPrefix(res.Reason, "time limit") {
		t.Fatalf("timeout: verdict %v reason %q", res.Verdict, res.Reason)
	}
	// Without limits the same search completes.
	res, err = Check(context.Background(), impl, spec, Options{})
	if err != nil || res.Verdict != lts.Valid || res.Stats.Pairs != 100001 {
		t.Fatalf("unlimited: %v %+v", err, res)
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func TestCancelDuringSearch(t *testing.T) {
	impl, spec := bigLoop(t, 200000)
	for _, opt := range []Options{{}, {Workers: 2}} {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		opt.Progress = func(st Stats) {
			calls++
			if st.Pairs == 0 {
				t.Error("progress without pairs")
			}
			cancel()
		}
		res, err := Check(ctx, impl, spec, opt)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		// Cancelled at the first poll, found at the next one.
		if res.Verdict != lts.Unknown || res.Reason != "cancelled" || calls != 1 || res.Stats.Pairs > 3*pollEvery {
			t.Fatalf("%+v: verdict %v reason %q calls %d stats %+v", opt, res.Verdict, res.Reason, calls, res.Stats)
		}
	}
}

func TestMemoryLimit(t *testing.T) {
	impl, spec := bigLoop(t, 100000)
	res, err := Check(context.Background(), impl, spec, Options{Limits: lts.Limits{MaxBytes: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != lts.Unknown || !strings.HasPrefix(res.Reason, "memory limit") || res.Stats.Pairs == 0 {
		t.Fatalf("verdict %v reason %q stats %+v", res.Verdict, res.Reason, res.Stats)
	}
}

func TestResultJSON(t *testing.T) {
	tab := lts.NewEventTable()
	res, err := Check(context.Background(), graph(t, tab, "0-a->1 1-tau->2 2-b->0"), graph(t, tab, "0-a->1"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"verdict":"invalid"`, `"states":`, `"transitions":`, `"seconds":`, `"peak_bytes":`,
		`"depth":1`, `"impl_states":`, `"pairs":`, `"macrostates":`, `"pairs_per_second":`,
		`"trace":["a","b"]`, `"event":"b"`, `"offered":[]`, `"path":[`, `"visible":false`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s:\n%s", key, b)
		}
	}
}

// The violation [a b] is found from state 1 before state 2, whose
// successors fail, is expanded: re-validation must not trip over state 2.
func TestErrorBeyondViolationIgnored(t *testing.T) {
	for _, opt := range allOptions() {
		tab := lts.NewEventTable()
		impl := failing{graph(t, tab, "0-a->1 0-a->2 1-b->3")}
		res, err := Check(context.Background(), impl, graph(t, tab, "0-a->1"), opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		if res.Verdict != lts.Invalid || strings.Join(res.Counterexample.Trace, " ") != "a b" {
			t.Fatalf("%+v: %v %v", opt, res.Verdict, res.Counterexample)
		}
	}
}

func TestAntichainPrunes(t *testing.T) {
	// b reaches (1,{1}) before a reaches (1,{1,2}): pruned by the lookup
	// of a singleton. d reaches (3,{5,6}) before e reaches (3,{5,6,7}):
	// pruned by the scan of state 3's list.
	tab := lts.NewEventTable()
	impl := graph(t, tab, "0-b->1 0-a->1 1-c->1 0-d->3 0-e->3 3-c->3")
	spec := graph(t, tab, "0-a->1 0-a->2 0-b->1 1-c->1 2-c->2 "+
		"0-d->5 0-d->6 0-e->5 0-e->6 0-e->7 5-c->5 6-c->6 7-c->7")
	want := map[bool]int64{
		// on: (0,{0}) (1,{1}) (3,{5,6}); off adds (1,{1,2}) (3,{5,6,7}).
		false: 3, true: 5,
	}
	for _, off := range []bool{false, true} {
		res, err := Check(context.Background(), impl, spec, Options{NoAntichain: off})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != lts.Valid || res.Stats.Pairs != want[off] {
			t.Errorf("NoAntichain=%v: %v with %d pairs, want valid with %d", off, res.Verdict, res.Stats.Pairs, want[off])
		}
	}
}

// panicky is a System that panics in state 1 (a bug in a system, not in
// the model): Check reports an internal error instead of crashing.
type panicky struct{ *lts.Explicit }

func (p panicky) Successors(s lts.State, buf []lts.Transition) ([]lts.Transition, error) {
	if s == 1 {
		panic("boom")
	}
	return p.Explicit.Successors(s, buf)
}

func TestPanicBecomesError(t *testing.T) {
	for _, opt := range allOptions() {
		tab := lts.NewEventTable()
		impl := panicky{graph(t, tab, "0-a->1 1-a->0")}
		_, err := Check(context.Background(), impl, graph(t, tab, "0-a->0"), opt)
		if err == nil || !strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), "boom") {
			t.Errorf("%+v: error %v", opt, err)
		}
	}
}
