package ltl

import (
	"context"

	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/lts"
)

// pollEvery is how many product states are expanded between two polls of
// the limits.
const pollEvery = 4096

const noParent = ^uint32(0)

// edge is a product transition: the system event and the target pair.
type edge struct {
	ev lts.Event
	to uint32
}

// frame is a product state on the DFS stack with its successors.
type frame struct {
	id   uint32
	succ []edge
	next int
}

// search is the product of a system with a Büchi automaton, explored
// depth first on the fly by Tarjan's algorithm.
type search struct {
	sys   lts.System
	term  lts.Terminator
	table *lts.EventTable
	b     *Buchi
	atoms []Atom
	opt   Options
	bud   *budget.Budget

	pos, neg []uint64 // per automaton state: atoms required true / false
	props    uint64   // atoms that are propositions
	evMask   []uint64 // per event id: the event atoms it satisfies
	evKnown  []bool
	termMask uint64 // the event atoms the Terminate step satisfies

	ids   map[uint64]uint32 // (system state, automaton state) -> id
	keys  []uint64
	index []uint32 // Tarjan: DFS number, 0 = not visited
	low   []uint32
	onStk []bool
	par   []uint32 // DFS tree: parent pair
	parEv []lts.Event

	stack       []uint32 // Tarjan's stack
	count       uint32
	transitions int64
	maxDepth    int
	expanded    int
	buf         []lts.Transition
}

func newSearch(ctx context.Context, sys lts.System, b *Buchi, atoms []Atom, opt Options) *search {
	s := &search{
		sys: sys, table: sys.Events(), b: b, atoms: atoms, opt: opt,
		bud: budget.New(ctx, opt.Limits.Timeout, opt.Limits.MaxStates, opt.Limits.MaxBytes),
		ids: map[uint64]uint32{},
	}
	s.term, _ = sys.(lts.Terminator)
	s.pos, s.neg = make([]uint64, len(b.States)), make([]uint64, len(b.States))
	for q, st := range b.States {
		for _, a := range st.Pos {
			s.pos[q] |= 1 << a
		}
		for _, a := range st.Neg {
			s.neg[q] |= 1 << a
		}
	}
	for i, a := range atoms {
		if a.Prop != nil {
			s.props |= 1 << i
		} else if a.Name == TerminateName {
			s.termMask |= 1 << i
		}
	}
	return s
}

// eventMask is the set of event atoms that the step e satisfies.
func (s *search) eventMask(e lts.Event) uint64 {
	switch e {
	case lts.Tau, Deadlock:
		return 0
	case Terminate:
		return s.termMask
	}
	if int(e) < len(s.evKnown) && s.evKnown[e] {
		return s.evMask[e]
	}
	for int(e) >= len(s.evKnown) {
		s.evKnown, s.evMask = append(s.evKnown, false), append(s.evMask, 0)
	}
	name := s.table.Name(e)
	var m uint64
	for i, a := range s.atoms {
		if a.Prop == nil && a.Name == name {
			m |= 1 << i
		}
	}
	s.evMask[e], s.evKnown[e] = m, true
	return m
}

// propMask evaluates the proposition atoms in state st.
func (s *search) propMask(st lts.State) (uint64, error) {
	if s.props == 0 {
		return 0, nil
	}
	var m uint64
	for i, a := range s.atoms {
		if a.Prop == nil {
			continue
		}
		ok, err := a.Prop(st)
		if err != nil {
			return 0, err
		}
		if ok {
			m |= 1 << i
		}
	}
	return m, nil
}

// sysSucc returns the transitions of st, with the implicit loop of a
// state that has none. The result aliases s.buf.
func (s *search) sysSucc(st lts.State) ([]lts.Transition, error) {
	ts, err := s.sys.Successors(st, s.buf[:0])
	s.buf = ts
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		ev := Deadlock
		if s.term != nil && s.term.Terminated(st) {
			ev = Terminate
		}
		s.buf = append(s.buf, lts.Transition{Event: ev, Target: st})
	}
	return s.buf, nil
}

