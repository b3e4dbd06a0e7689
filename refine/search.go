package refine

import (
	"context"
	"errors"
	"fmt"

	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/internal/frontier"
	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lts"
)

// pollEvery is how many pairs are handled between two polls of the limits.
const pollEvery = 4096

// noParent marks the initial pair.
const noParent = ^uint32(0)

// item is a queued product pair: its id, impl state and spec macrostate.
type item struct {
	id uint32
	s  lts.State
	m  uint32
}

// pend is a visible successor waiting for the end of the current level
// (the tau closure of a level must be stored before the next level, so
// that every pair gets its shortest trace).
type pend struct {
	parent uint32
	ev     lts.Event
	s      lts.State
	m      uint32
	perm   lts.Perm // pair symmetry: the renaming that made (s, m) a representative
}

// antiList is an impl state's antichain list: its first node and the
// largest macrostate size in it.
type antiList struct {
	head    uint32 // 1 + index of the first node, 0 none
	maxSize uint32
}

// antiNode links the macrostates stored with one impl state.
type antiNode struct {
	m    uint32
	id   uint32 // the pair's id
	next uint32 // 1 + index of the next node; 0 ends the list
}

// Check decides whether traces(impl) ⊆ traces(spec) (trace refinement,
// docs/verdicts.md §1). See the package documentation for the algorithm.
//
// It returns Valid, Invalid with a shortest, re-validated counterexample,
// or Unknown when a limit is hit or ctx is cancelled. A run-time error of
// impl or spec is returned as a *TraceError.
func Check(ctx context.Context, impl lts.System, spec lts.Automaton, opt Options) (res *Result, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if impl == nil || spec == nil {
		return nil, errors.New("refine: nil implementation or specification")
	}
	if impl.Events() != spec.Events() {
		return nil, errors.New("refine: implementation and specification must share one event table")
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("refine: internal error: %v", r)
		}
	}()
	s := &search{
		impl:  impl,
		norm:  newNormaliser(spec),
		opt:   opt,
		trail: newTrail(impl.Events(), budget.New(ctx, opt.Limits.Timeout, opt.Limits.MaxStates, opt.Limits.MaxBytes), opt),
	}
	s.specStates = s.norm.count
	s.antiOn = opt.eagerAnti
	if s.sym = newPairSym(impl, spec); s.sym != nil {
		s.hasPerms = true
	}
	defer s.bud.Close()
	if opt.Workers >= 2 {
		if r, ok := impl.(frontier.Rounder); ok && !opt.noRounds {
			if s.rounds = r.NewRounds(opt.Workers); s.rounds != nil {
				defer s.rounds.Close()
			}
		}
		if s.rounds == nil {
			s.exp = [2]*frontier.Expander{frontier.New(opt.Workers), frontier.New(opt.Workers)}
		} else {
			s.walkIn = walkSafe(s.rounds, spec)
		}
	}
	// A relaxed spec may spend seconds expanding one state: it polls the
	// limits too, and an error it returns after a limit fired ends the
	// search unknown (what it computed is dropped with the search).
	if in, ok := spec.(Interruptible); ok {
		// (A spec that says its steps never poll, relax in exact mode,
		// does not make a walk in a round pause at its polls.)
		s.interruptible = true
		if p, ok := spec.(interface{ Polls() bool }); ok {
			s.interruptible = p.Polls()
		}
		in.SetInterrupt(func() bool {
			if s.stopped == "" {
				s.stopped = s.bud.Exceeded(s.pairs.Len())
			}
			return s.stopped != ""
		})
		defer in.SetInterrupt(nil)
	}
	res, err = s.run()
	if err != nil && s.stopped != "" {
		return s.unknown(s.stopped), nil
	}
	return res, err
}

// Interruptible is implemented by specifications whose steps can take long
// (relax's window mode): SetInterrupt gives them a function to poll, which
// reports true once a limit of the search is hit; a step that sees true
// returns an error.
type Interruptible interface {
	SetInterrupt(stop func() bool)
}

