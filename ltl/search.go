package ltl

import (
	"context"
	"errors"

	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lts"
)

// pollEvery is how many product states are expanded between two polls of
// the limits.
const pollEvery = 4096

const noParent = ^uint32(0)

// afterTerm marks, in the automaton half of a pair's key, the state after
// the termination step of a terminated system state.
const afterTerm = 1 << 31

// known marks a computed entry of the proposition cache.
const known = uint64(1) << 63

// edge is a product transition: the system event and the target pair.
type edge struct {
	ev lts.Event
	to uint32
}

// frame is a product state on the DFS stack with its successors.
type frame struct {
	id            uint32
	lo, next, end int // its successors: edges[lo:end], the next to follow
}

// rootEntry is an entry of the root stack: the root of a partial SCC and the
// acceptance sets its pairs meet.
type rootEntry struct {
	id  uint32
	acc uint64
}

// pinfo is what the search keeps per product pair.
type pinfo struct {
	index, low uint32 // Tarjan: DFS number (0 = not visited) and lowlink
	par        uint32 // DFS tree: parent pair
	parEv      lts.Event
	onStk      bool
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
	// propCache[s] is the proposition mask of system state s with bit 63
	// set, or 0 if not computed yet (system states are dense ids).
	propCache []uint64

	ids  *intern.Pairs // (system state, automaton state) -> id
	info []pinfo       // per pair

	inits       []uint32    // the initial pairs
	roots       []rootEntry // Couvreur's root stack
	stack       []uint32    // Tarjan's stack
	count       uint32
	transitions int64
	maxDepth    int
	expanded    int
	lastReport  float64 // seconds, of the last Progress call
	buf         []lts.Transition
}

