package csp

import (
	"fmt"
	"slices"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// SuccessorsMoves is Successors with an lts.Move per transition: the
// component that moved, whether the step is local (and every step its
// component offers is), and under a symmetry the renaming that made the
// target its representative. The transitions are those of Successors, in
// the same order.
func (s *Proc) SuccessorsMoves(t lts.State, buf []lts.Transition, mv []lts.Move) (out []lts.Transition, moves []lts.Move, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, moves, err = buf, mv, fmt.Errorf("lts: internal error: %v", r)
		}
	}()
	x := s.getScratch()
	defer s.pool.Put(x)
	if err := s.expand(t, x); err != nil {
		return buf, mv, err
	}
	return s.moves(x, buf, mv)
}

// ComponentMoves is SuccessorsMoves restricted to the transitions in which
// component comp alone moves (Move.Comp == comp), in the same order: the
// other components' steps are evaluated (a run-time error of the state is
// reported as SuccessorsMoves reports it) but their successors are neither
// encoded nor stored.
func (s *Proc) ComponentMoves(t lts.State, comp int32, buf []lts.Transition, mv []lts.Move) (out []lts.Transition, moves []lts.Move, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, moves, err = buf, mv, fmt.Errorf("lts: internal error: %v", r)
		}
	}()
	x := s.getScratch()
	x.only = comp + 1
	defer func() {
		x.only = 0
		s.pool.Put(x)
	}()
	if err := s.expand(t, x); err != nil {
		return buf, mv, err
	}
	if x.only != 0 {
		// The general path made every successor: keep comp's.
		s.keepComp(x, comp)
	}
	return s.moves(x, buf, mv)
}

// keepComp drops from x the successors that component comp alone did not
// make (the general path's joints of several components included).
func (s *Proc) keepComp(x *scratch, comp int32) {
	enc, ends, evs, who := x.enc[:0], x.ends[:0], x.evs[:0], x.who[:0]
	start := 0
	for i, end := range x.ends {
		w := x.who[i]
		c := int32(-1)
		switch {
		case w <= -2:
			c = (-2 - w) / 2
		case w >= 0:
			if j := x.c.joints[w]; j.n == 1 {
				c = x.c.flat[x.c.parts[j.off]].who
			}
		}
		if c == comp {
			// In place: the kept bytes never overtake the ones read.
			enc = append(enc, x.enc[start:end]...)
			ends = append(ends, len(enc))
			evs = append(evs, x.evs[i])
			who = append(who, w)
		}
		start = end
	}
	x.enc, x.ends, x.evs, x.who = enc, ends, evs, who
}

// LocalSteps tells, for each component of state t in order, whether
// every step its control offers is local (lts.Move.Local and CompLocal:
// unguarded prefixes without event block and with a fixed label, in an
// interleaving without atomic steps), so that they are all enabled
// whatever the variables, and SuccessorsMoves lists exactly these steps
// for that component, in this order. It appends their events to evs (a
// hidden event is tau) and, per component, the end of its events in evs
// to ends, or -1 when some step of that component is not local (or its
// control has no templates: a complex term, or one whose templates fail
// to build, an error that expanding t reports).
//
// The answer is a function of t alone: a control whose templates are not
// built yet (never expanded, or dropped when the program specialised its
// blocks) has them built here, so that what a caller reads does not
// depend on which states were expanded before.
func (s *Proc) LocalSteps(t lts.State, evs []lts.Event, ends []int) (outEvs []lts.Event, outEnds []int) {
	var cb [16]uint32
	var sb [64]byte
	comps, _ := s.decodeComps(s.storeGet(t, sb[:0]), cb[:0])
	return s.localSteps(comps, evs, ends)
}

// localSteps is LocalSteps of the state whose components are comps.
func (s *Proc) localSteps(comps []uint32, evs []lts.Event, ends []int) (outEvs []lts.Event, outEnds []int) {
	for _, ct := range comps {
		if !s.indep {
			ends = append(ends, -1)
			continue
		}
		if ct == termSkip || ct == termStop {
			ends = append(ends, len(evs))
			continue
		}
		ts := s.tmplSet(ct)
		if ts == nil || !ts.plain || !ts.local {
			ends = append(ends, -1)
			continue
		}
		for i := range ts.es {
			ev := ts.es[i].ev
			for _, h := range s.hides {
				if s.p.has(h, ev) {
					ev = lts.Tau
					break
				}
			}
			evs = append(evs, ev)
		}
		ends = append(ends, len(evs))
	}
	return evs, ends
}

// tmplSet is the template set of control ct (Program.tmplSet), nil if it
// has none (a complex term, or an error building it).
func (s *Proc) tmplSet(ct uint32) *tmplSet {
	if memoOnly {
		// The hand mutant: only the sets built so far.
		return s.p.term(ct).edges.Load()
	}
	ts, err := s.p.tmplSet(ct)
	if err != nil {
		return nil
	}
	return ts
}

// memoOnly makes LocalSteps and the moves read only the template sets
// built so far, as they did before they built them on demand (a hand
// mutant: a state's moves then depend on the order of exploration, which
// the tests must notice).
var memoOnly bool

