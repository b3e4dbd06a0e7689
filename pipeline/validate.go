package pipeline

import (
	"fmt"
	"slices"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// validateLTS re-checks the trace of a single-process check independently
// of the search that found it: on a fresh system it replays every step (an
// event from the previous state whose variables and control states are the
// ones reported), then checks the property at the end of the trace against
// its definition. A trace that fails is a bug of the search, reported as an
// internal error and never as a verdict.
func validateLTS(prog *csp.Program, a *lang.AssertDecl, r *csp.Result) error {
	if len(r.Trace) == 0 || r.Err != nil || r.Verdict == lts.Unknown {
		return nil
	}
	if r.Verdict == lts.Valid && a.Kind != lang.KindReaches {
		return nil // no witness to check
	}
	sys, err := prog.Process(a.Left)
	if err != nil {
		return err
	}
	ends, err := replay(sys, []lts.State{sys.Initial()}, r.Trace[0].Vars, r.Trace[1:])
	if err != nil {
		return err
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("internal error: the %s counterexample failed re-validation: %s", a.Kind, fmt.Sprintf(format, args...))
	}
	holds := func(prop func(lts.State) (bool, error)) (bool, error) {
		for _, s := range ends {
			ok, err := prop(s)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	}
	var ok bool
	switch a.Kind {
	case lang.KindDeadlockFree, lang.KindNonTerminating:
		ok, err = holds(func(s lts.State) (bool, error) {
			ts, err := sys.Successors(s, nil)
			if err != nil || len(ts) > 0 {
				return false, err
			}
			return a.Kind == lang.KindNonTerminating || !sys.Terminated(s), nil
		})
	case lang.KindDivergenceFree:
		ok, err = holds(func(s lts.State) (bool, error) {
			if len(r.Loop) == 0 || slices.ContainsFunc(r.Loop, func(st csp.Step) bool { return st.Event != "tau" }) {
				return false, nil
			}
			back, err := replay(sys, []lts.State{s}, nil, r.Loop)
			return slices.Contains(back, s), err
		})
	case lang.KindDeterministic:
		ok, err = holds(func(s lts.State) (bool, error) {
			ts, err := sys.Successors(s, nil)
			for i := range ts {
				for j := i + 1; j < len(ts); j++ {
					if ts[i].Event == ts[j].Event && ts[i].Target != ts[j].Target {
						return true, err
					}
				}
			}
			return false, err
		})
	case lang.KindReaches:
		cond, cerr := sys.Condition(a.Goal)
		if cerr != nil {
			return cerr
		}
		ok, err = holds(func(s lts.State) (bool, error) {
			v, err := cond(s)
			return v != 0, err
		})
	default:
		return nil
	}
	if err != nil {
		return err
	}
	if !ok {
		return fail("no state reached by the trace has the property")
	}
	return nil
}

// replay follows steps from the states from (whose description must be
// first, if not nil) and returns the states reached.
func replay(sys *csp.Proc, from []lts.State, first []lts.Binding, steps []csp.Step) ([]lts.State, error) {
	cur := from
	if first != nil {
		cur = matching(sys, cur, first)
	}
	for i, st := range steps {
		var next []lts.State
		for _, s := range cur {
			ts, err := sys.Successors(s, nil)
			if err != nil {
				return nil, err
			}
			for _, t := range ts {
				if sys.Events().Name(t.Event) == st.Event && !slices.Contains(next, t.Target) {
					next = append(next, t.Target)
				}
			}
		}
		if st.Vars != nil {
			next = matching(sys, next, st.Vars)
		}
		if len(next) == 0 {
			return nil, fmt.Errorf("internal error: counterexample step %d (%s) cannot be replayed", i+1, st.Event)
		}
		cur = next
	}
	return cur, nil
}

// matching keeps the states described by want.
func matching(sys *csp.Proc, states []lts.State, want []lts.Binding) []lts.State {
	var out []lts.State
	for _, s := range states {
		if slices.Equal(sys.Describe(s), want) {
			out = append(out, s)
		}
	}
	return out
}
