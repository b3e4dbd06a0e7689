package linearize

import (
	"sync"
	"sync/atomic"

	"github.com/quasar-verify/quasar/lts"
)

// Mover is a system of interleaved components that says who moved in each
// transition, and whether the step is local (*csp.Proc).
type Mover interface {
	lts.System
	SuccessorsMoves(s lts.State, buf []lts.Transition, mv []lts.Move) ([]lts.Transition, []lts.Move, error)
}

// Reduced is the partial-order reduction of an invocation/response
// implementation described in the package documentation ("Reduction"):
// a local invocation is taken only together with its thread's next step
// (the state between them, "forced", lets that thread alone move), and in
// a state where some thread can only give local responses, only that
// thread moves. Its traces are traces of the implementation, and it has a
// trace whose history is not (quasi-)linearizable, or not well formed,
// whenever the implementation has one.
//
// A state id is 2s for the implementation's state s, and 2k+1 for the
// k-th forced state. It is safe for concurrent use.
type Reduced struct {
	base   Mover
	naming Naming
	tab    *lts.EventTable

	mu     sync.Mutex
	forced []forcedState
	index  map[forcedState]uint32
	roles  atomic.Pointer[[]Role] // by event; roleUnknown until classified
	pool   sync.Pool
}

type forcedState struct {
	s    lts.State
	comp int32
}

type reduceScratch struct {
	trs []lts.Transition
	mv  []lts.Move
}

// NewReduced reduces impl, whose invocations and responses are named as
// naming says.
func NewReduced(impl Mover, naming Naming) *Reduced {
	if naming.Rules == nil && (naming.Inv == "" || naming.Res == "") {
		naming = DefaultNaming
	}
	return &Reduced{base: impl, naming: naming, tab: impl.Events(), index: map[forcedState]uint32{}}
}

// Base is the system reduced.
func (r *Reduced) Base() Mover { return r.base }

func (r *Reduced) Initial() lts.State      { return 2 * r.base.Initial() }
func (r *Reduced) Events() *lts.EventTable { return r.tab }

// Symmetry is the base's (0 if it has none).
func (r *Reduced) Symmetry() int {
	if s, ok := r.base.(interface{ Symmetry() int }); ok {
		return s.Symmetry()
	}
	return 0
}

// Successors appends the reduced transitions of s.
func (r *Reduced) Successors(s lts.State, buf []lts.Transition) ([]lts.Transition, error) {
	buf, _, err := r.SuccessorsMoves(s, buf, nil)
	return buf, err
}

// SuccessorsMoves is Successors with the base's moves (a forced target
// keeps its renaming, with no ties: its forced thread is not
// interchangeable).
func (r *Reduced) SuccessorsMoves(id lts.State, buf []lts.Transition, mv []lts.Move) ([]lts.Transition, []lts.Move, error) {
	s, forced := r.decode(id)
	x, _ := r.pool.Get().(*reduceScratch)
	if x == nil {
		x = &reduceScratch{}
	}
	defer r.pool.Put(x)
	trs, moves, err := r.base.SuccessorsMoves(s, x.trs[:0], x.mv[:0])
	x.trs, x.mv = trs, moves
	if err != nil {
		return buf, mv, err
	}
	only := forced
	if only < 0 {
		only = r.responder(trs, moves)
	}
	for i, tr := range trs {
		m := moves[i]
		if only >= 0 && m.Comp != only {
			continue
		}
		target := 2 * tr.Target
		if forced < 0 && only < 0 && m.Local && m.Comp >= 0 && r.role(tr.Event) == RoleInv {
			target = r.force(tr.Target, int32(m.Perm.At(int(m.Comp))))
			m.Ties = 0
		}
		buf = append(buf, lts.Transition{Event: tr.Event, Target: target})
		mv = append(mv, m)
	}
	return buf, mv, nil
}

// responder returns the least component whose every step is a local
// response, or -1.
func (r *Reduced) responder(trs []lts.Transition, moves []lts.Move) int32 {
	// ok[c]: 0 no step seen, 1 all local responses so far, 2 some other.
	var ok [64]int8
	for i, tr := range trs {
		m := moves[i]
		if m.Comp < 0 || int(m.Comp) >= len(ok) {
			continue
		}
		if m.Local && m.CompLocal && r.role(tr.Event) == RoleRes {
			if ok[m.Comp] == 0 {
				ok[m.Comp] = 1
			}
		} else {
			ok[m.Comp] = 2
		}
	}
	for c, v := range ok {
		if v == 1 {
			return int32(c)
		}
	}
	return -1
}

func (r *Reduced) decode(id lts.State) (lts.State, int32) {
	if id%2 == 0 {
		return id / 2, -1
	}
	r.mu.Lock()
	f := r.forced[id/2]
	r.mu.Unlock()
	return f.s, f.comp
}

func (r *Reduced) force(s lts.State, comp int32) lts.State {
	f := forcedState{s, comp}
	r.mu.Lock()
	defer r.mu.Unlock()
	k, ok := r.index[f]
	if !ok {
		k = uint32(len(r.forced))
		r.forced = append(r.forced, f)
		r.index[f] = k
	}
	return lts.State(2*k + 1)
}

func (r *Reduced) role(e lts.Event) Role {
	if e == lts.Tau {
		return RoleOther
	}
	// Lock-free when known: the table of roles is replaced, never changed.
	if rs := r.roles.Load(); rs != nil && int(e) < len(*rs) && (*rs)[e] != roleUnknown {
		return (*rs)[e]
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var rs []Role
	if p := r.roles.Load(); p != nil {
		rs = *p
	}
	if int(e) < len(rs) && rs[e] != roleUnknown {
		return rs[e]
	}
	n := max(len(rs), int(e)+1)
	next := make([]Role, n)
	copy(next, rs)
	for i := len(rs); i < n; i++ {
		next[i] = roleUnknown
	}
	next[e] = roleOf(r.tab, r.naming, e)
	r.roles.Store(&next)
	return next[e]
}

// roleUnknown marks an event Reduced has not classified yet.
const roleUnknown Role = -1

// roleOf classifies e by its name (as Wrapper.classify does).
func roleOf(tab *lts.EventTable, naming Naming, e lts.Event) Role {
	c, err := naming.Read(tab.Base(e), tab.Data(e))
	if err != nil {
		return RoleOther
	}
	return c.Role
}

// Unreduce maps a path of the reduced system to the base (and, if the
// base is itself reduced by a symmetry, on to its unreduced system): the
// reduced system's steps are the base's.
func (r *Reduced) Unreduce(events []lts.Event, path []lts.State) (lts.System, []lts.State, error) {
	base := make([]lts.State, len(path))
	for i, id := range path {
		base[i], _ = r.decode(id)
	}
	if u, ok := r.base.(interface {
		Unreduce([]lts.Event, []lts.State) (lts.System, []lts.State, error)
	}); ok {
		return u.Unreduce(events, base)
	}
	return r.base, base, nil
}

// UnreduceRenamed is Unreduce for a base whose symmetry renames events
// (refine's pair symmetry).
func (r *Reduced) UnreduceRenamed(events []lts.Event, path []lts.State, ren []lts.Perm) (lts.System, []lts.State, error) {
	base := make([]lts.State, len(path))
	for i, id := range path {
		base[i], _ = r.decode(id)
	}
	if u, ok := r.base.(interface {
		UnreduceRenamed([]lts.Event, []lts.State, []lts.Perm) (lts.System, []lts.State, error)
	}); ok {
		return u.UnreduceRenamed(events, base, ren)
	}
	return r.base, base, nil
}
