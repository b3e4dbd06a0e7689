package refine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/quasar-verify/quasar/lts"
)

// maxReplayStates bounds each tau closure of the impl replay; beyond it the
// replay relies on the step-by-step check of the reported path alone.
const maxReplayStates = 1 << 20

// pathStep is one impl transition of a counterexample path.
type pathStep struct {
	ev lts.Event
	s  lts.State
}

// buildCounterexample turns an impl path (from the initial state, last step
// the offending event) into a Counterexample, after re-validating it
// independently of the search: a counterexample that fails is an internal
// error, never a verdict.
func buildCounterexample(impl lts.System, spec lts.Automaton, steps []pathStep, ren []lts.Perm) (*Counterexample, error) {
	tab := impl.Events()
	if u, ok := impl.(stepUnreducer); ok {
		// Some steps stand for two of another system's (with pair
		// symmetry, ren renames each step's state to the concrete one).
		evs := make([]lts.Event, len(steps))
		path := make([]lts.State, len(steps))
		for i, st := range steps {
			evs[i], path[i] = st.ev, st.s
		}
		sys, events, concrete, err := u.UnreduceSteps(evs, path, ren)
		if err != nil {
			return nil, fmt.Errorf("refine: %w", err)
		}
		impl = sys
		steps = steps[:0]
		for i, s := range concrete {
			steps = append(steps, pathStep{ev: events[i], s: s})
		}
	} else if u, ok := impl.(renamedUnreducer); ok && ren != nil {
		// Pair symmetry: step i's concrete state is ren[i] applied to
		// its representative.
		evs := make([]lts.Event, len(steps))
		path := make([]lts.State, len(steps))
		for i, st := range steps {
			evs[i], path[i] = st.ev, st.s
		}
		sys, concrete, err := u.UnreduceRenamed(evs, path, ren)
		if err != nil {
			return nil, fmt.Errorf("refine: %w", err)
		}
		impl = sys
		for i := range steps {
			steps[i].s = concrete[i]
		}
	} else if u, ok := impl.(unreducer); ok {
		// A symmetry-reduced impl: re-validate and describe the path on
		// the unreduced system.
		evs := make([]lts.Event, len(steps))
		path := make([]lts.State, len(steps))
		for i, st := range steps {
			evs[i], path[i] = st.ev, st.s
		}
		sys, concrete, err := u.Unreduce(evs, path)
		if err != nil {
			return nil, fmt.Errorf("refine: %w", err)
		}
		impl = sys
		for i := range steps {
			steps[i].s = concrete[i]
		}
	}
	var trace []lts.Event
	for _, st := range steps {
		if st.ev != lts.Tau {
			trace = append(trace, st.ev)
		}
	}
	if len(trace) == 0 || steps[len(steps)-1].ev == lts.Tau {
		return nil, fmt.Errorf("refine: internal error: counterexample path does not end with a visible event")
	}
	if err := replayPath(impl, steps); err != nil {
		return nil, fmt.Errorf("refine: internal error: counterexample fails re-validation: %w", err)
	}
	if err := replayImpl(impl, trace); err != nil {
		return nil, fmt.Errorf("refine: internal error: counterexample fails re-validation: %w", err)
	}
	offered, err := replaySpec(spec, trace)
	var rte *lts.RuntimeError
	if errors.As(err, &rte) {
		// Enabled is first called here: a spec error is the model's.
		return nil, &TraceError{Err: err, Trace: names(tab, trace[:len(trace)-1])}
	}
	if err != nil {
		return nil, fmt.Errorf("refine: internal error: counterexample fails re-validation: %w", err)
	}

	cex := &Counterexample{Event: tab.Name(trace[len(trace)-1]), Offered: sortedNames(tab, offered)}
	return describePath(impl, cex, trace, steps), nil
}

// unreducer is implemented by systems that store one state per orbit of a
// symmetry (*csp.Proc): Unreduce maps a path to the unreduced system.
type unreducer interface {
	Unreduce(events []lts.Event, path []lts.State) (lts.System, []lts.State, error)
}

// stepUnreducer is implemented by systems some of whose transitions are
// two steps of another system (linearize.Reduced): UnreduceSteps maps a
// path (with pair symmetry, given each step's renaming; else ren is nil)
// to that system's path, with its events.
type stepUnreducer interface {
	UnreduceSteps(events []lts.Event, path []lts.State, ren []lts.Perm) (lts.System, []lts.Event, []lts.State, error)
}

// renamedUnreducer is implemented by systems whose symmetry renames
// events (pair symmetry): UnreduceRenamed maps a path of representatives
// to the concrete path, given each step's renaming.
type renamedUnreducer interface {
	UnreduceRenamed(events []lts.Event, path []lts.State, ren []lts.Perm) (lts.System, []lts.State, error)
}

