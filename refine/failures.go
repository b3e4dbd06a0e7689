package refine

import (
	"context"
	"errors"
	"fmt"

	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/internal/frontier"
	"github.com/quasar-verify/quasar/lts"
)

// Model is the semantic model of a failures check.
type Model int

const (
	// StableFailures is `refines <F>`: traces(Impl) ⊆ traces(Spec) and
	// every stable failure of Impl is one of Spec.
	StableFailures Model = iota + 1
	// FailuresDivergences is `refines <FD>`: every divergence of Impl is
	// one of Spec, and so is every failure, both closed under divergence
	// (after a trace on which Spec may diverge, anything goes).
	FailuresDivergences
)

func (m Model) String() string {
	switch m {
	case StableFailures:
		return "F"
	case FailuresDivergences:
		return "FD"
	}
	return fmt.Sprintf("Model(%d)", int(m))
}

// Violation kinds of a failures counterexample.
const (
	KindTrace      = "trace"      // t·e is a trace of Impl, not of Spec
	KindRefusal    = "refusal"    // after t Impl is stable and refuses what Spec cannot
	KindDivergence = "divergence" // after t Impl can diverge and Spec cannot
)

// CheckFailures decides stable-failures or failures-divergences refinement
// of spec by impl (see the package documentation, "Failures"). Both are
// plain processes: the specification's stable states and tau cycles are
// what its acceptances and divergences are made of. Its counterexample is a
// shortest one: a trace violation t·e counts |t|+1, a refusal or a
// divergence after t counts |t|. F expands batches of pairs with
// Options.Workers workers when the impl gives frontier.Rounds (a
// *csp.Proc); FD is sequential (Options.Workers is ignored). Either way
// the result is the one-worker search's.
func CheckFailures(ctx context.Context, impl, spec lts.System, model Model, opt Options) (res *Result, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if impl == nil || spec == nil {
		return nil, errors.New("refine: nil implementation or specification")
	}
	if impl.Events() != spec.Events() {
		return nil, errors.New("refine: implementation and specification must share one event table")
	}
	if model != StableFailures && model != FailuresDivergences {
		return nil, fmt.Errorf("refine: unknown model %v", model)
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("refine: internal error: %v", r)
		}
	}()
	fd := model == FailuresDivergences
	s := &fsearch{
		impl:  impl,
		model: model,
		norm:  newFailNorm(spec, fd),
		opt:   opt,
		trail: newTrail(impl.Events(), budget.New(ctx, opt.Limits.Timeout, opt.Limits.MaxStates, opt.Limits.MaxBytes), opt),
	}
	s.specStates = s.norm.count
	s.term, _ = impl.(lts.Terminator)
	s.orig = impl
	if !fd {
		// F expands the impl states of a level's pairs in batches, as
		// Check does; FD's cycle search runs ahead along tau steps on
		// memoised successors, one state at a time.
		s.bs, _ = impl.(batcher)
		if r, ok := impl.(frontier.Rounder); ok && opt.Workers >= 2 {
			if s.rounds = r.NewRounds(opt.Workers); s.rounds != nil {
				defer s.rounds.Close()
			}
		}
	}
	if fd {
		// The cycle search runs ahead of the breadth-first search along
		// tau steps: with the successors memoised, each impl state is
		// expanded once.
		s.impl = newCachedSystem(impl, specCacheTransitions)
		s.cyc = newTauCycles(s.impl)
	}
	defer s.bud.Close()
	return s.run()
}

// fsearch is the product search of the failures checks: the level-by-level
// 0-1 breadth-first search of Check (without antichains and batching) with
// the refusal and divergence tests added at each pair.
type fsearch struct {
	impl  lts.System // FD: orig with its successors memoised
	orig  lts.System // the implementation, for re-validation
	term  lts.Terminator
	cyc   *tauCycles // FD: the impl's tau cycles
	model Model
	norm  *failNorm
	opt   Options

	trail

	cur, next []item
	pending   []pend
	trs       []lts.Transition
	acc       []lts.Event

	// F: bs expands a batch of impl states (a *csp.Proc), rounds (with
	// Workers >= 2) a batch with the workers storing the successors too;
	// states, btrs, counts and offs are a batch's.
	bs     batcher
	rounds frontier.Rounds
	states []lts.State
	btrs   []lts.Transition
	counts []int

	depth int
	// found is the first trace violation of the current level: it is
	// reported at the end of the level unless a refusal or divergence of
	// the same level, one event shorter, turns up.
	found *fviolation
}

// fviolation is a violation found by the search, before validation.
type fviolation struct {
	kind string
	id   uint32    // the pair
	ev   lts.Event // trace: the event (Tick for termination)
	to   lts.State // trace: the impl state after ev (unused for Tick)
}

func (s *fsearch) run() (*Result, error) {
	s.countdown = pollEvery
	m, err := s.norm.start()
	if err != nil {
		return nil, &TraceError{Err: err}
	}
	s.add(s.impl.Initial(), m, noParent, lts.Tau, &s.cur)
	for len(s.cur) > 0 {
		s.maxDepth = s.depth
		if res, err := s.level(); res != nil || err != nil {
			return res, err
		}
		if s.found != nil {
			return s.report(s.found)
		}
		for _, p := range s.pending {
			s.add(p.s, p.m, p.parent, p.ev, &s.next)
		}
		s.pending = s.pending[:0]
		s.cur, s.next = s.next, s.cur[:0]
		s.depth++
	}
	return &Result{Verdict: lts.Valid, Stats: s.stats()}, nil
}