type search struct {
	impl lts.System
	norm *normaliser
	opt  Options
	sym  *pairSym // nil: no pair symmetry (pairsym.go)
	// lastPerm is the renaming of the violating step's target (pair
	// symmetry).
	lastPerm lts.Perm
	// stopped is the limit the spec's interrupt poll saw (see Check).
	stopped string

	trail

	// Antichains: for each impl state, the macrostates stored with it,
	// minus those that a later, smaller one made redundant. The lists are
	// kept only once they can matter (antiOn): while every macrostate is a
	// singleton and the spec is no Coverer, no pair is ever looked up in
	// them and none is unlinked, so they are built from the stored pairs
	// when the first larger macrostate comes (startAnti).
	antiOn bool
	lists  intern.Vec[antiList] // by impl state
	nodes  intern.Vec[antiNode]
	// dead is a bitset of the pairs a smaller macrostate unlinked: they
	// are stored but not expanded.
	dead []uint64

	cur, next []item // the level being expanded (grows by tau steps), the next level
	pending   []pend
	trs       []lts.Transition
	states    []lts.State // levelBatched: the impl states of a batch
	counts    []int       // levelBatched: transitions per state of a batch
	keys      []uint64    // prefetchPending's keys

	depth int // trace length of the current level

	exp [2]*frontier.Expander // nil: sequential
	// rounds, if set, expand the levels instead of exp: their workers
	// store the impl's successors too (levelRounds).
	rounds frontier.Rounds
	// inRound: the walk runs in a round and must not use the impl; a
	// violation is then noted in found, foundIt and foundTr.
	inRound bool
	// walkIn: the walks may run inside the rounds (frontier.Walker), the
	// spec being known not to use the impl's store (walkSafe).
	walkIn  bool
	found   bool
	foundIt item
	foundTr lts.Transition
	// interruptible: the spec polls the limits itself (Interruptible).
	interruptible bool
	// kept, keptOff: the results of the pairs a paused walk left
	// (keepRest): pair k's are kept[keptOff[k-from]:keptOff[k-from+1]].
	kept    []lts.Transition
	keptOff []int
	batch   [2][]lts.State // the impl states each expander expands
}

// parallelLevel is the smallest level (at its start) that the workers
// expand: below it, starting goroutines costs more than it saves. Both ways
// give the same level, so the search does not depend on it.
const parallelLevel = 512

func (s *search) run() (*Result, error) {
	s.countdown = pollEvery
	s.add(s.impl.Initial(), s.norm.start(), noParent, lts.Tau, &s.cur)
	for len(s.cur) > 0 {
		s.maxDepth = s.depth
		var res *Result
		var err error
		if s.sym != nil {
			res, err = s.expandSym()
		} else if s.rounds != nil && (len(s.cur) >= parallelLevel || s.opt.parallelAll) {
			res, err = s.levelRounds()
		} else if s.exp[0] == nil || (len(s.cur) < parallelLevel && !s.opt.parallelAll) {
			res, err = s.levelSequential()
		} else {
			res, err = s.levelParallel()
		}
		if res != nil || err != nil {
			return res, err
		}
		// Store the visible successors in the order they were found.
		for i := range s.pending {
			if i%prefetchBatch == 0 {
				s.prefetchPending(s.pending[i:min(len(s.pending), i+prefetchBatch)])
			}
			if s.countdown--; s.countdown <= 0 {
				if reason := s.poll(); reason != "" {
					return s.unknown(reason), nil
				}
			}
			p := &s.pending[i]
			s.addPerm(p.s, p.m, p.parent, p.ev, p.perm, &s.next)
		}
		s.pending = s.pending[:0]
		s.cur, s.next = s.next, s.cur[:0]
		s.depth++
	}
	return &Result{Verdict: lts.Valid, Stats: s.stats()}, nil
}

// batcher is implemented by systems that expand several states at once
// (*csp.Proc does, overlapping the cache misses of its state store).
type batcher interface {
	SuccessorsBatch(ts []lts.State, buf []lts.Transition, counts []int) ([]lts.Transition, []int, error)
}

// seqBatch is the number of queued pairs levelBatched expands at once.
const seqBatch = 256

// prefetchBatch is the number of pending pairs whose pair-set slots are
// read ahead at once.
const prefetchBatch = 256

// smallPairs is the size of a pair set (bytes) below which it stays in
// the cache: reading its slots ahead of the probes then only costs.
const smallPairs = 1 << 18

// prefetchPending reads the pair-set slots of ps ahead of their add calls.
func (s *search) prefetchPending(ps []pend) {
	if s.pairs.Bytes() < smallPairs {
		return
	}
	s.keys = s.keys[:0]
	for _, p := range ps {
		s.keys = append(s.keys, uint64(p.s)<<32|uint64(p.m))
	}
	s.pairs.Prefetch(s.keys)
}

