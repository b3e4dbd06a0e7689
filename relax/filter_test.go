package relax

import (
	"slices"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// refuse is a PullFilter that refuses the events in no, and (as a
// PullLister) lists the events in list.
type refuse struct {
	no    map[lts.Event]bool
	list  []lts.Event
	calls int
}

func (f *refuse) MayPull(_ lts.State, e lts.Event, _ int, _ []Obligation) bool {
	f.calls++
	return !f.no[e]
}

type lister struct{ *refuse }

func (l lister) Pullable(_ lts.State, buf []lts.Event) []lts.Event { return append(buf, l.list...) }

// walkStates steps every state reachable within depth events of r's
// initial states on every event of the table (the order is fixed), with
// the filter set around each Step, and returns the successors found, by
// (state, event).
func walkStates(t *testing.T, r *Relaxed, f PullFilter, depth int) map[[2]lts.State][]lts.State {
	t.Helper()
	out := map[[2]lts.State][]lts.State{}
	frontier := r.Start(nil)
	seen := map[lts.State]bool{}
	for d := 0; d < depth; d++ {
		var next []lts.State
		for _, s := range frontier {
			if seen[s] {
				continue
			}
			seen[s] = true
			for e := lts.Event(1); int(e) < r.Events().Len(); e++ {
				r.SetPullFilter(f)
				ts, err := r.Step(s, e, nil)
				r.SetPullFilter(nil)
				if err != nil {
					t.Fatal(err)
				}
				out[[2]lts.State{s, lts.State(e)}] = slices.Clone(ts)
				next = append(next, ts...)
			}
		}
		frontier = next
	}
	return out
}

// TestPullFilter: a filter that accepts everything, or lists every event,
// changes no transition; one that refuses an event leaves out exactly the
// runs that pull it (the successors are some of the automaton's, none owes
// it); and filtered transitions are not memoised for later unfiltered
// steps. Each comparison is on one automaton (state ids are its own).
func TestPullFilter(t *testing.T) {
	table := lts.NewEventTable()
	spec := queueSpec(table, 3, 3)
	cfg := Config{Mode: Exact, All: 2}
	fresh := func() *Relaxed {
		r, err := New(spec, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var all []lts.Event
	for e := lts.Event(1); int(e) < table.Len(); e++ {
		all = append(all, e)
	}
	for _, f := range []PullFilter{&refuse{no: map[lts.Event]bool{}}, lister{&refuse{no: map[lts.Event]bool{}, list: all}}} {
		r := fresh()
		got := walkStates(t, r, f, 4)
		if !equalSteps(got, walkStates(t, r, nil, 4)) {
			t.Fatalf("%T: a filter that refuses nothing changed the transitions", f)
		}
	}
	enq2, _ := table.Lookup("enq.2")
	r := fresh()
	no := &refuse{no: map[lts.Event]bool{enq2: true}}
	got := walkStates(t, r, no, 4)
	if no.calls == 0 {
		t.Fatal("the filter was never asked")
	}
	full := walkStates(t, r, nil, 4)
	fewer := false
	for k, ts := range got {
		want := full[k]
		for _, s := range ts {
			if !slices.Contains(want, s) {
				t.Fatalf("step %v: %d is not a transition", k, s)
			}
			_, obs, _ := r.ExactState(s, nil)
			for _, o := range obs {
				if o.Event == enq2 {
					t.Fatalf("step %v: %d owes the refused event", k, s)
				}
			}
		}
		fewer = fewer || len(ts) < len(want)
	}
	if !fewer {
		t.Fatal("refusing enq.2 left out no run (or the filtered steps were memoised)")
	}
}

func equalSteps(a, b map[[2]lts.State][]lts.State) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
