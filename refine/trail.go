package refine

import (
	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lts"
)

// trail is the store of a product search: the pairs (impl state, spec
// macrostate or node) interned as 64-bit keys, and for each pair the pair
// and impl event it was first reached from, from which a counterexample's
// path is rebuilt. The trace and failures searches share it.
type trail struct {
	tab    *lts.EventTable
	pairs  *intern.Pairs // (impl state, macrostate) packed in 64 bits -> pair id
	parent []uint32      // parent[id]: the pair id id was first reached from
	via    []lts.Event   // via[id]: the impl event of that step (Tau for internal)
}

func newTrail(tab *lts.EventTable) trail {
	return trail{tab: tab, pairs: intern.NewPairs(1 << 12)}
}

// store interns the pair (st, m) reached from parent by ev; added is false
// if it was stored before.
func (t *trail) store(st lts.State, m uint32, parent uint32, ev lts.Event) (id uint32, added bool) {
	id, added = t.pairs.Intern(uint64(st)<<32 | uint64(m))
	if added {
		t.parent = append(t.parent, parent)
		t.via = append(t.via, ev)
	}
	return id, added
}

// implState is the impl state of pair id.
func (t *trail) implState(id uint32) lts.State {
	return lts.State(t.pairs.Get(id) >> 32)
}

// path returns the steps from the initial pair to pair id (tau included).
func (t *trail) path(id uint32) []pathStep {
	var steps []pathStep
	for ; t.parent[id] != noParent; id = t.parent[id] {
		steps = append(steps, pathStep{ev: t.via[id], s: t.implState(id)})
	}
	for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
		steps[i], steps[j] = steps[j], steps[i]
	}
	return steps
}

// traceError wraps a run-time error met at pair id (while performing ev,
// unless it is Tau) with the visible trace that reached it.
func (t *trail) traceError(id uint32, ev lts.Event, err error) error {
	var trace []string
	for _, st := range t.path(id) {
		if st.ev != lts.Tau {
			trace = append(trace, t.tab.Name(st.ev))
		}
	}
	if ev != lts.Tau {
		trace = append(trace, t.tab.Name(ev))
	}
	return &TraceError{Err: err, Trace: trace}
}
