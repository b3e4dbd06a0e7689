package linearize_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
	"github.com/quasar-verify/quasar/relax"
)

// queueSpec is a FIFO queue of capacity 2 over values 1 and 2, as an
// explicit automaton: enq.v, deq.v, and deq.0 when empty (the library's
// convention). A full queue refuses enq.
func queueSpec(tab *lts.EventTable) *lts.Explicit {
	x := lts.NewExplicit(tab)
	ids := map[string]lts.State{"": 0}
	queue := []string{""}
	id := func(q string) lts.State {
		if s, ok := ids[q]; ok {
			return s
		}
		s := x.AddState()
		ids[q] = s
		queue = append(queue, q)
		return s
	}
	for i := 0; i < len(queue); i++ {
		q := queue[i]
		from := ids[q]
		if len(q) < 2 {
			for _, v := range "12" {
				x.Add(from, "enq."+string(v), id(q+string(v)))
			}
		}
		if q == "" {
			x.Add(from, "deq.0", from)
		} else {
			x.Add(from, "deq."+q[:1], id(q[1:]))
		}
	}
	return x
}

// op is one operation a random thread performs: enq.v or deq (whose
// result the generator picks at random, right or wrong).
type op struct {
	enq bool
	v   int
}

// relaxedSpec is spec relaxed by cfg, or spec itself when cfg is nil.
func relaxedSpec(t *testing.T, spec lts.Automaton, cfg *relax.Config) lts.Automaton {
	t.Helper()
	if cfg == nil {
		return spec
	}
	rel, err := relax.New(spec, *cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// randomImpl builds a random acyclic implementation: two threads, each
// calling its operations in order (invocation, then response); at each
// node a random non-empty subset of the possible next events is kept, and
// a dequeue's response returns a random value (0, 1 or 2).
func randomImpl(r *rand.Rand, tab *lts.EventTable, maxOps int) *lts.Explicit {
	x := lts.NewExplicit(tab)
	progs := make([][]op, 2)
	for t := range progs {
		for range 1 + r.IntN(maxOps) {
			progs[t] = append(progs[t], op{enq: r.IntN(2) == 0, v: 1 + r.IntN(2)})
		}
	}
	// A thread's position: 2*k is before op k's invocation, 2*k+1
	// between its invocation and its response.
	var grow func(s lts.State, pos [2]int)
	grow = func(s lts.State, pos [2]int) {
		type move struct {
			name string
			t    int
		}
		var moves []move
		for t := range 2 {
			k := pos[t] / 2
			if k >= len(progs[t]) {
				continue
			}
			o := progs[t][k]
			switch {
			case pos[t]%2 == 0 && o.enq:
				moves = append(moves, move{fmt.Sprintf("enq_inv.%d.%d", t, o.v), t})
			case pos[t]%2 == 0:
				moves = append(moves, move{fmt.Sprintf("deq_inv.%d", t), t})
			case o.enq:
				moves = append(moves, move{fmt.Sprintf("enq_res.%d", t), t})
			default:
				moves = append(moves, move{fmt.Sprintf("deq_res.%d.%d", t, r.IntN(3)), t})
			}
		}
		if len(moves) == 0 {
			return
		}
		r.Shuffle(len(moves), func(i, j int) { moves[i], moves[j] = moves[j], moves[i] })
		for _, m := range moves[:1+r.IntN(len(moves))] {
			next := x.AddState()
			x.Add(s, m.name, next)
			p := pos
			p[m.t]++
			grow(next, p)
		}
	}
	grow(0, [2]int{})
	return x
}

// histories returns the history of every path from the initial state
// (every prefix of every run), written by the test's own reading of the
// events: one op per invocation, its response's data its output.
func histories(x *lts.Explicit) [][]history.Op {
	var out [][]history.Op
	var walk func(s lts.State, trace []string)
	walk = func(s lts.State, trace []string) {
		out = append(out, opsOf(trace))
		for _, tr := range x.Edges[s] {
			walk(tr.Target, append(slices.Clip(trace), x.Table.Name(tr.Event)))
		}
	}
	walk(0, nil)
	return out
}

func opsOf(trace []string) []history.Op {
	var ops []history.Op
	pending := map[int]int{}
	for i, name := range trace {
		base, data := lts.SplitName(name)
		t := data[0]
		if f, ok := strings.CutSuffix(base, "_inv"); ok {
			in := history.Nil()
			if len(data) > 1 {
				in = history.Int(int64(data[1]))
			}
			pending[t] = len(ops)
			ops = append(ops, history.Op{ID: len(ops), Process: t, F: f, Input: in, Status: history.Info, Call: int64(i), Return: history.Pending})
			continue
		}
		k := pending[t]
		delete(pending, t)
		ops[k].Status, ops[k].Return = history.Ok, int64(i)
		if len(data) > 1 {
			ops[k].Output = history.Int(int64(data[1]))
		}
	}
	return ops
}

// TestWrapperAgreesWithHistories: on random small implementations, the
// refinement check against the wrapped specification finds a violation
// exactly when the history engine finds some history of the implementation
// (some path's) not linearizable, or not quasi-linearizable with the same
// relaxation; and a counterexample's history is one of those.
func TestWrapperAgreesWithHistories(t *testing.T) {
	counts := map[string]int{}
	if wrong := wrapperAgainstHistories(t, 300, counts); wrong != "" {
		t.Fatal(wrong)
	}
	// The generator must produce both outcomes, or the test proves little.
	for _, k := range []string{"quasi=false valid", "quasi=false invalid", "quasi=true valid", "quasi=true invalid"} {
		if counts[k] < 10 {
			t.Errorf("only %d cases %s: %v", counts[k], k, counts)
		}
	}
	t.Log(counts)
}

// TestPruneMutants: each hand mutant of the wrapper's pruning rules (the
// states a set keeps, Wrapper.Reduce) gives a wrong verdict, or a
// counterexample that fails re-validation, on some of the random
// implementations of TestWrapperAgreesWithHistories (here with up to three
// operations a thread and a quasi factor of 2), so that test would notice
// a pruning rule that dropped a state adding traces; without a mutant
// every run agrees with the history engine.
func TestPruneMutants(t *testing.T) {
	// (A linearization with another result that reaches the same
	// specification state is no mutant here: the queue's results follow
	// from its states. The slack rule, relax.Relaxed.CoversSlack, has its own test
	// and mutant: TestCoversIncludesTraces.)
	for _, c := range []struct {
		mutant int
		what   string
	}{
		{0, "none: every run agrees"},
		{2, "any specification state after the linearizations will do"},
		{4, "the state reached drops the one that reaches it"},
	} {
		linearize.SetPruneMutant(c.mutant)
		failed := 0
		for seed := range uint64(20) {
			// Up to three operations a thread, and a factor of 2.
			if wrapperAgainstHistoriesSeed(t, seed, 50, 3, "2 on {deq} barrier {deq.0}", nil) != "" {
				failed++
			}
		}
		linearize.SetPruneMutant(0)
		t.Logf("mutant %d (%s): %d of 20 runs of 50 implementations go wrong", c.mutant, c.what, failed)
		if c.mutant == 0 && failed != 0 {
			t.Errorf("without a mutant, %d runs go wrong", failed)
		}
		if c.mutant != 0 && failed == 0 {
			t.Errorf("mutant %d (%s) went unnoticed", c.mutant, c.what)
		}
	}
}

// wrapperAgainstHistories runs the comparison of
// TestWrapperAgreesWithHistories on n random implementations and returns
// the first disagreement, or "".
func wrapperAgainstHistories(t *testing.T, n int, counts map[string]int) string {
	return wrapperAgainstHistoriesSeed(t, 7, n, 2, "1 on {deq} barrier {deq.0}", counts)
}

// wrapperAgainstHistoriesSeed is wrapperAgainstHistories with the seed,
// the largest number of operations of a thread and the relaxation.
func wrapperAgainstHistoriesSeed(t *testing.T, seed uint64, n, maxOps int, relaxation string, counts map[string]int) string {
	r := rand.New(rand.NewPCG(seed, 11))
	quasi, err := relax.ParseConfig(relaxation)
	if err != nil {
		t.Fatal(err)
	}
	cfgs := []*relax.Config{nil, &quasi}
	for iter := range n {
		tab := lts.NewEventTable()
		spec := queueSpec(tab)
		impl := randomImpl(r, tab, maxOps)
		for _, cfg := range cfgs {
			want := lts.Valid
			for _, ops := range histories(impl) {
				res, err := history.CheckOps(context.Background(), ops, history.FromAutomaton(spec), history.Options{Quasi: cfg, Workers: 1})
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict != lts.Valid {
					want = res.Verdict
					break
				}
			}
			s := relaxedSpec(t, spec, cfg)
			got, err := refine.Check(context.Background(), impl, linearize.New(s, linearize.DefaultNaming), refine.Options{})
			if err != nil {
				// A counterexample that fails re-validation, say.
				return fmt.Sprintf("iteration %d (quasi %v): %v", iter, cfg != nil, err)
			}
			if counts != nil {
				counts[fmt.Sprintf("quasi=%v %v", cfg != nil, want)]++
			}
			if got.Verdict != want {
				return fmt.Sprintf("iteration %d (quasi %v): the wrapper says %v, the histories %v\n%s", iter, cfg != nil, got.Verdict, want, dump(impl))
			}
			if got.Verdict == lts.Invalid {
				ops := opsOf(got.Counterexample.Trace)
				res, err := history.CheckOps(context.Background(), ops, history.FromAutomaton(spec), history.Options{Quasi: cfg, Workers: 1})
				if err != nil || res.Verdict != lts.Invalid {
					return fmt.Sprintf("iteration %d: the counterexample %v has a history the engine finds %v (%v)", iter, got.Counterexample.Trace, res.Verdict, err)
				}
			}
		}
	}
	return ""
}

func dump(x *lts.Explicit) string {
	var sb strings.Builder
	for s, ts := range x.Edges {
		for _, tr := range ts {
			fmt.Fprintf(&sb, "%d -%s-> %d\n", s, x.Table.Name(tr.Event), tr.Target)
		}
	}
	return sb.String()
}

// TestWrapperErrors: histories that are not well formed are model errors.
func TestWrapperErrors(t *testing.T) {
	for _, c := range []struct {
		trace []string
		want  string
	}{
		{[]string{"enq_inv.0.1", "enq_inv.0.2"}, "while its enq is pending"},
		{[]string{"deq_res.0.1"}, "without a pending call"},
		{[]string{"enq_inv.0.1", "deq_res.0.1"}, "to a call of enq"},
		{[]string{"hello.1"}, "neither an invocation"},
		{[]string{"enq_inv"}, "the first datum must be the thread"},
	} {
		tab := lts.NewEventTable()
		w := linearize.New(queueSpec(tab), linearize.DefaultNaming)
		set := w.Start(nil)
		var err error
		for _, name := range c.trace {
			var next []lts.State
			for _, s := range set {
				if next, err = w.Step(s, tab.InternName(name), next); err != nil {
					break
				}
			}
			set = next
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.trace, err, c.want)
		}
	}
}

// TestWrapperInterrupt: the wrapper passes the search's interrupt on to
// the automaton it wraps and says whether that one polls it: relax in
// window mode does, in exact mode it does not, a plain automaton takes
// none (refine then pauses a walk in a round at its polls only for the
// first, and a limit ends a long window step inside a linearizes check).
func TestWrapperInterrupt(t *testing.T) {
	tab := lts.NewEventTable()
	for _, c := range []struct {
		relaxation string // "" for none
		polls      bool
	}{{"", false}, {"1 on {deq} barrier {deq.0}", false}, {"1 window", true}} {
		var spec lts.Automaton = queueSpec(tab)
		if c.relaxation != "" {
			cfg, err := relax.ParseConfig(c.relaxation)
			if err != nil {
				t.Fatal(err)
			}
			rel, err := relax.New(spec, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer rel.Close()
			spec = rel
		}
		w := linearize.New(spec, linearize.DefaultNaming)
		if got := w.Polls(); got != c.polls {
			t.Errorf("%q: Polls %v, want %v", c.relaxation, got, c.polls)
		}
	}
	// The function reaches the wrapped automaton.
	rec := &interruptRecorder{Automaton: queueSpec(tab)}
	w := linearize.New(rec, linearize.DefaultNaming)
	var _ refine.Interruptible = w
	stop := func() bool { return true }
	w.SetInterrupt(stop)
	if rec.stop == nil || !rec.stop() || !w.Polls() {
		t.Error("the interrupt did not reach the wrapped automaton")
	}
	w.SetInterrupt(nil)
	if rec.stop != nil {
		t.Error("the interrupt was not taken back")
	}
}

// interruptRecorder is an automaton that takes an interrupt.
type interruptRecorder struct {
	lts.Automaton
	stop func() bool
}

func (r *interruptRecorder) SetInterrupt(stop func() bool) { r.stop = stop }
