package linearize

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/quasar-verify/quasar/csp"
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
// Two kinds of its steps are taken as one transition ("Compression" in
// the package documentation): a local invocation and the forced thread's
// next step when every such step is internal, and an internal step and
// the responses of the state it leads to when that state is a responding
// one. The state in between is then no state of the system (the search
// stores no pair for it); UnreduceSteps puts it back into a path.
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
	cache  succCache // the transitions of the states asked for
	// comps caches the base's transitions of one component (only) of
	// the states in between compressed steps: each is met from every
	// state before it.
	comps succCache
	// resp memoises staticResponder by base state: 0 unknown, 1 no
	// responder, 2+c component c (pages of respPage states, under mu).
	resp [][]uint8
	// uncompressed turns the compression off (tests compare the two).
	uncompressed bool
	// renamed memoises events with their thread renamed (rename).
	renMu   sync.Mutex
	renamed map[renKey]lts.Event
	// choose is the base name of the choices of arguments chosen late
	// (SetChoose; "" none): a choice into a responding state is
	// compressed with the responses as an internal step is, labelled
	// with both (combined).
	choose string
	// combined memoises combine (by first<<32 | e): interning the name
	// costs a string's building per compressed choice.
	combMu   sync.Mutex
	combined map[uint64]lts.Event
}

type forcedState struct {
	s    lts.State
	comp int32
}

type renKey struct {
	e lts.Event
	p lts.Perm
}

type reduceScratch struct {
	tmp   []lts.Transition // the base's successors
	tmpMv []lts.Move
	evs   []lts.Event // staticResponder's
	ends  []int
	// successorsPending's and Prepare's: a state's successors, a state's
	// in between, the targets to store; which of those go to forced
	// states, and which are the targets of internal steps that LocalSteps
	// showed to have no responder (quiet: their memo entry is set once
	// they are stored, so that their own expansion need not read it).
	p, q, out2    csp.Pending
	forced, quiet []int
	out           []lts.Transition // SuccessorsMoves's
	outMv         []lts.Move
	pre           []lts.State // prefetch's
	// Prepare's: the states of the batch, its stored targets, the
	// indices of one state's lists relative to its first target.
	batch []prepared
	bt    []lts.Transition
	bmv   []lts.Move
	rel   []int
}