// id returns the id of the pair (st, q), storing it if new.
func (s *search) id(st lts.State, q int) uint32 {
	k := uint64(st)<<32 | uint64(q)
	if id, ok := s.ids[k]; ok {
		return id
	}
	id := uint32(len(s.keys))
	s.ids[k] = id
	s.keys = append(s.keys, k)
	s.index = append(s.index, 0)
	s.low = append(s.low, 0)
	s.onStk = append(s.onStk, false)
	s.par = append(s.par, noParent)
	s.parEv = append(s.parEv, 0)
	return id
}

func (s *search) pair(id uint32) (lts.State, int) {
	k := s.keys[id]
	return lts.State(k >> 32), int(uint32(k))
}

// successors appends the product transitions of id to out: a system step
// whose letter (the state's propositions and the step's event) satisfies
// the automaton state's label, to every automaton successor.
func (s *search) successors(id uint32, out []edge) ([]edge, error) {
	st, q := s.pair(id)
	pm, err := s.propMask(st)
	if err != nil {
		return out, err
	}
	ts, err := s.sysSucc(st)
	if err != nil {
		return out, err
	}
	pos, neg, succ := s.pos[q], s.neg[q], s.b.States[q].Succ
	for _, t := range ts {
		letter := pm | s.eventMask(t.Event)
		if pos&^letter != 0 || neg&letter != 0 {
			continue
		}
		for _, q2 := range succ {
			out = append(out, edge{t.Event, s.id(t.Target, q2)})
		}
	}
	return out, nil
}

// run explores the product from its initial pairs. It returns a fair
// accepting lasso, or the reason a limit stopped it, or a model error.
func (s *search) run() (*Lasso, string, error) {
	init := s.sys.Initial()
	var pool [][]edge
	for _, q := range s.b.Init {
		root := s.id(init, q)
		if s.index[root] != 0 {
			continue
		}
		l, reason, err := s.dfs(root, &pool)
		if l != nil || reason != "" || err != nil {
			return l, reason, err
		}
	}
	return nil, "", nil
}

// dfs is Tarjan's algorithm from root, iterative. Each completed SCC is
// analysed at once (analyse); the first fair accepting one ends the search.
func (s *search) dfs(root uint32, pool *[][]edge) (*Lasso, string, error) {
	var frames []frame
	push := func(id uint32) error {
		s.count++
		s.index[id], s.low[id] = s.count, s.count
		s.stack = append(s.stack, id)
		s.onStk[id] = true
		d := len(frames)
		if d >= len(*pool) {
			*pool = append(*pool, nil)
		}
		succ, err := s.successors(id, (*pool)[d][:0])
		(*pool)[d] = succ
		s.transitions += int64(len(succ))
		frames = append(frames, frame{id: id, succ: succ})
		s.maxDepth = max(s.maxDepth, len(frames))
		return err
	}
	if err := push(root); err != nil {
		return nil, "", err
	}
	for len(frames) > 0 {
		f := &frames[len(frames)-1]
		if f.next < len(f.succ) {
			e := f.succ[f.next]
			f.next++
			w := e.to
			if s.index[w] == 0 {
				s.par[w], s.parEv[w] = f.id, e.ev
				if s.expanded++; s.expanded%pollEvery == 0 {
					if r := s.bud.Exceeded(len(s.keys)); r != "" {
						return nil, r, nil
					}
				}
				if err := push(w); err != nil {
					return nil, "", err
				}
			} else if s.onStk[w] {
				s.low[f.id] = min(s.low[f.id], s.index[w])
			}
			continue
		}
		id := f.id
		frames = frames[:len(frames)-1]
		if len(frames) > 0 {
			p := frames[len(frames)-1].id
			s.low[p] = min(s.low[p], s.low[id])
		}
		if s.low[id] != s.index[id] {
			continue
		}
		// id is the root of an SCC: pop it.
		i := len(s.stack) - 1
		for s.stack[i] != id {
			i--
		}
		members := append([]uint32(nil), s.stack[i:]...)
		s.stack = s.stack[:i]
		for _, m := range members {
			s.onStk[m] = false
		}
		l, err := s.analyse(id, members)
		if l != nil || err != nil {
			return l, "", err
		}
	}
	return nil, "", nil
}