// SetMemoOnlyMutant turns the hand mutant memoOnly on or off (tests of
// other packages only) and returns a function that restores the previous
// setting.
func SetMemoOnlyMutant(on bool) func() {
	old := memoOnly
	memoOnly = on
	return func() { memoOnly = old }
}

// Pending is the successors of a state, encoded but not stored (Expand,
// ExpandPending): a caller that takes some of them as they are and looks
// further into others (linearize.Reduced's compressed steps) stores only
// the states it keeps (Store). Its moves have no renaming: a pending state
// is not a representative yet, its threads are named as in the state it
// came from.
type Pending struct {
	enc   []byte
	ends  []int
	evs   []lts.Event
	moves []lts.Move
}

// Len is the number of successors.
func (p *Pending) Len() int { return len(p.ends) }

// Event is the event of successor i.
func (p *Pending) Event(i int) lts.Event { return p.evs[i] }

// Move is the move of successor i (Perm and Ties zero).
func (p *Pending) Move(i int) lts.Move { return p.moves[i] }

// Reset empties p.
func (p *Pending) Reset() {
	p.enc, p.ends, p.evs, p.moves = p.enc[:0], p.ends[:0], p.evs[:0], p.moves[:0]
}

// Add appends the pending successor i of from to p, with event ev and
// move m (a caller that compresses steps relabels them).
func (p *Pending) Add(from *Pending, i int, ev lts.Event, m lts.Move) {
	p.enc = append(p.enc, from.bytes(i)...)
	p.ends = append(p.ends, len(p.enc))
	p.evs = append(p.evs, ev)
	p.moves = append(p.moves, m)
}

func (p *Pending) bytes(i int) []byte {
	start := 0
	if i > 0 {
		start = p.ends[i-1]
	}
	return p.enc[start:p.ends[i]]
}

// Expand is SuccessorsMoves (comp < 0) or ComponentMoves (comp >= 0)
// without storing the successors: it sets p to them.
func (s *Proc) Expand(t lts.State, comp int32, p *Pending) (err error) {
	x := s.getScratch()
	x.raw = s.raw(t, x.raw)
	return s.expandPending(x, comp, p)
}

// ExpandPending is Expand from the pending successor i of from.
func (s *Proc) ExpandPending(from *Pending, i int, comp int32, p *Pending) (err error) {
	x := s.getScratch()
	x.raw = append(x.raw[:0], from.bytes(i)...)
	return s.expandPending(x, comp, p)
}

// expandPending expands the state encoded in x.raw into p and puts x back
// in the pool.
func (s *Proc) expandPending(x *scratch, comp int32, p *Pending) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("lts: internal error: %v", r)
		}
		x.only = 0
		s.pool.Put(x)
	}()
	x.enc, x.ends, x.evs, x.who = x.enc[:0], x.ends[:0], x.evs[:0], x.who[:0]
	if comp >= 0 {
		x.only = comp + 1
	}
	p.enc, p.ends, p.evs, p.moves = p.enc[:0], p.ends[:0], p.evs[:0], p.moves[:0]
	if err := s.expandRaw(x.raw, x); err != nil {
		return err
	}
	if comp >= 0 {
		s.keepComp(x, comp)
	}
	p.moves = s.whoMoved(x, p.moves)
	p.enc = append(p.enc, x.enc...)
	p.ends = append(p.ends, x.ends...)
	p.evs = append(p.evs, x.evs...)
	return nil
}

// PendingLocalSteps is LocalSteps of the pending successor i of p.
func (s *Proc) PendingLocalSteps(p *Pending, i int, evs []lts.Event, ends []int) ([]lts.Event, []int) {
	var cb [16]uint32
	comps, _ := s.decodeComps(p.bytes(i), cb[:0])
	return s.localSteps(comps, evs, ends)
}

// Store stores the pending successors is of p (all of them if is is nil),
// in order, and appends their transitions and moves (with the renamings of
// the symmetry, if any) to buf and mv.
func (s *Proc) Store(p *Pending, is []int, buf []lts.Transition, mv []lts.Move) (out []lts.Transition, moves []lts.Move, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, moves, err = buf, mv, fmt.Errorf("lts: internal error: %v", r)
		}
	}()
	x := s.getScratch()
	defer s.pool.Put(x)
	x.enc, x.ends, x.evs = x.enc[:0], x.ends[:0], x.evs[:0]
	n, k := len(buf), len(mv)
	add := func(i int) {
		x.enc = append(x.enc, p.bytes(i)...)
		x.ends = append(x.ends, len(x.enc))
		x.evs = append(x.evs, p.evs[i])
		mv = append(mv, p.moves[i])
	}
	if is == nil {
		for i := range p.ends {
			add(i)
		}
	} else {
		for _, i := range is {
			add(i)
		}
	}
	buf = s.intern(x, buf)
	if s.sym != nil {
		for i := range buf[n:] {
			mv[k+i].Perm = x.sym.perms[i]
			mv[k+i].Ties = x.sym.tiesOf[i]
		}
	}
	return buf, mv, nil
}