// NewReduced reduces impl, whose invocations and responses are named as
// naming says.
func NewReduced(impl Mover, naming Naming) *Reduced {
	if naming.Rules == nil && (naming.Inv == "" || naming.Res == "") {
		naming = DefaultNaming
	}
	return &Reduced{base: impl, naming: naming, tab: impl.Events(), index: map[forcedState]uint32{}, renamed: map[renKey]lts.Event{}}
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
// interchangeable; a compressed step has the renaming of its two steps
// together and the ties of its target, and Comp -1 unless one component
// took both steps). A state's transitions are computed once and cached.
func (r *Reduced) SuccessorsMoves(id lts.State, buf []lts.Transition, mv []lts.Move) ([]lts.Transition, []lts.Move, error) {
	if e, ok := r.cache.get(id); ok {
		return append(buf, e.trs...), append(mv, e.mv...), nil
	}
	x, _ := r.pool.Get().(*reduceScratch)
	if x == nil {
		x = &reduceScratch{}
	}
	defer r.pool.Put(x)
	// Into the scratch's buffers, which stay in step (a caller may pass
	// buf with transitions and mv empty).
	trs, moves, err := r.successors(id, x.out[:0], x.outMv[:0], x)
	x.out, x.outMv = trs, moves
	if err != nil {
		return buf, mv, err
	}
	r.cache.put(id, trs, moves, 0)
	return append(buf, trs...), append(mv, moves...), nil
}

// successors computes the transitions of id (SuccessorsMoves).
func (r *Reduced) successors(id lts.State, buf []lts.Transition, mv []lts.Move, x *reduceScratch) ([]lts.Transition, []lts.Move, error) {
	if pd, ok := r.base.(pender); ok {
		return r.successorsPending(pd, id, buf, mv, x)
	}
	s, forced := r.decode(id)
	var trs []lts.Transition
	var moves []lts.Move
	var only int32
	var err error
	if forced >= 0 {
		only = forced
		trs, moves, err = r.compSuccessors(s, forced, x)
	} else {
		trs, moves, only, err = r.responding(s, x)
	}
	if err != nil {
		return buf, mv, err
	}
	// The scratch's own buffers are reused by the steps below.
	trs, moves = slices.Clone(trs), slices.Clone(moves)
	for i, tr := range trs {
		m := moves[i]
		if only >= 0 && m.Comp != only {
			continue
		}
		switch {
		case (tr.Event == lts.Tau || r.isChoose(tr.Event)) && !r.uncompressed:
			buf, mv = r.tauStep(tr, m, buf, mv, x)
		case forced < 0 && only < 0 && m.Local && m.Comp >= 0 && r.role(tr.Event) == RoleInv:
			buf, mv = r.invStep(tr, m, buf, mv, x)
		default:
			buf = append(buf, lts.Transition{Event: tr.Event, Target: 2 * tr.Target})
			mv = append(mv, m)
		}
	}
	return buf, mv, nil
}

// pender is a Mover that expands a state without storing its successors,
// and a pending successor in turn (*csp.Proc): the state in between a
// compressed step is then never stored.
type pender interface {
	compMover
	Expand(t lts.State, comp int32, p *csp.Pending) error
	ExpandPending(from *csp.Pending, i int, comp int32, p *csp.Pending) error
	PendingLocalSteps(p *csp.Pending, i int, evs []lts.Event, ends []int) ([]lts.Event, []int)
	Store(p *csp.Pending, is []int, buf []lts.Transition, mv []lts.Move) ([]lts.Transition, []lts.Move, error)
}

// successorsPending is successors with a pender base: the same
// transitions, but the states in between compressed steps are expanded
// from their encodings and not stored. Their threads keep the names of the
// state expanded (they are not renamed to a representative), so a
// response from one needs no renaming, and the renaming of a compressed
// step is that of its target alone. The targets are collected and stored
// together, in order.
func (r *Reduced) successorsPending(pd pender, id lts.State, buf []lts.Transition, mv []lts.Move, x *reduceScratch) ([]lts.Transition, []lts.Move, error) {
	out := &x.out2
	out.Reset()
	x.forced, x.quiet = x.forced[:0], x.quiet[:0]
	if err := r.pendingTargets(pd, id, out, x); err != nil {
		return buf, mv, err
	}
	n := len(buf)
	buf, mv, err := pd.Store(out, nil, buf, mv)
	if err != nil {
		return buf, mv, err
	}
	buf, mv = r.finishTargets(buf, mv, n, x.forced, x.quiet)
	return buf, mv, nil
}

// pendingTargets appends to out the pending targets of id's transitions
// (successorsPending), and to x.forced and x.quiet the indices in out of
// those that go to forced states and of those that have no responder.
func (r *Reduced) pendingTargets(pd pender, id lts.State, out *csp.Pending, x *reduceScratch) error {
	s, forced := r.decode(id)
	p := &x.p
	only := forced
	var err error
	if forced >= 0 {
		err = pd.Expand(s, forced, p)
	} else {
		// A pender tells the responder from the controls (LocalSteps).
		only, _ = r.staticResponder(s, x)
		err = pd.Expand(s, only, p)
	}
	if err != nil {
		return err
	}
	for i := range p.Len() {
		m := p.Move(i)
		if only >= 0 && m.Comp != only {
			continue
		}
		switch ev := p.Event(i); {
		case (ev == lts.Tau || r.isChoose(ev)) && !r.uncompressed:
			r.tauPending(pd, p, i, ev, m, out, x)
		case forced < 0 && only < 0 && m.Local && m.Comp >= 0 && r.role(ev) == RoleInv:
			r.invPending(pd, p, i, m, out, x)
		default:
			out.Add(p, i, ev, m)
		}
	}
	return nil
}

// finishTargets turns the stored targets buf[n:] (with their moves mv[n:])
// of one state's pending targets into its transitions: forced and quiet
// index them (from n), as pendingTargets listed them.
func (r *Reduced) finishTargets(buf []lts.Transition, mv []lts.Move, n int, forced, quiet []int) ([]lts.Transition, []lts.Move) {
	for k := n; k < len(buf); k++ {
		buf[k].Target *= 2
	}
	if quietMutant == 1 {
		// Every target, responding or not.
		quiet = quiet[:0:0]
		for k := range len(buf) - n {
			quiet = append(quiet, k)
		}
	}
	r.noteQuiet(buf[n:], quiet)
	// Invocations into forced states: their thread, named as in the
	// target.
	for _, k := range forced {
		m := &mv[n+k]
		m.Ties = 0
		buf[n+k].Target = r.force(buf[n+k].Target/2, int32(m.Perm.At(int(m.Comp))))
	}
	return buf, mv
}

// Prepare computes and caches the transitions of those of the states ids
// that are not cached yet, storing the targets of all of them together
// (one csp.Proc.Store), so that the cache misses of their lookups in the
// base's store overlap; a caller about to ask SuccessorsMoves of these
// states (refine's search with pair symmetry, on the pairs ahead) then
// finds them cached. The transitions are those SuccessorsMoves computes:
// a state's transitions depend on the state alone (LocalSteps builds the
// templates it reads), not on which states were expanded before it nor
// on when the program specialises its blocks. Only the base's numbering
// of the targets may differ, when a prepared state is never asked. A
// state whose expansion fails is left uncached, for SuccessorsMoves to
// report its error.
func (r *Reduced) Prepare(ids []lts.State) {
	pd, ok := r.base.(pender)
	if !ok || noPrepare {
		return
	}
	x, _ := r.pool.Get().(*reduceScratch)
	if x == nil {
		x = &reduceScratch{}
	}
	defer r.pool.Put(x)
	r.prefetch(ids, x)
	out := &x.out2
	out.Reset()
	x.forced, x.quiet = x.forced[:0], x.quiet[:0]
	x.batch = x.batch[:0]
	for _, id := range ids {
		if r.cache.has(id) || slices.ContainsFunc(x.batch, func(b prepared) bool { return b.id == id }) {
			continue
		}
		b := prepared{id: id, out: out.Len(), forced: len(x.forced), quiet: len(x.quiet)}
		if err := r.pendingTargets(pd, id, out, x); err != nil {
			out.Truncate(b.out)
			x.forced, x.quiet = x.forced[:b.forced], x.quiet[:b.quiet]
			continue
		}
		x.batch = append(x.batch, b)
	}
	if len(x.batch) == 0 {
		return
	}
	trs, moves, err := pd.Store(out, nil, x.bt[:0], x.bmv[:0])
	x.bt, x.bmv = trs, moves
	if err != nil {
		return
	}
	for j, b := range x.batch {
		end := prepared{out: out.Len(), forced: len(x.forced), quiet: len(x.quiet)}
		if j+1 < len(x.batch) {
			end = x.batch[j+1]
			if prepareMutant == 2 && end.out > b.out {
				end.out-- // the state's last target dropped
			}
		}
		// The indices are relative to the state's first target.
		x.rel = x.rel[:0]
		for _, list := range [][]int{x.forced[b.forced:end.forced], x.quiet[b.quiet:end.quiet]} {
			for _, k := range list {
				if prepareMutant == 1 {
					k += b.out // not made relative
				}
				x.rel = append(x.rel, k-b.out)
			}
		}
		nf := end.forced - b.forced
		buf := append(x.out[:0], trs[b.out:end.out]...)
		mv := append(x.outMv[:0], moves[b.out:end.out]...)
		buf, mv = r.finishTargets(buf, mv, 0, x.rel[:nf], x.rel[nf:])
		x.out, x.outMv = buf, mv
		r.cache.put(b.id, buf, mv, 0)
	}
}

// PeekEvents appends the events of id's transitions if they are cached
// (Prepare's), and reports whether they were; it computes and changes
// nothing (refine's search reads them to prefetch the memo slots its
// steps are about to look up).
func (r *Reduced) PeekEvents(id lts.State, buf []lts.Event) ([]lts.Event, bool) {
	e, ok := r.cache.peek(id)
	if !ok {
		return buf, false
	}
	for _, tr := range e.trs {
		buf = append(buf, tr.Event)
	}
	return buf, true
}

// prepared is a state of a Prepare batch: its id, and where its targets
// and their lists start in the batch's.
type prepared struct {
	id                 lts.State
	out, forced, quiet int
}

// prefetch starts loading the base's encodings of the states ids that are
// not cached yet (Prepare is about to expand them).
func (r *Reduced) prefetch(ids []lts.State, x *reduceScratch) {
	pf, ok := r.base.(interface{ Prefetch([]lts.State) })
	if !ok {
		return
	}
	x.pre = x.pre[:0]
	for _, id := range ids {
		if r.cache.has(id) {
			continue
		}
		s, _ := r.decode(id)
		x.pre = append(x.pre, s)
	}
	if len(x.pre) > 0 {
		pf.Prefetch(x.pre)
	}
}

// noPrepare turns Prepare off; prepareMutant, when not 0, makes it cache
// wrong transitions (a hand mutant, for the test that shows the
// comparison with SuccessorsMoves notices).
var (
	noPrepare     bool
	prepareMutant int
)

// tauPending adds to out the targets of the pending internal step i of p
// (tauStep): the responses from its target when that is a responding
// state, else the target.
func (r *Reduced) tauPending(pd pender, p *csp.Pending, i int, first lts.Event, m lts.Move, out *csp.Pending, x *reduceScratch) {
	// Read from the controls of the state in between (whatever states
	// were expanded before: csp.Proc.LocalSteps builds the templates of a
	// control met for the first time).
	evs, ends := pd.PendingLocalSteps(p, i, x.evs[:0], x.ends[:0])
	x.evs, x.ends = evs, ends
	c := r.responderOf(evs, ends)
	q := &x.q
	if c < 0 {
		// Not responding: stored as it is, and known to be so.
		if !noQuiet {
			x.quiet = append(x.quiet, out.Len())
		}
		out.Add(p, i, first, m)
		return
	}
	if pd.ExpandPending(p, i, c, q) != nil {
		// An error, left to the state in between, stored, to report with
		// its trace.
		out.Add(p, i, first, m)
		return
	}
	comp := int32(-1)
	if m.Comp == c {
		comp = c
	}
	for k := range q.Len() {
		m2 := q.Move(k)
		m2.Comp = comp
		out.Add(q, k, r.combine(first, q.Event(k)), m2)
	}
}

// invPending adds to out the targets of the pending local invocation i of
// p (invStep): the next steps of its thread from its target when they are
// all internal, else the target, a forced state.
func (r *Reduced) invPending(pd pender, p *csp.Pending, i int, m lts.Move, out *csp.Pending, x *reduceScratch) {
	q := &x.q
	err := pd.ExpandPending(p, i, m.Comp, q)
	all := err == nil && q.Len() > 0 && !r.uncompressed
	for k := range q.Len() {
		all = all && q.Event(k) == lts.Tau
	}
	if !all {
		// An error is left to the forced state's own expansion.
		x.forced = append(x.forced, out.Len())
		out.Add(p, i, p.Event(i), m)
		return
	}
	for k := range q.Len() {
		m2 := q.Move(k)
		m2.Comp = m.Comp
		out.Add(q, k, p.Event(i), m2)
	}
}

// responding returns the base's transitions of s that the reduced system
// takes (those of its responder, if it has one, else all of them; not to
// be modified, valid until x is reused) and the responder, or -1.
func (r *Reduced) responding(s lts.State, x *reduceScratch) ([]lts.Transition, []lts.Move, int32, error) {
	only, known := r.staticResponder(s, x)
	if known && only >= 0 {
		trs, moves, err := r.compSuccessors(s, only, x)
		return trs, moves, only, err
	}
	trs, moves, err := r.base.SuccessorsMoves(s, x.tmp[:0], x.tmpMv[:0])
	x.tmp, x.tmpMv = trs, moves
	if err != nil {
		return nil, nil, -1, err
	}
	if !known {
		only = r.responder(trs, moves)
	}
	return trs, moves, only, nil
}

// compSuccessors returns the base's transitions of s in which component
// comp moves (not to be modified; valid until x is reused).
func (r *Reduced) compSuccessors(s lts.State, comp int32, x *reduceScratch) ([]lts.Transition, []lts.Move, error) {
	if e, ok := r.comps.get(s); ok && e.only == comp {
		return e.trs, e.mv, nil
	}
	trs, moves, err := r.compExpand(s, comp, x)
	if err != nil {
		return trs, moves, err
	}
	e := r.comps.put(s, trs, moves, comp)
	if e.only != comp {
		// Cached for another component before: not replaced.
		return trs, moves, nil
	}
	return e.trs, e.mv, nil
}

// compExpand computes compSuccessors.
func (r *Reduced) compExpand(s lts.State, comp int32, x *reduceScratch) ([]lts.Transition, []lts.Move, error) {
	var trs []lts.Transition
	var moves []lts.Move
	var err error
	if cm, ok := r.base.(compMover); ok {
		trs, moves, err = cm.ComponentMoves(s, comp, x.tmp[:0], x.tmpMv[:0])
	} else {
		trs, moves, err = r.base.SuccessorsMoves(s, x.tmp[:0], x.tmpMv[:0])
		if err == nil {
			k := 0
			for i := range trs {
				if moves[i].Comp == comp {
					trs[k], moves[k] = trs[i], moves[i]
					k++
				}
			}
			trs, moves = trs[:k], moves[:k]
		}
	}
	x.tmp, x.tmpMv = trs, moves
	return trs, moves, err
}

// compMover is a Mover that expands one component alone and tells which
// components offer local steps only (*csp.Proc).
type compMover interface {
	ComponentMoves(s lts.State, comp int32, buf []lts.Transition, mv []lts.Move) ([]lts.Transition, []lts.Move, error)
	LocalSteps(t lts.State, evs []lts.Event, ends []int) ([]lts.Event, []int)
}

// staticResponder returns the least component of s whose every step is a
// local response (responder), read from the controls without expanding s;
// known is false when the base cannot tell.
func (r *Reduced) staticResponder(s lts.State, x *reduceScratch) (only int32, known bool) {
	cm, ok := r.base.(compMover)
	if !ok {
		return -1, false
	}
	page, at := int(s/respPage), int(s%respPage)
	r.mu.Lock()
	if page < len(r.resp) && r.resp[page] != nil {
		if v := r.resp[page][at]; v != 0 {
			r.mu.Unlock()
			return int32(v) - 2, true
		}
	}
	r.mu.Unlock()
	only = r.readResponder(cm, s, x)
	r.mu.Lock()
	for page >= len(r.resp) {
		r.resp = append(r.resp, nil)
	}
	if r.resp[page] == nil {
		r.resp[page] = make([]uint8, respPage)
	}
	r.resp[page][at] = uint8(only + 2)
	r.mu.Unlock()
	return only, true
}

// noteQuiet records in the memo of staticResponder that the targets
// trs[k], k in quiet (reduced ids of base states), have no responder, as
// LocalSteps read before they were stored. Whether a state has one does
// not depend on how its threads are named, so the representative the
// store keeps has none either.
func (r *Reduced) noteQuiet(trs []lts.Transition, quiet []int) {
	if len(quiet) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range quiet {
		if quietMutant == 2 && k+1 < len(trs) {
			k++ // the wrong target
		}
		s := trs[k].Target / 2
		page, at := int(s/respPage), int(s%respPage)
		for page >= len(r.resp) {
			r.resp = append(r.resp, nil)
		}
		if r.resp[page] == nil {
			r.resp[page] = make([]uint8, respPage)
		}
		if r.resp[page][at] == 0 {
			r.resp[page][at] = 1
		}
	}
}

// noQuiet turns noteQuiet off (the tests compare the two); quietMutant,
// when not 0, makes it record states it must not (a hand mutant, for the
// test that shows the comparison notices).
var (
	noQuiet     bool
	quietMutant int
)

// respPage is the number of states of a page of Reduced.resp.
const respPage = 1 << 12

// readResponder computes staticResponder.
func (r *Reduced) readResponder(cm compMover, s lts.State, x *reduceScratch) int32 {
	evs, ends := cm.LocalSteps(s, x.evs[:0], x.ends[:0])
	x.evs, x.ends = evs, ends
	return r.responderOf(evs, ends)
}

// responderOf is the least component whose steps, as LocalSteps lists
// them (evs, ends), are all local responses, and at least one; or -1.
func (r *Reduced) responderOf(evs []lts.Event, ends []int) int32 {
	start := 0
	for c, end := range ends {
		if end < 0 {
			continue
		}
		if end > start && c < 64 {
			all := true
			for _, e := range evs[start:end] {
				if r.role(e) != RoleRes {
					all = false
					break
				}
			}
			if all {
				return int32(c)
			}
		}
		start = end
	}
	return -1
}

// invStep appends the transitions for the local invocation tr of
// component m.Comp: the invocation together with each next step of its
// thread when they are all internal (compressed), else the invocation
// into the forced state.
func (r *Reduced) invStep(tr lts.Transition, m lts.Move, buf []lts.Transition, mv []lts.Move, x *reduceScratch) ([]lts.Transition, []lts.Move) {
	comp := int32(m.Perm.At(int(m.Comp))) // the thread, named as in the target
	trs, moves, err := r.compSuccessors(tr.Target, comp, x)
	n := 0
	for _, t := range trs {
		if t.Event != lts.Tau {
			n = 0
			break
		}
		n++
	}
	// An error is left to the forced state's own expansion, which reports
	// it with its trace.
	if err != nil || n == 0 || r.uncompressed {
		m.Ties = 0
		return append(buf, lts.Transition{Event: tr.Event, Target: r.force(tr.Target, comp)}), append(mv, m)
	}
	for i, t := range trs {
		buf = append(buf, lts.Transition{Event: tr.Event, Target: 2 * t.Target})
		mv = append(mv, lts.Move{Comp: m.Comp, Perm: m.Perm.Then(moves[i].Perm), Ties: moves[i].Ties})
	}
	return buf, mv
}

// tauStep appends the transitions for the internal step tr: if it leads
// to a responding state (one where some thread can only give local
// responses), that thread's responses from there (compressed), else tr.
func (r *Reduced) tauStep(tr lts.Transition, m lts.Move, buf []lts.Transition, mv []lts.Move, x *reduceScratch) ([]lts.Transition, []lts.Move) {
	if only, known := r.staticResponder(tr.Target, x); known && only < 0 {
		return append(buf, lts.Transition{Event: tr.Event, Target: 2 * tr.Target}), append(mv, m)
	}
	trs, moves, only, err := r.responding(tr.Target, x)
	if err != nil || only < 0 {
		return append(buf, lts.Transition{Event: tr.Event, Target: 2 * tr.Target}), append(mv, m)
	}
	// The responses name threads as the state in between does; the
	// transition names them as this state does.
	back := m.Perm.Inverse()
	for i, t := range trs {
		m2 := moves[i]
		if m2.Comp != only {
			continue
		}
		comp := int32(-1)
		if m.Comp >= 0 && int(m.Comp) == back.At(int(only)) {
			comp = m.Comp
		}
		buf = append(buf, lts.Transition{Event: r.combine(tr.Event, r.rename(t.Event, back)), Target: 2 * t.Target})
		mv = append(mv, lts.Move{Comp: comp, Perm: m.Perm.Then(m2.Perm), Ties: m2.Ties})
	}
	return buf, mv
}

// rename renames the thread of e (its first datum) by p.
func (r *Reduced) rename(e lts.Event, p lts.Perm) lts.Event {
	if p == 0 || e == lts.Tau {
		return e
	}
	k := renKey{e, p}
	r.renMu.Lock()
	out, ok := r.renamed[k]
	r.renMu.Unlock()
	if ok {
		return out
	}
	data := slices.Clone(r.tab.Data(e))
	if len(data) > 0 {
		data[0] = p.At(data[0])
	}
	out = r.tab.Intern(r.tab.Base(e), data...)
	r.renMu.Lock()
	r.renamed[k] = out
	r.renMu.Unlock()
	return out
}

// responder returns the least component whose every step is a local
// response, or -1.
func (r *Reduced) responder(trs []lts.Transition, moves []lts.Move) int32 {
	return r.firstResponder(len(trs), func(i int) lts.Move { return moves[i] }, func(i int) lts.Event { return trs[i].Event })
}

// firstResponder is responder over n steps given by their moves and events.
func (r *Reduced) firstResponder(n int, move func(int) lts.Move, event func(int) lts.Event) int32 {
	// ok[c]: 0 no step seen, 1 all local responses so far, 2 some other.
	var ok [64]int8
	for i := range n {
		m := move(i)
		if m.Comp < 0 || int(m.Comp) >= len(ok) {
			continue
		}
		if m.Local && m.CompLocal && r.role(event(i)) == RoleRes {
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

// UnreduceSteps maps a path of the reduced system (events[i] leads into
// path[i], from the initial state; ren[i], if ren is not nil, is the
// renaming of pair symmetry that takes path[i] to its concrete state) to
// a path of the base's unreduced system: a compressed step becomes its two
// steps. Each step is checked to be a transition of that system; a
// compressed step's state in between is found by trying the base's
// successors of the state before it.
func (r *Reduced) UnreduceSteps(events []lts.Event, path []lts.State, ren []lts.Perm) (lts.System, []lts.Event, []lts.State, error) {
	var evs []lts.Event
	var sts []lts.State
	var rens []lts.Perm
	prev, prevRen := r.base.Initial(), lts.Perm(0)
	for i, id := range path {
		s, _ := r.decode(id)
		var ri lts.Perm
		if ren != nil {
			ri = ren[i]
		}
		k := len(evs)
		evs, sts, rens = append(evs, events[i]), append(sts, s), append(rens, ri)
		if _, _, err := r.concrete(evs, sts, rens, ren != nil); err != nil {
			evs, sts, rens = evs[:k], sts[:k], rens[:k]
			trs, moves, err := r.base.SuccessorsMoves(prev, nil, nil)
			if err != nil {
				return nil, nil, nil, err
			}
			found := false
			c1, c2, comb := r.split(events[i])
			for j, tr := range trs {
				var e1, e2 lts.Event
				switch {
				case comb && r.rename(tr.Event, prevRen) == c1:
					e1, e2 = c1, c2
				case comb:
					continue
				case tr.Event == lts.Tau:
					e1, e2 = lts.Tau, events[i]
				case r.rename(tr.Event, prevRen) == events[i]:
					e1, e2 = events[i], lts.Tau
				default:
					continue
				}
				evs = append(evs, e1, e2)
				sts = append(sts, tr.Target, s)
				rens = append(rens, moves[j].Perm.Inverse().Then(prevRen), ri)
				if _, _, err := r.concrete(evs, sts, rens, ren != nil); err == nil {
					found = true
					break
				}
				evs, sts, rens = evs[:k], sts[:k], rens[:k]
			}
			if !found {
				return nil, nil, nil, fmt.Errorf("linearize: internal error: step %d of a reduced path has no counterpart", i+1)
			}
		}
		prev, prevRen = s, ri
	}
	sys, concrete, err := r.concrete(evs, sts, rens, ren != nil)
	if err != nil {
		return nil, nil, nil, err
	}
	return sys, evs, concrete, nil
}

// concrete maps a path of the base to its unreduced system and checks
// that each step is a transition there.
func (r *Reduced) concrete(events []lts.Event, path []lts.State, ren []lts.Perm, renamed bool) (lts.System, []lts.State, error) {
	var sys lts.System = r.base
	concrete := path
	var err error
	if u, ok := r.base.(interface {
		UnreduceRenamed([]lts.Event, []lts.State, []lts.Perm) (lts.System, []lts.State, error)
	}); ok && renamed {
		sys, concrete, err = u.UnreduceRenamed(events, path, ren)
	} else if u, ok := r.base.(interface {
		Unreduce([]lts.Event, []lts.State) (lts.System, []lts.State, error)
	}); ok {
		sys, concrete, err = u.Unreduce(events, path)
	}
	if err != nil {
		return nil, nil, err
	}
	cur := sys.Initial()
	var buf []lts.Transition
	for i, s := range concrete {
		if buf, err = sys.Successors(cur, buf[:0]); err != nil {
			return nil, nil, err
		}
		if !slices.Contains(buf, lts.Transition{Event: events[i], Target: s}) {
			return nil, nil, fmt.Errorf("linearize: step %d is not a transition", i+1)
		}
		cur = s
	}
	return sys, concrete, nil
}

// SetChoose names the choice events of arguments chosen late (base
// choose, data thread and value): a choice into a responding state is
// then compressed with its responses as an internal step is, into one
// transition labelled choose.T.A.R, R the response's event id
// (Wrapper reads it as the choice and then the response; UnreduceSteps
// puts the two steps back). The compressed system lacks the traces that
// end with such a choice, but no counterexample ends with a choice: a
// covered set of object states (Wrapper.Covered) restricted to one value
// of a thread is covered. Call it before the first step.
func (r *Reduced) SetChoose(base string) { r.choose = base }

// isChoose reports whether e is a choice (choose.T.A).
func (r *Reduced) isChoose(e lts.Event) bool {
	return r.choose != "" && e != lts.Tau && r.tab.Base(e) == r.choose && len(r.tab.Data(e)) == 2
}

// combine is the label of a compressed step: the response e after an
// internal step (first tau), or choose.T.A.R after the choice first.
func (r *Reduced) combine(first, e lts.Event) lts.Event {
	if first == lts.Tau {
		return e
	}
	k := uint64(first)<<32 | uint64(e)
	r.combMu.Lock()
	c, ok := r.combined[k]
	r.combMu.Unlock()
	if ok {
		return c
	}
	d := r.tab.Data(first)
	c = r.tab.Intern(r.choose, d[0], d[1], int(e))
	r.combMu.Lock()
	if r.combined == nil {
		r.combined = map[uint64]lts.Event{}
	}
	r.combined[k] = c
	r.combMu.Unlock()
	return c
}

// split returns the choice and the response of a combined label, ok
// false if e is none.
func (r *Reduced) split(e lts.Event) (choice, res lts.Event, ok bool) {
	if r.choose == "" || e == lts.Tau || r.tab.Base(e) != r.choose {
		return 0, 0, false
	}
	d := r.tab.Data(e)
	if len(d) != 3 {
		return 0, 0, false
	}
	return r.tab.Intern(r.choose, d[0], d[1]), lts.Event(d[2]), true
}