func newSearch(ctx context.Context, sys lts.System, b *Buchi, atoms []Atom, opt Options) *search {
	s := &search{
		sys: sys, table: sys.Events(), b: b, atoms: atoms, opt: opt,
		bud: budget.New(ctx, opt.Limits.Timeout, opt.Limits.MaxStates, opt.Limits.MaxBytes),
		ids: intern.NewPairs(1 << 10),
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
	if int(st) < len(s.propCache) && s.propCache[st] != 0 {
		return s.propCache[st] &^ known, nil
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
	if int(st) < 1<<28 { // a cache of at most 2 GiB
		for int(st) >= len(s.propCache) {
			s.propCache = append(s.propCache, make([]uint64, max(1024, len(s.propCache)))...)
		}
		s.propCache[st] = m | known
	}
	return m, nil
}

// sysSucc returns the transitions of st, or its implicit steps if it has
// none: a deadlocked state loops on Deadlock; a terminated state (after
// Skip) does Terminate once, to itself marked "after termination", which
// then deadlocks (PAT: Skip terminates, then behaves as Stop). The result
// aliases s.buf.
func (s *search) sysSucc(st lts.State, after bool) ([]lts.Transition, error) {
	if after {
		s.buf = append(s.buf[:0], lts.Transition{Event: Deadlock, Target: st})
		return s.buf, nil
	}
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
	id, added := s.ids.Intern(uint64(st)<<32 | uint64(q))
	if !added {
		return id
	}
	s.info = append(s.info, pinfo{par: noParent})
	return id
}

// pair returns the system state and the automaton state of a pair, and
// whether it is the state after the termination step.
func (s *search) pair(id uint32) (lts.State, int, bool) {
	k := s.ids.Get(id)
	return lts.State(k >> 32), int(uint32(k) &^ afterTerm), uint32(k)&afterTerm != 0
}

// successors appends the product transitions of id to out: a system step
// whose letter (the state's propositions and the step's event) satisfies
// the automaton state's label, to every automaton successor.
func (s *search) successors(id uint32, out []edge) ([]edge, error) {
	st, q, after := s.pair(id)
	pm, err := s.propMask(st)
	if err != nil {
		return out, err
	}
	ts, err := s.sysSucc(st, after)
	if err != nil {
		return out, err
	}
	pos, neg, succ := s.pos[q], s.neg[q], s.b.States[q].Succ
	for _, t := range ts {
		letter := pm | s.eventMask(t.Event)
		if pos&^letter != 0 || neg&letter != 0 {
			continue
		}
		flag := 0
		if after || t.Event == Terminate {
			flag = afterTerm
		}
		for _, q2 := range succ {
			out = append(out, edge{t.Event, s.id(t.Target, q2|flag)})
		}
	}
	return out, nil
}

// run explores the product from its initial pairs. It returns a fair
// accepting lasso, or the reason a limit stopped it, or a model error.
func (s *search) run() (*Lasso, string, error) {
	init := s.sys.Initial()
	var edges []edge
	for _, q := range s.b.Init {
		root := s.id(init, q)
		s.inits = append(s.inits, root)
		if s.info[root].index != 0 {
			continue
		}
		l, reason, err := s.dfs(root, &edges)
		if l != nil || reason != "" || err != nil {
			return l, reason, err
		}
	}
	return nil, "", nil
}

// dfs is Tarjan's algorithm from root, iterative. Each completed SCC is
// analysed at once (analyse); the first fair accepting one ends the search.
// The successors of the pairs on the DFS stack are kept in one stack of
// edges, each frame's contiguous.
func (s *search) dfs(root uint32, edges *[]edge) (*Lasso, string, error) {
	var frames []frame
	push := func(id uint32) error {
		s.count++
		s.info[id].index, s.info[id].low = s.count, s.count
		s.stack = append(s.stack, id)
		s.info[id].onStk = true
		_, q, _ := s.pair(id)
		s.roots = append(s.roots, rootEntry{id, s.b.States[q].Acc})
		lo := len(*edges)
		var err error
		*edges, err = s.successors(id, *edges)
		s.transitions += int64(len(*edges) - lo)
		frames = append(frames, frame{id: id, lo: lo, next: lo, end: len(*edges)})
		s.maxDepth = max(s.maxDepth, len(frames))
		return err
	}
	if err := push(root); err != nil {
		return nil, "", err
	}
	for len(frames) > 0 {
		f := &frames[len(frames)-1]
		if f.next < f.end {
			e := (*edges)[f.next]
			f.next++
			w := e.to
			if s.info[w].index == 0 {
				s.info[w].par, s.info[w].parEv = f.id, e.ev
				if s.expanded++; s.expanded%pollEvery == 0 {
					if r := s.poll(len(frames)); r != "" {
						return nil, r, nil
					}
				}
				if err := push(w); err != nil {
					return nil, "", err
				}
			} else if s.info[w].onStk {
				s.info[f.id].low = min(s.info[f.id].low, s.info[w].index)
				if r, ok := s.merge(w); ok {
					return s.early(r)
				}
			}
			continue
		}
		id, succ := f.id, (*edges)[f.lo:f.end]
		frames = frames[:len(frames)-1]
		*edges = (*edges)[:f.lo]
		if len(frames) > 0 {
			p := frames[len(frames)-1].id
			s.info[p].low = min(s.info[p].low, s.info[id].low)
		}
		if s.info[id].low != s.info[id].index {
			continue
		}
		// id is the root of an SCC: pop it.
		s.roots = s.roots[:len(s.roots)-1]
		if s.stack[len(s.stack)-1] == id && !hasEdgeTo(succ, id) {
			// A single pair without a self-loop: no cycle (the usual
			// case, decided without building the SCC).
			s.stack = s.stack[:len(s.stack)-1]
			s.info[id].onStk = false
			continue
		}
		i := len(s.stack) - 1
		for s.stack[i] != id {
			i--
		}
		members := append([]uint32(nil), s.stack[i:]...)
		s.stack = s.stack[:i]
		for _, m := range members {
			s.info[m].onStk = false
		}
		l, err := s.analyse(id, members)
		if l != nil || err != nil {
			return l, "", err
		}
	}
	return nil, "", nil
}

// merge handles an edge to w, a pair on the stack: the partial SCCs whose
// roots came after w's merge into one (Couvreur), whose acceptance sets
// are the union. Without fairness, a partial SCC that meets every set has
// an accepting cycle at once: merge returns its root.
func (s *search) merge(w uint32) (uint32, bool) {
	var acc uint64
	for s.info[s.roots[len(s.roots)-1].id].index > s.info[w].index {
		acc |= s.roots[len(s.roots)-1].acc
		s.roots = s.roots[:len(s.roots)-1]
	}
	top := &s.roots[len(s.roots)-1]
	top.acc |= acc
	return top.id, s.opt.Fairness == NoFairness && top.acc == s.b.AllAcc()
}

// early builds the lasso through the partial SCC rooted at r: the pairs on
// the stack from r on, strongly connected by the edges explored so far.
func (s *search) early(r uint32) (*Lasso, string, error) {
	i := len(s.stack) - 1
	for s.stack[i] != r {
		i--
	}
	l, err := s.analyse(r, append([]uint32(nil), s.stack[i:]...))
	if l == nil && err == nil {
		err = errors.New("internal error: an accepting partial SCC without an accepting cycle")
	}
	return l, "", err
}

func hasEdgeTo(succ []edge, id uint32) bool {
	for _, e := range succ {
		if e.to == id {
			return true
		}
	}
	return false
}

// poll checks the limits and reports progress; it returns why the search
// must stop, or "".
func (s *search) poll(depth int) string {
	if r := s.bud.Exceeded(s.ids.Len()); r != "" {
		return r
	}
	if s.opt.Progress != nil {
		if now := s.bud.Seconds(); now-s.lastReport >= 0.1 {
			s.lastReport = now
			s.opt.Progress(lts.Stats{States: int64(s.ids.Len()), Transitions: s.transitions, Seconds: now, PeakBytes: s.bud.Peak(), Depth: depth})
		}
	}
	return ""
}