// prefetchTau reads the pair-set slots of the tau successors of
// s.cur[i:j] (their transitions in s.trs, counts in s.counts) ahead of
// their add calls: most pairs are reached by tau steps.
func (s *search) prefetchTau(i, j int) {
	if s.pairs.Bytes() < smallPairs {
		return
	}
	s.keys = s.keys[:0]
	off := 0
	for k, n := range s.counts {
		m := uint64(s.cur[i+k].m)
		for _, tr := range s.trs[off : off+n] {
			if tr.Event == lts.Tau {
				s.keys = append(s.keys, uint64(tr.Target)<<32|m)
			}
		}
		off += n
	}
	s.pairs.Prefetch(s.keys)
}

// levelSequential expands s.cur in order; tau successors join s.cur.
func (s *search) levelSequential() (*Result, error) {
	if bs, ok := s.impl.(batcher); ok {
		return s.levelBatched(bs)
	}
	return s.expandEach(0, -1)
}

// expandEach expands s.cur[i:j] one pair at a time; j < 0 means to the
// end of s.cur, tau successors queued meanwhile included.
func (s *search) expandEach(i, j int) (*Result, error) {
	for ; i < j || j < 0 && i < len(s.cur); i++ {
		if s.countdown--; s.countdown <= 0 {
			if reason := s.poll(); reason != "" {
				return s.unknown(reason), nil
			}
		}
		it := s.cur[i]
		if s.isDead(it.id) {
			continue
		}
		trs, err := s.impl.Successors(it.s, s.trs[:0])
		if err != nil {
			return nil, s.traceError(it.id, lts.Tau, err)
		}
		s.trs = trs
		if res, err := s.expand(it, trs); res != nil || err != nil {
			return res, err
		}
	}
	return nil, nil
}

// levelBatched is levelSequential with the impl successors of up to
// seqBatch queued pairs computed by one SuccessorsBatch call. The pairs are
// then walked one by one in queue order exactly as levelSequential walks
// them (same polls, same pair ids, same first violation or error); tau
// successors queued meanwhile join a later batch. The store's state ids
// are the same too: SuccessorsBatch interns in the order Successors would.
func (s *search) levelBatched(bs batcher) (*Result, error) {
	for i := 0; i < len(s.cur); {
		j := min(len(s.cur), i+seqBatch)
		s.states = s.states[:0]
		for _, it := range s.cur[i:j] {
			s.states = append(s.states, it.s)
		}
		trs, counts, err := bs.SuccessorsBatch(s.states, s.trs[:0], s.counts[:0])
		s.trs, s.counts = trs, counts
		if err != nil {
			// Rare: redo the batch one state at a time, so the pairs
			// before the failing one are expanded (and may report a
			// violation first) exactly as levelSequential would.
			if res, err := s.expandEach(i, j); res != nil || err != nil {
				return res, err
			}
			i = j
			continue
		}
		s.prefetchTau(i, j)
		off := 0
		for k := i; k < j; k++ {
			if s.countdown--; s.countdown <= 0 {
				if reason := s.poll(); reason != "" {
					return s.unknown(reason), nil
				}
			}
			n := counts[k-i]
			if !s.isDead(s.cur[k].id) {
				if res, err := s.expand(s.cur[k], trs[off:off+n]); res != nil || err != nil {
					return res, err
				}
			}
			off += n
		}
		i = j
	}
	return nil, nil
}

// levelParallel is levelSequential with the impl successors of batches of
// queued pairs computed by the workers, the next batch while this one is
// walked; everything else happens here, in queue order, so the search is
// the same as the sequential one.
func (s *search) levelParallel() (res *Result, err error) {
	batch := s.exp[0].Workers * 256
	c := 0            // the expander holding the batch [i, j)
	inflight := false // the other expander is prefetching [j, next)
	next := 0
	defer func() {
		if inflight {
			s.exp[1-c].Wait() // leave no worker running
		}
	}()
	for i := 0; i < len(s.cur); {
		var j int
		if inflight {
			c, j, inflight = 1-c, next, false
		} else {
			j = min(len(s.cur), i+batch)
			s.startBatch(c, i, j)
		}
		errAt, err := s.exp[c].Wait()
		// Prefetch the pairs already queued after this batch.
		if next = min(len(s.cur), j+batch); next > j {
			s.startBatch(1-c, j, next)
			inflight = true
		}
		for k := i; k < j; k++ {
			if s.countdown--; s.countdown <= 0 {
				if reason := s.poll(); reason != "" {
					return s.unknown(reason), nil
				}
			}
			it := s.cur[k]
			if s.isDead(it.id) {
				continue
			}
			if k-i == errAt {
				return nil, s.traceError(it.id, lts.Tau, err)
			}
			if res, err := s.expand(it, s.exp[c].Result(k-i)); res != nil || err != nil {
				return res, err
			}
		}
		i = j
	}
	return nil, nil
}

