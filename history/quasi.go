package history

import (
	"context"
	"fmt"
	"slices"

	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/lts"

	"github.com/quasar-verify/quasar/relax"
)

// compileQuasi builds the machine of a quasi-linearizability check: the
// model's automaton view (AutomatonModel), relaxed by relax.New with the
// configuration (exact mode by default, docs/verdicts.md §2.2; window mode if
// asked). The search then runs over (linearized set, relaxed configuration);
// in complete mode a linearization must end in a settled configuration.
func compileQuasi(m Model, ops []Op, q *relax.Config) (Machine, error) {
	return compileQuasiPulls(m, ops, q, -1)
}

// compileQuasiPulls is compileQuasi with the relaxed automaton restricted
// to runs that pull at most pulls events per fresh event
// (relax.Relaxed.LimitPulls; pulls < 0: no limit).
func compileQuasiPulls(m Model, ops []Op, q *relax.Config, pulls int) (Machine, error) {
	am, ok := m.(AutomatonModel)
	if !ok {
		return nil, fmt.Errorf("model %s has no event view: quasi-linearizability needs queue, stack, pqueue, set or an automaton model", m.Name())
	}
	a, err := am.Automaton(ops)
	if err != nil {
		return nil, err
	}
	if ca, ok := a.(*containerAutomaton); ok && q.Mode == relax.Exact && zeroBounds(q) && ca.kind != cSet && ca.names[coTake] != "" {
		// With every bound 0 the exact relaxation is the spec itself,
		// whatever the classes and barriers (relax/doc.go: one state
		// (s, ∅) per spec state; no obligation, so a barrier is rigid and
		// every state settled). Checking it in the papers' configuration
		// (removals one class of bound 0, the empty removal a barrier)
		// lets quasiMachine's rules prune: --quasi 0 on a starving
		// 10,000-op queue took minutes without them, and the model's own
		// machine (weaker rules) 9 s on some recordings.
		take := ca.names[coTake]
		q = &relax.Config{Mode: relax.Exact, Complete: q.Complete,
			Classes:  []relax.Class{{Patterns: []lts.Pattern{lts.ParsePattern(take)}, Bound: 0}},
			Barriers: []lts.Pattern{lts.ParsePattern(take + ".0")}}
	}
	spec := a
	var rs *rankedSpec
	if windowing(q) {
		// The spec restricted to the rank windows (quasiwindow.go): the
		// same verdicts, far fewer pulled paths.
		ev, err := newAutomatonMachine(am, a, ops, nil)
		if err != nil {
			return nil, err
		}
		rs = newRankedSpec(a, ev, ops, q.All, q.Complete)
		spec = rs
	}
	r, err := relax.New(spec, *q)
	if err != nil {
		return nil, err
	}
	r.LimitPulls(pulls)
	mc, err := newAutomatonMachine(am, r, ops, nil)
	if err != nil {
		return nil, err
	}
	if q.Complete {
		mc.settled = r.Settled
	}
	if ca, ok := a.(*containerAutomaton); ok {
		mc.never = ca.neverTaken(mc.events)
	}
	qm := newQuasiMachine(mc, r, a, ops)
	if windowing(q) && qm == Machine(mc) {
		qm = newWindowMachine(mc, r, ops, a, rs)
	}
	if cm, ok := m.(containerModel); ok && qm == Machine(mc) && q.Mode == relax.Exact && zeroBounds(q) && mc.missing == nil && mc.never == nil {
		// No rules apply (a set, repeated values): at bound 0 the
		// model's own machine decides the same, with its pruning.
		return cm.Compile(ops)
	}
	return qm, nil
}

// MinQuasiFactor finds the least quasi factor k in 0..max for which h is
// quasi-linearizable with cfg's classes all given bound k (cfg.All if it
// has no classes). It returns k and that check's result, or -1 and the
// result at max if none is; an Unknown result at some k stops the search
// (k = -1, that result). Acceptance is monotone in k (a larger bound admits
// every configuration a smaller one does), so the search is linear from 0;
// each check is cheap next to the history's search space.
func MinQuasiFactor(ctx context.Context, h *History, m Model, cfg relax.Config, max int, opt Options) (int, *Result, error) {
	var last *Result
	for k := 0; k <= max; k++ {
		c := cfg.WithBound(k)
		o := opt
		o.Quasi = &c
		o.noReplay = k < max // only the last result's failure is reported
		res, err := Check(ctx, h, m, o)
		if err != nil {
			return -1, nil, err
		}
		last = res
		switch res.Verdict {
		case lts.Valid:
			return k, res, nil
		case lts.Unknown:
			return -1, res, nil
		}
	}
	return -1, last, nil
}

