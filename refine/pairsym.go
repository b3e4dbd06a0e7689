package refine

import (
	"encoding/binary"

	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lts"
)

// Pair symmetry: when the implementation's thread symmetry renames events
// (csp.Program.SymmetricEventsProcess: an invocation/response model, whose
// events name the thread), the implementation state alone is not an orbit
// representative of the pair. The specification must rename alike: it
// implements permAutomaton (linearize.Wrapper permutes its per-thread
// statuses). A pair (s, M) is then equivalent to (π s, π M) for every
// renaming π, with π applied to the events of the traces from it, and the
// search stores one pair per orbit:
//
//   - the implementation returns each target t as its representative π t
//     (its canonical form, computed from the state's structure) and the
//     renaming π (lts.Move.Perm); the pair becomes (π t, π M');
//   - when the representative is fixed by some renamings σ (threads with
//     equal local states, lts.Move.Ties), the pairs (π t, σ π M') are all
//     equivalent: the one with the least macrostate id is kept. Ids are
//     assigned in the order of the sequential walk, so the choice does
//     not depend on the number of workers (there is one walker; the
//     implementation's state ids, which may, are not compared). Unlike
//     the implementation's representative (csp's canonAll), this choice
//     is not a function of the orbit alone but of the walk before it;
//     the walk is a function of the model's text (representatives by
//     content, successors in the terms' order, one walker), so the
//     figures still are (paper's TestFiguresReproducible).
//
// The renaming stored with each pair rebuilds the concrete trace of a
// counterexample: the implementation path is a path between
// representatives, and the concrete events are the path's events renamed
// by the composition of the inverse renamings so far.

// moveSystem is an implementation that reports moves (csp.Proc,
// linearize.Reduced).
type moveSystem interface {
	lts.System
	SuccessorsMoves(s lts.State, buf []lts.Transition, mv []lts.Move) ([]lts.Transition, []lts.Move, error)
	Symmetry() int
}

// permAutomaton is a specification that renames threads like the
// implementation (linearize.Wrapper).
type permAutomaton interface {
	PermuteState(s lts.State, p lts.Perm) lts.State
	PermuteEvent(e lts.Event, p lts.Perm) lts.Event
}

// maxTied bounds the renamings tried for the ties of one representative
// (beyond, the pair is kept as is: sound, only less reduced).
const maxTied = 24

// pairSym is the search's pair-symmetry state (nil: off).
type pairSym struct {
	impl  moveSystem
	spec  permAutomaton
	memo  map[permMacro]uint32
	moves []lts.Move
	stab  map[uint64][]lts.Perm
	canon map[canonKey]canonVal
	// With few threads a renaming and its ties fit in 32 bits beside a
	// macrostate: memo64 and canon64 are memo and canon under that
	// packed key (a 64-bit key hashes several times faster).
	n      int
	memo64 intern.Memo[uint32]
	// canon64's values are canonVal packed: m | p<<32 (p moves only
	// the first n threads, so it fits in 32 bits).
	canon64 intern.Memo[uint64]
	// permBuf is permute's scratch (internReduced keeps no reference).
	permBuf []lts.State
	pre     []lts.State // prepareImpl's
	evs     []lts.Event // prefetchSteps'
	addrs   []uintptr
}

type permMacro struct {
	m uint32
	p lts.Perm
}

func newPairSym(impl lts.System, spec lts.Automaton) *pairSym {
	mi, ok1 := impl.(moveSystem)
	ps, ok2 := spec.(permAutomaton)
	if !ok1 || !ok2 || mi.Symmetry() == 0 {
		return nil
	}
	return &pairSym{impl: mi, spec: ps, memo: map[permMacro]uint32{}, stab: map[uint64][]lts.Perm{}, canon: map[canonKey]canonVal{},
		n: mi.Symmetry(), memo64: intern.NewMemo[uint32](1024), canon64: intern.NewMemo[uint64](1024)}
}