// levelRounds is levelBatched with the impl successors of batches of
// queued pairs computed by rounds (csp.Proc's), whose workers also store
// them, with the ids a one-worker SuccessorsBatch gives, the searching
// goroutine being one of them. With a frontier.Walker, the searching
// goroutine walks a batch as its part of the next batch's round. The walk
// is levelBatched's, and the impl stores its states in queue order, by
// batches, as levelBatched has them stored: the search is the one-worker
// search. A walk in a round does not use the impl (its store is the
// round's): what it finds that needs the impl (a counterexample to
// validate, a failed state to skip) is done after the round.
func (s *search) levelRounds() (*Result, error) {
	size := s.rounds.Size()
	if s.opt.roundBatch > 0 {
		size = s.opt.roundBatch
	}
	wr, _ := s.rounds.(frontier.Walker)
	if !s.walkIn {
		wr = nil
	}
	i, j := 0, min(len(s.cur), size)
	errAt, err := s.rounds.Expand(s.roundStates(i, j))
	for {
		var st walkStop
		if next := min(len(s.cur), j+size); wr != nil && next > j && errAt < 0 {
			e, err2 := wr.ExpandWalking(s.roundStates(j, next), func() { st = s.walkRound(i, j, errAt, err, true) })
			// The progress figures of the walk's polls: the
			// callback may use the impl, so it runs after the round.
			s.flushProgress()
			if st.paused {
				st = s.walkKept(st.from, j)
			}
			if st.done {
				return s.finishWalk(st)
			}
			i, j, errAt, err = j, next, e, err2
			continue
		}
		if st = s.walkRound(i, j, errAt, err, false); st.done {
			return s.finishWalk(st)
		}
		if i = j; i >= len(s.cur) {
			return nil, nil
		}
		j = min(len(s.cur), i+size)
		errAt, err = s.rounds.Expand(s.roundStates(i, j))
	}
}

// walkSafe reports whether a walk may run inside r's rounds: whether the
// spec's work cannot reach the impl's store, which a round holds (a spec
// over the impl's own *csp.Proc would wait for the round forever). The
// spec is unwrapped (relax.Relaxed, linearize.Wrapper: Spec()) down to an
// lts.TauClosed, whose system r must know for distinct from its own (a
// frontier.Sharer); any other spec walks outside the rounds.
func walkSafe(r frontier.Rounds, spec lts.Automaton) bool {
	sh, ok := r.(frontier.Sharer)
	if !ok {
		return true
	}
	for {
		switch a := spec.(type) {
		case *lts.TauClosed:
			return !sh.Shares(a.Sys)
		case *lts.Explicit:
			return true
		case interface{ Spec() lts.Automaton }:
			spec = a.Spec()
		default:
			return false
		}
	}
}

// roundStates returns the impl states of the queued pairs s.cur[i:j].
func (s *search) roundStates(i, j int) []lts.State {
	s.states = s.states[:0]
	for _, it := range s.cur[i:j] {
		s.states = append(s.states, it.s)
	}
	return s.states
}

// walkStop is why a walk of a batch stopped the level: a result or error
// to return, a violation (pair it, transition tr) to validate, or a failed
// state of a dead pair after which the level goes on from pair k one pair
// at a time.
type walkStop struct {
	done bool
	res  *Result
	err  error
	viol bool
	it   item
	tr   lts.Transition
	from int
	// paused: a walk in a round stopped at pair from to report progress
	// (walkRound).
	paused bool
}

// walkRound walks the batch s.cur[i:j] with the rounds' results (errAt,
// err: Expand's) without using the impl. Inside a round, its polls hold
// their progress figures (a callback using the impl could not run there)
// for the caller to report after the round (flushProgress). The callback
// can change the search only through the limits (a context it cancels),
// which the search reads at its polls, and an Interruptible spec in its
// steps: so a poll that follows held figures, or any poll with such a
// spec, pauses the walk: the results of s.cur[k:j] are kept (keepRest)
// and it returns paused at k, for the caller to report the figures and
// walk the rest from pair k, polling again (walkKept).
func (s *search) walkRound(i, j, errAt int, err error, inside bool) walkStop {
	return s.walk(i, j, errAt, err, inside, func(k int) []lts.Transition { return s.rounds.Result(k - i) })
}