// replayPath checks that every step of the path is a transition of impl.
func replayPath(impl lts.System, steps []pathStep) error {
	cur := impl.Initial()
	var buf []lts.Transition
	for i, st := range steps {
		var err error
		buf, err = impl.Successors(cur, buf[:0])
		if err != nil {
			return err
		}
		if !slices.Contains(buf, lts.Transition{Event: st.ev, Target: st.s}) {
			return fmt.Errorf("step %d (%s) is not a transition of the implementation", i+1, impl.Events().Name(st.ev))
		}
		cur = st.s
	}
	return nil
}

// replayImpl checks that trace is a trace of impl by a fresh set simulation
// with tau closure (bounded by maxReplayStates per closure). The simulation
// may meet states the search never expanded (it stopped at the violation);
// a run-time error there, or a closure over the bound, leaves the proof to
// replayPath, whose states the search expanded without error.
func replayImpl(impl lts.System, trace []lts.Event) error {
	// The closure keeps the transitions of its states (trs[offs[i]:offs[i+1]]
	// for set[i]): the step after it reads them instead of expanding each
	// state a second time.
	var trs []lts.Transition
	var offs []int
	closure := func(set []lts.State) ([]lts.State, bool, error) {
		seen := make(map[lts.State]bool, len(set))
		for _, s := range set {
			seen[s] = true
		}
		trs, offs = trs[:0], append(offs[:0], 0)
		for i := 0; i < len(set); i++ {
			if len(set) > maxReplayStates {
				return set, false, nil
			}
			n := len(trs)
			var err error
			trs, err = impl.Successors(set[i], trs)
			if err != nil {
				return set, false, nil
			}
			offs = append(offs, len(trs))
			for _, t := range trs[n:] {
				if t.Event == lts.Tau && !seen[t.Target] {
					seen[t.Target] = true
					set = append(set, t.Target)
				}
			}
		}
		return set, true, nil
	}
	set, ok, err := closure([]lts.State{impl.Initial()})
	if err != nil || !ok {
		return err
	}
	for i, e := range trace {
		var next []lts.State
		seen := map[lts.State]bool{}
		for k := range set {
			for _, t := range trs[offs[k]:offs[k+1]] {
				if t.Event == e && !seen[t.Target] {
					seen[t.Target] = true
					next = append(next, t.Target)
				}
			}
		}
		if len(next) == 0 {
			return fmt.Errorf("the implementation cannot perform event %d (%s) of the trace", i+1, impl.Events().Name(e))
		}
		if i == len(trace)-1 {
			return nil
		}
		if set, ok, err = closure(next); err != nil || !ok {
			return err
		}
	}
	return nil
}

// specStep is one step of a set simulation of spec: the sorted set of
// states some state of set reaches on e.
func specStep(spec lts.Automaton, set []lts.State, e lts.Event) ([]lts.State, error) {
	var next []lts.State
	for _, s := range set {
		var err error
		if next, err = spec.Step(s, e, next); err != nil {
			return nil, err
		}
	}
	slices.Sort(next)
	return slices.Compact(next), nil
}

// replaySpec checks by a fresh set simulation that spec accepts the trace
// without its last event and rejects the whole trace; it returns the events
// the spec offers after the accepted prefix.
func replaySpec(spec lts.Automaton, trace []lts.Event) ([]lts.Event, error) {
	set := spec.Start(nil)
	t, e := trace[:len(trace)-1], trace[len(trace)-1]
	tag, _ := spec.(Tagged)
	if tag != nil && !tag.Late() {
		tag = nil
	}
	for i, ev := range t {
		var err error
		if set, err = specStep(spec, set, ev); err != nil {
			return nil, err
		}
		if len(set) == 0 || tag != nil && !tag.Covered(set) {
			return nil, fmt.Errorf("the specification rejects event %d (%s) of the prefix", i+1, spec.Events().Name(ev))
		}
	}
	var offered []lts.Event
	for _, s := range set {
		var err error
		if offered, err = spec.Enabled(s, offered); err != nil {
			return nil, err
		}
	}
	slices.Sort(offered)
	offered = slices.Compact(offered)
	after, err := specStep(spec, set, e)
	if err != nil {
		return nil, err
	}
	if tag != nil {
		// Some vector of tags has no state left (the others may have).
		if tag.Covered(after) {
			return nil, fmt.Errorf("the specification accepts the final event %s", spec.Events().Name(e))
		}
		return offered, nil
	}
	if len(after) != 0 {
		return nil, fmt.Errorf("the specification accepts the final event %s", spec.Events().Name(e))
	}
	if slices.Contains(offered, e) {
		return nil, fmt.Errorf("the specification offers the final event %s but cannot perform it", spec.Events().Name(e))
	}
	return offered, nil
}
