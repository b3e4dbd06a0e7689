package relax

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// buildSpec explores a specification given by a successor function over
// string-encoded states and returns it as an explicit automaton.
func buildSpec(table *lts.EventTable, init string, succ func(s string) [][2]string) *lts.Explicit {
	x := lts.NewExplicit(table)
	ids := map[string]lts.State{init: 0}
	queue := []string{init}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, et := range succ(s) {
			t, ok := ids[et[1]]
			if !ok {
				t = x.AddState()
				ids[et[1]] = t
				queue = append(queue, et[1])
			}
			x.Add(ids[s], et[0], t)
		}
	}
	return x
}

func encodeInts(xs []int) string {
	var sb strings.Builder
	for _, x := range xs {
		sb.WriteString(strconv.Itoa(x))
		sb.WriteByte(',')
	}
	return sb.String()
}

func decodeInts(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f != "" {
			n, _ := strconv.Atoi(f)
			out = append(out, n)
		}
	}
	return out
}

// queueSpec is a FIFO queue over values 1..vals holding at most capacity
// items, starting with preload: enq.v, deq.v (the head), deq.0 when empty.
func queueSpec(table *lts.EventTable, vals, capacity int, preload ...int) *lts.Explicit {
	return buildSpec(table, encodeInts(preload), func(s string) [][2]string {
		q := decodeInts(s)
		var out [][2]string
		if len(q) < capacity {
			for v := 1; v <= vals; v++ {
				out = append(out, [2]string{fmt.Sprintf("enq.%d", v), encodeInts(append(append([]int(nil), q...), v))})
			}
		}
		if len(q) == 0 {
			out = append(out, [2]string{"deq.0", s})
		} else {
			out = append(out, [2]string{fmt.Sprintf("deq.%d", q[0]), encodeInts(q[1:])})
		}
		return out
	})
}

// stackSpec is a LIFO stack: push.v, pop.v (the top), pop.0 when empty.
func stackSpec(table *lts.EventTable, vals, capacity int, preload ...int) *lts.Explicit {
	return buildSpec(table, encodeInts(preload), func(s string) [][2]string {
		q := decodeInts(s)
		var out [][2]string
		if len(q) < capacity {
			for v := 1; v <= vals; v++ {
				out = append(out, [2]string{fmt.Sprintf("push.%d", v), encodeInts(append(append([]int(nil), q...), v))})
			}
		}
		if len(q) == 0 {
			out = append(out, [2]string{"pop.0", s})
		} else {
			out = append(out, [2]string{fmt.Sprintf("pop.%d", q[len(q)-1]), encodeInts(q[:len(q)-1])})
		}
		return out
	})
}

// pqueueSpec is a min-priority queue: enq.v, deq.v (the least), deq.0.
func pqueueSpec(table *lts.EventTable, vals, capacity int) *lts.Explicit {
	return buildSpec(table, "", func(s string) [][2]string {
		q := decodeInts(s)
		var out [][2]string
		if len(q) < capacity {
			for v := 1; v <= vals; v++ {
				n := append(append([]int(nil), q...), v)
				sortInts(n)
				out = append(out, [2]string{fmt.Sprintf("enq.%d", v), encodeInts(n)})
			}
		}
		if len(q) == 0 {
			out = append(out, [2]string{"deq.0", s})
		} else {
			out = append(out, [2]string{fmt.Sprintf("deq.%d", q[0]), encodeInts(q[1:])})
		}
		return out
	})
}

func sortInts(xs []int) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// chainSpec is a -> b -> Stop.
func chainSpec(table *lts.EventTable) *lts.Explicit {
	x := lts.NewExplicit(table)
	x.Add(0, "a", 1)
	x.Add(1, "b", 2)
	return x
}

// trace reads "enq1 deq.2 deq0 a": a name followed by digits is an event
// with one datum (enq1 = enq.1); dotted names are taken as written.
func trace(table *lts.EventTable, text string) []lts.Event {
	var out []lts.Event
	for _, w := range strings.Fields(text) {
		if !strings.Contains(w, ".") {
			i := len(w)
			for i > 0 && w[i-1] >= '0' && w[i-1] <= '9' {
				i--
			}
			if i < len(w) {
				w = w[:i] + "." + w[i:]
			}
		}
		out = append(out, table.InternName(w))
	}
	return out
}

// accepts runs a set simulation of trace over a (Start/Step). With
// complete, the trace must also end in a settled state.
func accepts(t testing.TB, a *Relaxed, tr []lts.Event, complete bool) bool {
	t.Helper()
	cur := a.Start(nil)
	for _, e := range tr {
		var next []lts.State
		for _, s := range cur {
			var err error
			next, err = a.Step(s, e, next)
			if err != nil {
				t.Fatal(err)
			}
		}
		// As the refinement search does: drop subsumed states (window
		// mode), which must leave the accepted traces unchanged.
		cur = a.Reduce(dedupStates(next, 0))
		if len(cur) == 0 {
			return false
		}
	}
	if !complete {
		return true
	}
	for _, s := range cur {
		if a.Settled(s) {
			return true
		}
	}
	return false
}

// specAccepts reports whether tr is a trace of the plain automaton.
func specAccepts(t testing.TB, a lts.Automaton, tr []lts.Event) bool {
	t.Helper()
	cur := a.Start(nil)
	for _, e := range tr {
		var next []lts.State
		for _, s := range cur {
			var err error
			next, err = a.Step(s, e, next)
			if err != nil {
				t.Fatal(err)
			}
		}
		cur = dedupStates(next, 0)
		if len(cur) == 0 {
			return false
		}
	}
	return true
}

func mustNew(t testing.TB, spec lts.Automaton, cfg Config) *Relaxed {
	t.Helper()
	r, err := New(spec, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func mustParse(t testing.TB, text string) Config {
	t.Helper()
	c, err := ParseConfig(text)
	if err != nil {
		t.Fatalf("ParseConfig(%q): %v", text, err)
	}
	return c
}