// walkKept walks s.cur[k:j], whose results keepRest kept, outside the
// rounds.
func (s *search) walkKept(k, j int) walkStop {
	return s.walk(k, j, -1, nil, false, func(q int) []lts.Transition {
		o := q - k
		return s.kept[s.keptOff[o]:s.keptOff[o+1]]
	})
}

// keepRest copies the rounds' results of s.cur[k:j] (batch from i).
func (s *search) keepRest(i, k, j int) {
	s.kept, s.keptOff = s.kept[:0], s.keptOff[:0]
	for q := k; q < j; q++ {
		s.keptOff = append(s.keptOff, len(s.kept))
		s.kept = append(s.kept, s.rounds.Result(q-i)...)
	}
	s.keptOff = append(s.keptOff, len(s.kept))
}

// walk is walkRound's loop, with result(k) the transitions of s.cur[k].
func (s *search) walk(i, j, errAt int, err error, inside bool, result func(k int) []lts.Transition) walkStop {
	s.inRound, s.holdProgress = true, inside
	defer func() { s.inRound, s.holdProgress = false, false }()
	for k := i; k < j; k++ {
		if s.countdown--; s.countdown <= 0 {
			if reason := s.poll(); reason != "" {
				return walkStop{done: true, res: s.unknown(reason)}
			}
			if n := len(s.held); n > 1 || n == 1 && s.interruptible {
				// The search must see what the callback did
				// with the figures held before (a cancelled
				// context) at this poll, or, with a spec that
				// polls the limits itself, at once: the walk
				// pauses and polls again at pair k after the
				// round, the callback having run.
				s.held = s.held[:n-1]
				s.countdown = 1
				s.keepRest(i, k, j)
				return walkStop{paused: true, from: k}
			}
		}
		it := s.cur[k]
		if k-i == errAt {
			if !s.isDead(it.id) {
				return walkStop{done: true, err: s.traceError(it.id, lts.Tau, err)}
			}
			// levelBatched redoes such a batch one state at a time,
			// skipping the dead pair: so does this.
			return walkStop{done: true, from: k + 1}
		}
		if s.isDead(it.id) {
			continue
		}
		if res, err := s.expand(it, result(k)); res != nil || err != nil {
			return walkStop{done: true, res: res, err: err}
		}
		if s.found {
			s.found = false
			return walkStop{done: true, viol: true, it: s.foundIt, tr: s.foundTr}
		}
	}
	return walkStop{}
}

// finishWalk does, outside the rounds, what stopped a walk.
func (s *search) finishWalk(st walkStop) (*Result, error) {
	switch {
	case st.viol:
		return s.violation(st.it, st.tr)
	case st.from > 0:
		return s.expandEach(st.from, -1)
	}
	return st.res, st.err
}

// startBatch starts expander c on the impl states of the queued pairs
// s.cur[i:j].
func (s *search) startBatch(c, i, j int) {
	b := s.batch[c][:0]
	for _, it := range s.cur[i:j] {
		b = append(b, it.s)
	}
	s.batch[c] = b
	s.exp[c].Start(s.impl, b)
}

// expand handles the transitions of one pair: Algorithm 1's next(impl, spec)
// with the violation check of its lines 6-8 done per event.
func (s *search) expand(it item, trs []lts.Transition) (*Result, error) {
	for _, tr := range trs {
		s.transitions++
		if tr.Event == lts.Tau {
			s.add(tr.Target, it.m, it.id, lts.Tau, &s.cur)
			continue
		}
		m, err := s.norm.step(it.m, tr.Event)
		if err != nil {
			return nil, s.traceError(it.id, tr.Event, err)
		}
		if m == empty {
			if s.inRound {
				// Validated after the round (walkRound).
				s.found, s.foundIt, s.foundTr = true, it, tr
				return nil, nil
			}
			return s.violation(it, tr)
		}
		s.pending = append(s.pending, pend{parent: it.id, ev: tr.Event, s: tr.Target, m: m})
	}
	return nil, nil
}

// add stores the pair (st, m) reached from parent by ev and queues it on q,
// unless it (or, with antichains, a pair with a smaller macrostate) is
// already stored.
func (s *search) add(st lts.State, m uint32, parent uint32, ev lts.Event, q *[]item) {
	s.addPerm(st, m, parent, ev, 0, q)
}