// level visits the pairs of the current level, tau successors queued
// meanwhile included, in order. With a batcher (or rounds) the impl states
// of the queued pairs are expanded a batch at a time first, which stores
// them in the order, hence under the ids, that one at a time gives.
func (s *fsearch) level() (*Result, error) {
	for i := 0; i < len(s.cur); {
		j := i + 1
		errAt, eerr := -1, error(nil)
		var result func(k int) []lts.Transition
		switch {
		case s.rounds != nil && (len(s.cur) >= parallelLevel || s.opt.parallelAll):
			j = min(len(s.cur), i+s.rounds.Size())
			errAt, eerr = s.rounds.Expand(s.batchStates(i, j))
			result = s.rounds.Result
		case s.bs != nil:
			j = min(len(s.cur), i+seqBatch)
			s.btrs, s.counts, eerr = s.bs.SuccessorsBatch(s.batchStates(i, j), s.btrs[:0], s.counts[:0])
			if eerr != nil {
				// Rare: the batch is visited one pair at a time, as
				// levelBatched does, so that the error is the one
				// Successors gives, at its pair, whatever results
				// the failed batch returned (*csp.Proc's, on an
				// internal error, counts states without their
				// transitions).
				break
			}
			// counts becomes each state's first transition.
			off := 0
			for k, c := range s.counts {
				s.counts[k] = off
				off += c
			}
			s.counts = append(s.counts, off)
			result = func(k int) []lts.Transition { return s.btrs[s.counts[k]:s.counts[k+1]:s.counts[k+1]] }
		}
		for k := i; k < j; k++ {
			if s.countdown--; s.countdown <= 0 {
				if reason := s.poll(); reason != "" {
					return s.unknown(reason), nil
				}
			}
			var v *fviolation
			var err error
			switch {
			case result == nil:
				v, err = s.visit(s.cur[k])
			case k-i == errAt:
				err = s.traceError(s.cur[k].id, lts.Tau, eerr)
			default:
				v, err = s.visitWith(s.cur[k], result(k-i))
			}
			if err != nil {
				return nil, err
			}
			if v != nil {
				res, err := s.report(v)
				return res, err
			}
		}
		i = j
	}
	return nil, nil
}

// batchStates returns the impl states of the queued pairs s.cur[i:j].
func (s *fsearch) batchStates(i, j int) []lts.State {
	s.states = s.states[:0]
	for _, it := range s.cur[i:j] {
		s.states = append(s.states, it.s)
	}
	return s.states
}

// visit checks one pair and queues its successors. It returns a refusal or
// a divergence at once (nothing shorter is left); a trace violation waits in
// s.found for the end of the level.
func (s *fsearch) visit(it item) (*fviolation, error) {
	node := &s.norm.info[it.m]
	if s.cyc != nil && node.div {
		return nil, nil // after a divergence of Spec, anything goes
	}
	trs, err := s.impl.Successors(it.s, s.trs[:0])
	if err != nil {
		return nil, s.traceError(it.id, lts.Tau, err)
	}
	s.trs = trs
	return s.visitWith(it, trs)
}

// visitWith is visit with the impl's transitions from it.s.
func (s *fsearch) visitWith(it item, trs []lts.Transition) (*fviolation, error) {
	node := &s.norm.info[it.m]
	if s.cyc != nil {
		on, err := s.cyc.onCycle(it.s)
		if err != nil {
			return nil, s.traceError(it.id, lts.Tau, err)
		}
		if on {
			return &fviolation{kind: KindDivergence, id: it.id}, nil
		}
	}
	// Terminated states have no transitions (lts.Terminator), and asking
	// is not free: a *csp.Proc decodes the state.
	terminated := len(trs) == 0 && s.term != nil && s.term.Terminated(it.s)
	if acc, stable := acceptance(trs, terminated, s.acc[:0]); stable {
		s.acc = acc
		if !hasAcceptance(node.accs, acc) {
			return &fviolation{kind: KindRefusal, id: it.id}, nil
		}
	}
	if terminated && !node.term {
		s.noteTrace(it.id, Tick, it.s)
	}
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
			s.noteTrace(it.id, tr.Event, tr.Target)
			continue
		}
		if s.found == nil {
			s.pending = append(s.pending, pend{parent: it.id, ev: tr.Event, s: tr.Target, m: m})
		}
	}
	return nil, nil
}

// hasAcceptance reports whether a stable impl state offering acc has a failure
// the specification node also has: some minimal acceptance of the node is
// a subset of acc.
func hasAcceptance(accs [][]lts.Event, acc []lts.Event) bool {
	for _, a := range accs {
		if subsetOf(a, acc) {
			return true
		}
	}
	return false
}

func (s *fsearch) noteTrace(id uint32, ev lts.Event, to lts.State) {
	if s.found == nil {
		s.found = &fviolation{kind: KindTrace, id: id, ev: ev, to: to}
	}
}

func (s *fsearch) add(st lts.State, m uint32, parent uint32, ev lts.Event, q *[]item) {
	id, added := s.store(st, m, parent, ev)
	if !added {
		return
	}
	s.markImpl(st)
	*q = append(*q, item{id: id, s: st, m: m})
}

// report builds and re-validates the counterexample of v.
func (s *fsearch) report(v *fviolation) (*Result, error) {
	steps := s.path(v.id)
	if v.kind == KindTrace && v.ev != Tick {
		steps = append(steps, pathStep{ev: v.ev, s: v.to})
	}
	cex, err := buildFailure(s.orig, s.norm.spec, s.model, v.kind, v.ev == Tick, steps)
	if err != nil {
		return nil, err
	}
	return &Result{Verdict: lts.Invalid, Stats: s.stats(), Counterexample: cex}, nil
}
