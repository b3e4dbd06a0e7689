package ltl

import (
	"context"
	"errors"
	"fmt"

	"github.com/quasar-verify/quasar/lts"
)

// Fairness selects the fairness assumption under which a formula is
// checked: only fair runs can be counterexamples.
type Fairness int

const (
	// NoFairness: every infinite run counts.
	NoFairness Fairness = iota
	// Weak event-level fairness: an event that is enabled in every state
	// from some point on is taken infinitely often.
	Weak
	// Strong (local) event-level fairness: an event that is enabled
	// infinitely often is taken infinitely often.
	Strong
	// Global (strong global) fairness: every transition (state, event,
	// target) that is enabled infinitely often is taken infinitely often.
	Global
)

func (f Fairness) String() string {
	switch f {
	case NoFairness:
		return "none"
	case Weak:
		return "weak"
	case Strong:
		return "strong"
	case Global:
		return "global"
	}
	return fmt.Sprintf("fairness(%d)", int(f))
}

// ParseFairness reads "", "none", "weak", "strong" or "global".
func ParseFairness(s string) (Fairness, error) {
	for _, f := range []Fairness{NoFairness, Weak, Strong, Global} {
		if s == f.String() {
			return f, nil
		}
	}
	if s == "" {
		return NoFairness, nil
	}
	return NoFairness, fmt.Errorf("unknown fairness %q: want none, weak, strong or global", s)
}

// The implicit steps of a run that cannot go on: a deadlocked state loops
// on Deadlock; a terminated state (after Skip) does Terminate once and
// then loops on Deadlock. Neither is an event of the model's table.
const (
	Deadlock  lts.Event = ^lts.Event(0)
	Terminate lts.Event = ^lts.Event(0) - 1
)

// TerminateName is the event atom that holds on the implicit step of a
// terminated state (PAT's name for the termination event).
const TerminateName = "terminate"

// Atom is a resolved atom. With Prop nil it is an event atom: it holds at a
// step whose event is named Name (and at the termination step of a
// terminated state if Name is "terminate"). Otherwise it is a proposition
// on the state the step leaves.
type Atom struct {
	Name string
	Prop func(lts.State) (bool, error)
}

// Options configure a check. The zero value checks without fairness and
// without limits.
type Options struct {
	Limits   lts.Limits
	Fairness Fairness
	// Progress, if set, is called from the search about every 100 ms with
	// the figures so far.
	Progress func(lts.Stats)
}

// Step is one step of a lasso: From -Event-> To. Event may be Deadlock
// or Terminate (then To == From; after Terminate the run stays in From
// and only Deadlock steps follow).
type Step struct {
	From  lts.State
	Event lts.Event
	To    lts.State
}

// Lasso is an ultimately periodic run: the Prefix, then the Cycle
// repeated forever (the cycle's last step returns to its first state).
type Lasso struct {
	Prefix, Cycle []Step
}

// Result is the outcome of a check.
type Result struct {
	Verdict lts.Verdict
	Reason  string
	Stats   lts.Stats
	// Counterexample is a fair run that violates the formula (Invalid
	// only), re-validated by Validate.
	Counterexample *Lasso
	// Automaton is the size of the Büchi automaton of the negation.
	AutomatonStates int
}

// Check decides whether every (fair) infinite run of sys satisfies the
// formula p, whose atoms are resolved in atoms (same order as p.Atoms).
// See the package documentation for the semantics and the algorithm.
func Check(ctx context.Context, sys lts.System, p *Parsed, atoms []Atom, opt Options) (res *Result, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if sys == nil || p == nil || p.Root == nil {
		return nil, errors.New("ltl: nil system or formula")
	}
	if len(atoms) != len(p.Atoms) {
		return nil, fmt.Errorf("ltl: %d atoms resolved for a formula with %d", len(atoms), len(p.Atoms))
	}
	if len(atoms) > 63 {
		return nil, errors.New("ltl: more than 63 distinct atoms in the formula")
	}
	neg := &Formula{Op: OpNot, L: p.Root}
	b, err := Translate(neg)
	if err != nil {
		return nil, err
	}
	s := newSearch(ctx, sys, b, atoms, opt)
	defer s.bud.Close()
	res = &Result{Verdict: lts.Valid, AutomatonStates: len(b.States)}
	lasso, reason, err := s.run()
	res.Stats = lts.Stats{States: int64(s.ids.Len()), Transitions: s.transitions, Seconds: s.bud.Seconds(), PeakBytes: s.bud.Peak(), Depth: s.maxDepth}
	if err != nil {
		return nil, err
	}
	switch {
	case lasso != nil:
		if err := Validate(sys, p, atoms, lasso, opt.Fairness); err != nil {
			return nil, fmt.Errorf("internal error: counterexample failed re-validation: %v", err)
		}
		res.Verdict, res.Counterexample = lts.Invalid, lasso
	case reason != "":
		res.Verdict, res.Reason = lts.Unknown, reason
	}
	return res, nil
}