// addPerm is add with the renaming that made the pair a representative
// (pair symmetry).
func (s *search) addPerm(st lts.State, m uint32, parent uint32, ev lts.Event, perm lts.Perm, q *[]item) {
	key := uint64(st)<<32 | uint64(m)
	anti := !s.opt.NoAntichain
	// A singleton macrostate can only be dominated by itself, which the
	// intern set finds; larger ones need the antichain scan (and, with a
	// Coverer spec, any: another state may subsume its state).
	if anti && (s.norm.sizes[m] > 1 || s.norm.cov != nil) {
		if !s.antiOn {
			s.startAnti()
		}
		if _, ok := s.pairs.Lookup(key); ok {
			return
		}
		if s.dominated(st, m) {
			return
		}
	}
	id, added := s.store(st, m, parent, ev)
	if !added {
		return
	}
	if s.hasPerms {
		s.perms.Append(perm)
	}
	s.markImpl(st)
	if s.antiOn {
		s.remember(st, m, id)
	}
	*q = append(*q, item{id: id, s: st, m: m})
}

// dominated reports whether a pair (st, M') with M' a subset of m is
// stored (and still listed); with a Coverer spec, with M' covered by m.
func (s *search) dominated(st lts.State, m uint32) bool {
	if int(st) >= s.lists.Len() {
		return false
	}
	size := s.norm.sizes[m]
	for i := s.lists.At(int(st)).head; i != 0; {
		nd := s.nodes.Ptr(int(i - 1))
		n := nd.m
		i = nd.next
		if s.norm.sizes[n] <= size && s.norm.subset(n, m) || s.norm.cov != nil && s.norm.covered(n, m) {
			return true
		}
	}
	return false
}

// startAnti builds the antichain lists of the pairs stored so far, in
// the order they were stored, as remember would have built them: all their
// macrostates are singletons and the spec is no Coverer (else the lists
// are on from the start), so no pair of them unlinks another.
func (s *search) startAnti() {
	s.antiOn = true
	for id := range s.pairs.Len() {
		k := s.pairs.Get(uint32(id))
		s.remember(lts.State(k>>32), uint32(k), uint32(id))
	}
}

// remember adds m (pair id) to st's list and unlinks the supersets of m,
// which m dominates from now on: their pairs stay stored, but are dead
// (not expanded when the queue reaches them).
func (s *search) remember(st lts.State, m uint32, id uint32) {
	if int(st) >= s.lists.Len() {
		s.lists.Grow(int(st) + 1 + s.lists.Len()/2)
	}
	l := s.lists.Ptr(int(st))
	size := s.norm.sizes[m]
	if l.maxSize > size || s.norm.cov != nil {
		prev := &l.head
		for i := *prev; i != 0; i = *prev {
			n := s.nodes.Ptr(int(i - 1))
			if s.norm.sizes[n.m] > size && s.norm.subset(m, n.m) || s.norm.cov != nil && n.m != m && s.norm.covered(m, n.m) {
				*prev = n.next
				s.kill(n.id)
			} else {
				prev = &n.next
			}
		}
	}
	l.maxSize = max(l.maxSize, size)
	s.nodes.Append(antiNode{m: m, id: id, next: l.head})
	l.head = uint32(s.nodes.Len())
}

// kill marks pair id dead.
func (s *search) kill(id uint32) {
	w := int(id >> 6)
	if w >= len(s.dead) {
		s.dead = append(s.dead, make([]uint64, w+1-len(s.dead)+len(s.dead)/2)...)
	}
	s.dead[w] |= 1 << (id & 63)
}

// isDead reports whether pair id is dead (see remember).
func (s *search) isDead(id uint32) bool {
	w := int(id >> 6)
	return w < len(s.dead) && s.dead[w]&(1<<(id&63)) != 0
}

// violation builds, re-validates and reports the counterexample ending
// with the impl transition tr from pair it.
func (s *search) violation(it item, tr lts.Transition) (*Result, error) {
	steps := append(s.path(it.id), pathStep{ev: tr.Event, s: tr.Target})
	var ren []lts.Perm
	if s.sym != nil {
		ren = s.concrete(steps, append(s.pathPerms(it.id), s.lastPerm))
	}
	// Validate on the system itself, not on MinFactor's successor cache.
	impl := s.impl
	if c, ok := impl.(*cachedSystem); ok {
		impl = c.underlying()
	}
	cex, err := buildCounterexample(impl, s.norm.spec, steps, ren)
	if err != nil {
		return nil, err
	}
	return &Result{Verdict: lts.Invalid, Stats: s.stats(), Counterexample: cex}, nil
}