// Deepening. Without the pruning of quasiprune.go (puts relaxed too, as
// with --quasi K, which puts every event in one class; sets; automaton
// models), a fresh event of the relaxed automaton has one successor per
// spec path of up to Q pulled events: with a dozen values and Q = 8 the
// first step alone enumerates millions of paths, and the depth-first
// search meets them in no useful order (a 9-op queue history took 3 s at
// Q = 5 and hit the expansion limit at Q = 8). Two facts make most of
// that work unnecessary:
//
//   - acceptance is monotone in the bounds: a run of the relaxed automaton
//     at bounds j <= K (class by class) is a run at K, with the same pulls
//     and more slack (relax/doc.go);
//   - a run that pulls at most p events per fresh event is a run of the
//     sub-automaton of relax.Relaxed.LimitPulls(p).
//
// So the check at bound K first runs the full searches at j = 0, 1, ...,
// K-1 (each class's bound capped at j), then at K the searches of the
// sub-automata p = 0, ..., K-1, each for a bounded number of steps
// (deepQuota), and stops at the first that finds a linearization: it is
// accepted at K (verified, as every witness, on the machine that found
// it, a run at K by the two facts). Only if none does
// the full search at K decides (invalid). A history is thus decided at K
// in about the time of the searches up to its quasi factor, which are
// small, instead of the search at K. A completed op whose event the spec
// never enables (a dequeue of a value nobody enqueues) makes the history
// invalid at every bound: the search at bound 0 reports it.

// deepening returns the largest class bound of a quasi check whose
// machine does not prune (0: no deepening).
func deepening(mc Machine, q *relax.Config) int {
	if q == nil || q.Mode != relax.Exact {
		return 0
	}
	switch mc.(type) {
	case *automatonMachine, *windowMachine:
	default:
		return 0
	}
	most := q.All
	for _, c := range q.Classes {
		most = max(most, c.Bound)
	}
	return most
}

// deepeningOf is deepening for a check of one partition (0 otherwise).
func deepeningOf(machines []Machine, q *relax.Config) int {
	if len(machines) != 1 {
		return 0
	}
	return deepening(machines[0], q)
}

// capBound is q with every bound capped at j.
func capBound(q *relax.Config, j int) *relax.Config {
	c := *q
	c.All = min(c.All, j)
	c.Classes = slices.Clone(q.Classes)
	for i := range c.Classes {
		c.Classes[i].Bound = min(c.Classes[i].Bound, j)
	}
	return &c
}

// searchDeepening runs the searches of deepening (see above) for the
// single partition ops, with most the largest bound of q and mc the
// machine of the full check at q, and returns the search that decided and
// its machine. Its statistics count every search run.
func searchDeepening(m Model, mc Machine, ops []Op, q *relax.Config, most int, bud *budget.Budget, prog *tracker) (*search, Machine, error) {
	var states, steps int64
	// try runs one preliminary search for at most deepQuota steps: done if
	// it found a witness or hit a limit (unknown); else (none found, or
	// undecided within the quota) the next one runs.
	try := func(cfg *relax.Config, pulls int) (s *search, rm Machine, out outcome, err error) {
		if rm, err = compileQuasiPulls(m, ops, cfg, pulls); err != nil {
			return nil, nil, none, err
		}
		s = newSearch(rm, ops, bud)
		s.prog = prog
		out = s.step(deepQuota)
		states += int64(s.states)
		steps += s.steps
		if out == found || out == limited {
			s.states, s.steps = int(states), steps
		}
		return s, rm, out, nil
	}
	for j := 0; j < most; j++ {
		s, rm, out, err := try(capBound(q, j), -1)
		if err != nil || out == found || out == limited {
			return s, rm, err
		}
		if am := automatonOf(mc); am != nil && j == 0 && out == none {
			if i := am.impossible(ops); i >= 0 {
				// Invalid at every bound: op i takes effect nowhere. The
				// failed search at bound 0 gives the report (its longest
				// prefix is a run at q too).
				s.blocked, s.why = i, am.unknownEvent(i)
				s.states, s.steps = int(states), steps
				return s, rm, nil
			}
		}
	}
	for p := 0; p < most; p++ {
		s, rm, out, err := try(q, p)
		if err != nil || out == found || out == limited {
			return s, rm, err
		}
	}
	s := newSearch(mc, ops, bud)
	s.prog = prog
	s.run()
	s.states += int(states)
	s.steps += steps
	return s, mc, nil
}

// deepQuota bounds each preliminary search of deepening (in steps): they
// only look for a witness, and one that explores a large space without
// finding it (a bound below the quasi factor, or no pruning) must not
// cost more than the search at K that decides after it.
const deepQuota = 1 << 13

// zeroBounds reports whether every class of q has bound 0.
func zeroBounds(q *relax.Config) bool {
	if len(q.Classes) == 0 {
		return q.All == 0
	}
	for _, c := range q.Classes {
		if c.Bound != 0 {
			return false
		}
	}
	return true
}

// automatonOf is the automaton machine of a machine that deepens.
func automatonOf(mc Machine) *automatonMachine {
	switch m := mc.(type) {
	case *automatonMachine:
		return m
	case *windowMachine:
		return m.automatonMachine
	}
	return nil
}
