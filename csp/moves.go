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
	// Read who moved before intern: canonicalising decodes into x.comps.
	for _, w := range x.who {
		m := lts.Move{Comp: -1}
		switch {
		case w <= -2:
			i := (-2 - w) / 2
			m.Comp = i
			m.Local = (-2-w)%2 == 1
			if m.Local {
				ts := s.p.term(x.comps[i]).edges.Load()
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
			ts := s.p.term(x.comps[fm.who]).edges.Load()
			if s.indep && fm.x < 0 && ts != nil && ts.plain && localEdge(fm.e) {
				m.Local, m.CompLocal = true, ts.local
			}
		}
		mv = append(mv, m)
	}
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