// pack packs macrostate m, renaming p and ties into one key, if they fit:
// p moves only the first n threads (4n bits), ties links only them (n-1
// bits).
func (ps *pairSym) pack(m uint32, p lts.Perm, ties uint64) (uint64, bool) {
	n := ps.n
	if n < 1 || 5*n-1 > 32 || uint64(p)>>(4*n) != 0 || ties>>(n-1) != 0 {
		return 0, false
	}
	return uint64(m) | uint64(p)<<32 | ties<<(32+4*n), true
}

// permute renames every state of macrostate m by p.
func (s *search) permute(m uint32, p lts.Perm) uint32 {
	if p == 0 || m == empty {
		return m
	}
	k64, packed := s.sym.pack(m, p, 0)
	k := permMacro{m, p}
	if packed {
		if r, ok := s.sym.memo64.Get(k64); ok {
			return r
		}
	} else if r, ok := s.sym.memo[k]; ok {
		return r
	}
	src := s.norm.macros.Get(m)
	buf := s.sym.permBuf[:0]
	for i := 0; i < len(src); i += 4 {
		buf = append(buf, s.sym.spec.PermuteState(lts.State(binary.LittleEndian.Uint32(src[i:])), p))
	}
	s.sym.permBuf = buf
	r := s.norm.internReduced(buf, true)
	if packed {
		s.sym.memo64.Put(k64, r)
	} else {
		s.sym.memo[k] = r
	}
	return r
}

// canonical returns the representative macrostate of (t, m) after the
// move mv, and the renaming applied to it (memoised per (m, renaming,
// ties): one lookup per transition).
func (s *search) canonical(m uint32, mv lts.Move) (uint32, lts.Perm) {
	if mv.Perm == 0 && mv.Ties == 0 {
		return m, 0
	}
	k64, packed := s.sym.pack(m, mv.Perm, mv.Ties)
	k := canonKey{m, mv.Perm, mv.Ties}
	if packed {
		if r, ok := s.sym.canon64.Get(k64); ok {
			return uint32(r), lts.Perm(r >> 32)
		}
	} else if r, ok := s.sym.canon[k]; ok {
		return r.m, r.p
	}
	m1 := s.permute(m, mv.Perm)
	best, bp := m1, lts.Perm(0)
	if mv.Ties != 0 {
		group, ok := s.sym.stab[mv.Ties]
		if !ok {
			group = lts.TiedPerms(mv.Ties, maxTied)
			s.sym.stab[mv.Ties] = group
		}
		for _, q := range group[min(1, len(group)):] {
			if r := s.permute(m1, q); r < best {
				best, bp = r, q
			}
		}
	}
	r := canonVal{best, mv.Perm.Then(bp)}
	if packed && uint64(r.p)>>32 == 0 {
		s.sym.canon64.Put(k64, uint64(r.m)|uint64(r.p)<<32)
	} else {
		s.sym.canon[k] = r
	}
	return r.m, r.p
}

type canonKey struct {
	m    uint32
	p    lts.Perm
	ties uint64
}

type canonVal struct {
	m uint32
	p lts.Perm
}

// expandSym expands s.cur[i:] (tau successors queued meanwhile included)
// with pair symmetry, one pair at a time.
func (s *search) expandSym() (*Result, error) {
	pr, _ := s.sym.impl.(preparer)
	prepared := 0 // s.cur[:prepared] were handed to pr
	for i := 0; i < len(s.cur); i++ {
		if pr != nil && i >= prepared {
			// (The tau successors queued meanwhile join the next batch.)
			prepared = min(len(s.cur), i+symBatch)
			s.prepareImpl(pr, s.cur[i:prepared])
		}
		if s.countdown--; s.countdown <= 0 {
			if reason := s.poll(); reason != "" {
				return s.unknown(reason), nil
			}
		}
		it := s.cur[i]
		if s.isDead(it.id) {
			continue
		}
		trs, mv, err := s.sym.impl.SuccessorsMoves(it.s, s.trs[:0], s.sym.moves[:0])
		s.trs, s.sym.moves = trs, mv
		if err != nil {
			return nil, s.traceErrorSym(it.id, lts.Tau, err)
		}
		for k, tr := range trs {
			s.transitions++
			m := it.m
			if tr.Event != lts.Tau {
				if m, err = s.norm.step(it.m, tr.Event); err != nil {
					return nil, s.traceErrorSym(it.id, tr.Event, err)
				}
				if m == empty {
					s.lastPerm = mv[k].Perm
					return s.violation(it, tr)
				}
			}
			m, p := s.canonical(m, mv[k])
			if tr.Event == lts.Tau {
				s.addPerm(tr.Target, m, it.id, lts.Tau, p, &s.cur)
				continue
			}
			s.pending = append(s.pending, pend{parent: it.id, ev: tr.Event, s: tr.Target, m: m, perm: p})
		}
	}
	return nil, nil
}