// moves interns the successors expanded into x and appends them to buf,
// with their moves to mv.
func (s *Proc) moves(x *scratch, buf []lts.Transition, mv []lts.Move) ([]lts.Transition, []lts.Move, error) {
	// Read who moved before intern: canonicalising decodes into x.comps.
	mv = s.whoMoved(x, mv)
	n := len(buf)
	buf = s.intern(x, buf)
	if s.sym != nil {
		for i := range buf[n:] {
			mv[len(mv)-(len(buf)-n)+i].Perm = x.sym.perms[i]
			mv[len(mv)-(len(buf)-n)+i].Ties = x.sym.tiesOf[i]
		}
	}
	return buf, mv, nil
}

// whoMoved appends the moves of the successors expanded into x (without
// renamings) to mv.
func (s *Proc) whoMoved(x *scratch, mv []lts.Move) []lts.Move {
	for _, w := range x.who {
		m := lts.Move{Comp: -1}
		switch {
		case w <= -2:
			i := (-2 - w) / 2
			m.Comp = i
			m.Local = (-2-w)%2 == 1
			if m.Local {
				ts := s.tmplSet(x.comps[i])
				m.CompLocal = ts != nil && ts.local
			}
		case w >= 0:
			// The general path: one component, unless it synchronised;
			// local as the plain path decides it, so that a state's moves
			// do not depend on which path expanded it.
			j := x.c.joints[w]
			if j.n != 1 {
				break
			}
			fm := &x.c.flat[x.c.parts[j.off]]
			m.Comp = fm.who
			ts := s.tmplSet(x.comps[fm.who])
			if s.indep && fm.x < 0 && ts != nil && ts.plain && localEdge(fm.e) {
				m.Local, m.CompLocal = true, ts.local
			}
		}
		mv = append(mv, m)
	}
	return mv
}

// UnreduceRenamed maps a path of s, whose symmetry renames events
// (SymmetricEventsProcess), to the path of Unreduced() that it stands for:
// step i leads to ren[i] applied to path[i] (threads renamed, the thread
// array entries moved with them) by events[i]. Under such a symmetry the
// concrete state matters, not only its orbit: the events after it name
// its threads. Every step is checked to be a transition of Unreduced().
func (s *Proc) UnreduceRenamed(events []lts.Event, path []lts.State, ren []lts.Perm) (lts.System, []lts.State, error) {
	if s.sym == nil {
		return s, path, nil
	}
	u := s.sym.plain
	cur := u.Initial()
	out := make([]lts.State, 0, len(path))
	var ts []lts.Transition
	for i, rep := range path {
		var err error
		if ts, err = u.Successors(cur, ts[:0]); err != nil {
			return nil, nil, err
		}
		enc := s.renamed(rep, ren[i])
		u.mu.Lock()
		id, ok := u.store.Lookup(enc)
		u.mu.Unlock()
		if !ok || !slices.Contains(ts, lts.Transition{Event: events[i], Target: lts.State(id)}) {
			return nil, nil, fmt.Errorf("lts: internal error: step %d of a symmetry-reduced path has no unreduced counterpart", i+1)
		}
		cur = lts.State(id)
		out = append(out, cur)
	}
	return u, out, nil
}

// renamed encodes state t with its threads renamed by p: thread i's
// control becomes thread p.At(i)'s (its id renamed), and so do its
// entries of the thread arrays.
func (s *Proc) renamed(t lts.State, p lts.Perm) []byte {
	comps, vars := s.decode(s.raw(t, nil), nil, nil)
	nc, nv := slices.Clone(comps), slices.Clone(vars)
	for i := range s.sym.n {
		j := p.At(i)
		nc[j] = s.p.renameTid(s.sym.symmetry, comps[i], int64(j))
		for _, ps := range s.sym.pos {
			nv[ps[j]] = vars[ps[i]]
		}
	}
	return s.encode(nil, nc, nv)
}

// EventThreads reports whether q is N copies of one thread process whose
// every visible event names its own thread id as the first datum (the
// typing of SymmetricEventsProcess), so that distinct components show
// distinct threads; it returns "" if so, else the reason. linearize's
// partial-order reduction relies on it.
func (p *Program) EventThreads(q lang.Proc) string {
	if sym, why := p.findSymmetry(q, true); sym == nil {
		return why
	}
	return ""
}

// Prefetch starts loading the stored encodings of the states ts into the
// cache, so that expanding them soon after (Expand, LocalSteps) waits
// less on memory. It changes nothing else.
func (s *Proc) Prefetch(ts []lts.State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fp == nil {
		s.store.PrefetchGet(ts)
	}
}

// storeGet appends the exact store's encoding of t to buf, under the lock.
func (s *Proc) storeGet(t lts.State, buf []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.AppendGet(buf, uint32(t))
}

// Truncate drops the successors of p from the n-th on.
func (p *Pending) Truncate(n int) {
	if n >= len(p.ends) {
		return
	}
	end := 0
	if n > 0 {
		end = p.ends[n-1]
	}
	p.enc, p.ends, p.evs, p.moves = p.enc[:end], p.ends[:n], p.evs[:n], p.moves[:n]
}
