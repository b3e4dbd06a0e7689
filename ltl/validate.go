package ltl

import (
	"errors"
	"fmt"

	"github.com/quasar-verify/quasar/lts"
)

// Validate re-checks a counterexample independently of the search: every
// step is a transition of sys (or the implicit loop of a deadlocked or
// terminated state), the prefix starts in the initial state and the cycle
// closes, the negation of the formula holds on the lasso's word by the
// direct evaluator (Holds), and the cycle is fair under fairness.
func Validate(sys lts.System, p *Parsed, atoms []Atom, l *Lasso, fairness Fairness) error {
	if l == nil || len(l.Cycle) == 0 {
		return errors.New("empty cycle")
	}
	steps := append(append([]Step(nil), l.Prefix...), l.Cycle...)
	if steps[0].From != sys.Initial() {
		return fmt.Errorf("the run starts in state %d, not in the initial state %d", steps[0].From, sys.Initial())
	}
	if last := l.Cycle[len(l.Cycle)-1]; last.To != l.Cycle[0].From {
		return fmt.Errorf("the cycle ends in state %d, not where it starts (%d)", last.To, l.Cycle[0].From)
	}
	term, _ := sys.(lts.Terminator)
	t := sys.Events()
	w := make([][]bool, len(steps))
	after, afterAtCycle := false, false // past the termination step
	for i, st := range steps {
		if i == len(l.Prefix) {
			afterAtCycle = after
		}
		if i > 0 && steps[i-1].To != st.From {
			return fmt.Errorf("step %d starts in state %d, not where step %d ended", i+1, st.From, i)
		}
		ts, err := sys.Successors(st.From, nil)
		if err != nil {
			return err
		}
		if err := realStep(ts, st, term, after); err != nil {
			return fmt.Errorf("step %d: %v", i+1, err)
		}
		after = after || st.Event == Terminate
		w[i] = make([]bool, len(atoms))
		for a, at := range atoms {
			if at.Prop != nil {
				if w[i][a], err = at.Prop(st.From); err != nil {
					return err
				}
				continue
			}
			switch st.Event {
			case lts.Tau, Deadlock:
			case Terminate:
				w[i][a] = at.Name == TerminateName
			default:
				w[i][a] = t.Name(st.Event) == at.Name
			}
		}
	}
	if after != afterAtCycle {
		return errors.New("the cycle contains the termination step, which happens once")
	}
	if !Holds(&Formula{Op: OpNot, L: p.Root}, w, len(l.Prefix)) {
		return errors.New("the formula holds on the lasso")
	}
	return fairCycle(sys, l.Cycle, fairness)
}

// realStep checks a step: a transition of the system, or the implicit
// step of a state without any (after: the termination step was taken).
func realStep(ts []lts.Transition, st Step, term lts.Terminator, after bool) error {
	if len(ts) == 0 {
		want := Deadlock
		if term != nil && term.Terminated(st.From) && !after {
			want = Terminate
		}
		if st.Event != want || st.To != st.From {
			return fmt.Errorf("state %d has no transitions: only its implicit loop is a step", st.From)
		}
		return nil
	}
	for _, t := range ts {
		if t.Event == st.Event && t.Target == st.To {
			return nil
		}
	}
	return fmt.Errorf("%d -%d-> %d is not a transition", st.From, st.Event, st.To)
}

// fairCycle checks the fairness of a run that repeats cyc forever.
func fairCycle(sys lts.System, cyc []Step, fairness Fairness) error {
	if fairness == NoFairness {
		return nil
	}
	takenEv := map[lts.Event]bool{}
	takenTr := map[Step]bool{}
	for _, st := range cyc {
		takenEv[st.Event] = true
		takenTr[st] = true
	}
	count := map[lts.Event]int{}
	for _, st := range cyc {
		ts, err := sys.Successors(st.From, nil)
		if err != nil {
			return err
		}
		seen := map[lts.Event]bool{}
		for _, t := range ts {
			switch {
			case fairness == Global && !takenTr[Step{st.From, t.Event, t.Target}]:
				return fmt.Errorf("unfair cycle: %d -%d-> %d is enabled infinitely often but never taken", st.From, t.Event, t.Target)
			case fairness == Strong && t.Event != lts.Tau && !takenEv[t.Event]:
				return fmt.Errorf("unfair cycle: event %d is enabled infinitely often but never taken", t.Event)
			case t.Event != lts.Tau && !seen[t.Event]:
				seen[t.Event] = true
				count[t.Event]++
			}
		}
	}
	if fairness == Weak {
		for ev, c := range count {
			if c == len(cyc) && !takenEv[ev] {
				return fmt.Errorf("unfair cycle: event %d is always enabled but never taken", ev)
			}
		}
	}
	return nil
}