// preparer is an impl that can compute together the successors of the
// states it is about to be asked (linearize.Reduced.Prepare): the same
// transitions as one at a time, with their stores' cache misses
// overlapped.
type preparer interface {
	Prepare(ids []lts.State)
}

// symBatch is the number of queued pairs whose impl states expandSym
// prepares at once.
const symBatch = 32

// prepareImpl prepares the impl states of the live pairs of items.
func (s *search) prepareImpl(pr preparer, items []item) {
	s.sym.pre = s.sym.pre[:0]
	for _, it := range items {
		if !s.isDead(it.id) {
			s.sym.pre = append(s.sym.pre, it.s)
		}
	}
	pr.Prepare(s.sym.pre)
	if pk, ok := pr.(eventPeeker); ok && !noPrefetch {
		s.prefetchSteps(pk, items)
	}
}

// eventPeeker is a preparer that tells the events of a prepared state's
// transitions without computing anything (linearize.Reduced.PeekEvents).
type eventPeeker interface {
	PeekEvents(id lts.State, buf []lts.Event) ([]lts.Event, bool)
}

// prefetchSteps asks the CPU to load the normaliser's memo slots of the
// steps the live pairs of items are about to take (their macrostates on
// their impl states' visible events), so that the cache misses of those
// lookups overlap instead of coming one after the other. It only loads:
// no result, id or order changes.
func (s *search) prefetchSteps(pk eventPeeker, items []item) {
	s.sym.addrs = s.sym.addrs[:0]
	for _, it := range items {
		if it.m == empty || s.isDead(it.id) {
			continue
		}
		var ok bool
		s.sym.evs, ok = pk.PeekEvents(it.s, s.sym.evs[:0])
		if !ok {
			continue
		}
		for _, e := range s.sym.evs {
			if e != lts.Tau {
				s.sym.addrs = s.norm.memo.AppendSlot(s.sym.addrs, uint64(it.m)<<32|uint64(e))
			}
		}
	}
	intern.Prefetch(s.sym.addrs)
}

// noPrefetch turns the prefetches of the search off (the tests compare).
var noPrefetch bool

// concrete renames the events of a path of representatives (from the
// initial pair; perms[j] made step j's target a representative) into the
// events of the concrete path they stand for, and returns for each step the
// renaming that maps its representative to its concrete state.
func (s *search) concrete(steps []pathStep, perms []lts.Perm) []lts.Perm {
	var tau lts.Perm // concrete state = tau(representative)
	ren := make([]lts.Perm, len(steps))
	for j := range steps {
		if steps[j].ev != lts.Tau {
			steps[j].ev = s.sym.spec.PermuteEvent(steps[j].ev, tau)
		}
		tau = perms[j].Inverse().Then(tau)
		ren[j] = tau
	}
	return ren
}

// traceErrorSym is traceError with the trace renamed to the concrete one.
func (s *search) traceErrorSym(id uint32, ev lts.Event, err error) error {
	steps := s.path(id)
	if ev != lts.Tau {
		steps = append(steps, pathStep{ev: ev})
	}
	s.concrete(steps, append(s.pathPerms(id), 0))
	var trace []string
	for _, st := range steps {
		if st.ev != lts.Tau {
			trace = append(trace, s.tab.Name(st.ev))
		}
	}
	return &TraceError{Err: err, Trace: trace}
}
