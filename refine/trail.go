package refine

import (
	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lts"
)

// trail is the store of a product search: the pairs (impl state, spec
// macrostate or node) interned as 64-bit keys, and for each pair the pair
// and impl event it was first reached from, from which a counterexample's
// path is rebuilt. The trace and failures searches share it.
type trail struct {
	tab    *lts.EventTable
	pairs  *intern.Pairs         // (impl state, macrostate) packed in 64 bits -> pair id; dense: impl states are dense ids
	parent intern.Vec[uint32]    // parent[id]: the pair id id was first reached from
	via    intern.Vec[lts.Event] // via[id]: the impl event of that step (Tau for internal)
	perms  intern.Vec[lts.Perm]  // pair symmetry only (hasPerms): the renaming that made pair id a representative

	hasPerms bool

	bud      *budget.Budget
	progress func(Stats)
	// holdProgress: poll keeps the figures in held instead of calling
	// progress (a walk inside a csp round, where a callback using the
	// impl would wait for the round forever); flushProgress reports them.
	holdProgress bool
	held         []Stats
	specStates   func() int // the spec macrostates (nodes) so far
	countdown    int        // pairs until the next poll

	implSeen    []uint64 // bitset of impl states reached
	implCount   int64
	transitions int64
	maxDepth    int // trace length of the deepest level reached
}

func newTrail(tab *lts.EventTable, bud *budget.Budget, opt Options) trail {
	return trail{tab: tab, pairs: intern.NewDensePairs(1 << 12), bud: bud, progress: opt.Progress, countdown: pollEvery}
}

// store interns the pair (st, m) reached from parent by ev; added is false
// if it was stored before.
func (t *trail) store(st lts.State, m uint32, parent uint32, ev lts.Event) (id uint32, added bool) {
	id, added = t.pairs.Intern(uint64(st)<<32 | uint64(m))
	if added {
		t.parent.Append(parent)
		t.via.Append(ev)
	}
	return id, added
}

// implState is the impl state of pair id.
func (t *trail) implState(id uint32) lts.State {
	return lts.State(t.pairs.Get(id) >> 32)
}

// markImpl counts st among the impl states reached.
func (t *trail) markImpl(st lts.State) {
	w := int(st >> 6)
	if w >= len(t.implSeen) {
		t.implSeen = append(t.implSeen, make([]uint64, w+1-len(t.implSeen)+len(t.implSeen)/2)...)
	}
	if bit := uint64(1) << (st & 63); t.implSeen[w]&bit == 0 {
		t.implSeen[w] |= bit
		t.implCount++
	}
}

// poll checks the limits (and reports progress) every pollEvery pairs; it
// returns the limit hit, if any.
func (t *trail) poll() string {
	t.countdown = pollEvery
	if reason := t.bud.Exceeded(t.pairs.Len()); reason != "" {
		return reason
	}
	if t.progress != nil {
		if t.holdProgress {
			t.held = append(t.held, t.stats())
		} else {
			t.progress(t.stats())
		}
	}
	return ""
}

// flushProgress reports the figures poll held.
func (t *trail) flushProgress() {
	for _, st := range t.held {
		t.progress(st)
	}
	t.held = t.held[:0]
}

func (t *trail) unknown(reason string) *Result {
	return &Result{Verdict: lts.Unknown, Reason: reason, Stats: t.stats()}
}

func (t *trail) stats() Stats {
	secs := t.bud.Seconds()
	n := int64(t.pairs.Len())
	st := Stats{
		Stats: lts.Stats{
			States:      n,
			Transitions: t.transitions,
			Seconds:     secs,
			PeakBytes:   t.bud.Peak(),
			Depth:       t.maxDepth,
		},
		ImplStates:  t.implCount,
		Pairs:       n,
		Macrostates: int64(t.specStates()),
	}
	if secs > 0 {
		st.PairsPerSecond = float64(n) / secs
	}
	return st
}

// path returns the steps from the initial pair to pair id (tau included).
func (t *trail) path(id uint32) []pathStep {
	var steps []pathStep
	for ; t.parent.At(int(id)) != noParent; id = t.parent.At(int(id)) {
		steps = append(steps, pathStep{ev: t.via.At(int(id)), s: t.implState(id)})
	}
	for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
		steps[i], steps[j] = steps[j], steps[i]
	}
	return steps
}

// pathPerms returns the renamings of the pairs of path(id), in order.
func (t *trail) pathPerms(id uint32) []lts.Perm {
	var ps []lts.Perm
	for ; t.parent.At(int(id)) != noParent; id = t.parent.At(int(id)) {
		ps = append(ps, t.perms.At(int(id)))
	}
	for i, j := 0, len(ps)-1; i < j; i, j = i+1, j-1 {
		ps[i], ps[j] = ps[j], ps[i]
	}
	return ps
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
