package refine

import (
	"fmt"
	"slices"

	"github.com/quasar-verify/quasar/lts"
)

// buildFailure turns the impl path of a failures violation into a
// Counterexample after re-validating it against the definitions, with
// fresh set simulations that share nothing with the search:
//
//   - every step of the path is a transition of impl;
//   - the specification can perform the path's trace t (after tau steps);
//   - trace: it cannot perform the final event (or terminate, for ✓) after
//     t;
//   - refusal: the final impl state is stable and no stable specification
//     state after t offers a subset of what it offers, so (t, Σ minus the
//     offered events) is a failure of impl and not of spec;
//   - divergence: a tau cycle leads from the final impl state back to it;
//   - FD: no specification state after t can diverge.
func buildFailure(impl, spec lts.System, model Model, kind string, tick bool, steps []pathStep) (*Counterexample, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("refine: internal error: %s counterexample fails re-validation: %s", kind, fmt.Sprintf(format, args...))
	}
	if err := replayPath(impl, steps); err != nil {
		return nil, bad("%v", err)
	}
	var trace []lts.Event
	for _, st := range steps {
		if st.ev != lts.Tau {
			trace = append(trace, st.ev)
		}
	}
	prefix := trace
	if kind == KindTrace && !tick {
		prefix = trace[:len(trace)-1]
	}
	sim := &simulation{sys: spec}
	set, err := sim.after(prefix)
	if err != nil {
		return nil, err
	}
	if len(set) == 0 {
		return nil, bad("the specification cannot perform the trace")
	}
	if model == FailuresDivergences {
		if d, err := sim.diverges(set); err != nil || d {
			return nil, bad("the specification can diverge after the trace (%v)", err)
		}
	}
	last := impl.Initial()
	if len(steps) > 0 {
		last = steps[len(steps)-1].s
	}
	cex := &Counterexample{Kind: kind}
	tab := impl.Events()
	switch kind {
	case KindTrace:
		err = checkTraceEnd(sim, set, tick, trace, tab)
		if tick {
			cex.Event = TickName
		}
	case KindRefusal:
		err = checkRefusal(impl, sim, set, last, cex)
	case KindDivergence:
		var cycle []pathStep
		if cycle, err = tauCycle(impl, last); err == nil {
			steps = append(steps, cycle...)
			cex.Cycle = len(cycle)
		}
	}
	if err != nil {
		return nil, bad("%v", err)
	}
	offered, err := sim.offered(set)
	if err != nil {
		return nil, err
	}
	cex.Offered = sortedNames(tab, offered)
	return describePath(impl, cex, trace, steps), nil
}

// checkTraceEnd checks that the specification, in the tau-closed set of
// states after the trace's prefix, cannot perform the trace's last event
// (tick: cannot terminate).
func checkTraceEnd(sim *simulation, set []lts.State, tick bool, trace []lts.Event, tab *lts.EventTable) error {
	term, _ := sim.sys.(lts.Terminator)
	for _, q := range set {
		if tick {
			if term != nil && term.Terminated(q) {
				return fmt.Errorf("the specification can terminate after the trace")
			}
			continue
		}
		trs, err := sim.sys.Successors(q, nil)
		if err != nil {
			return err
		}
		e := trace[len(trace)-1]
		for _, tr := range trs {
			if tr.Event == e {
				return fmt.Errorf("the specification can perform the final event %s", tab.Name(e))
			}
		}
	}
	return nil
}

// checkRefusal checks the refusal of the stable impl state last against the
// specification's states after the trace and fills the refusal fields.
func checkRefusal(impl lts.System, sim *simulation, set []lts.State, last lts.State, cex *Counterexample) error {
	trs, err := impl.Successors(last, nil)
	if err != nil {
		return err
	}
	term, _ := impl.(lts.Terminator)
	offers, stable := acceptance(trs, term != nil && term.Terminated(last), nil)
	if !stable {
		return fmt.Errorf("the final implementation state is not stable")
	}
	sterm, _ := sim.sys.(lts.Terminator)
	var accs [][]lts.Event
	for _, q := range set {
		trs, err := sim.sys.Successors(q, nil)
		if err != nil {
			return err
		}
		a, ok := acceptance(trs, sterm != nil && sterm.Terminated(q), nil)
		if !ok {
			continue
		}
		if subsetOf(a, offers) {
			return fmt.Errorf("a stable specification state offers only %v, which the implementation offers too", a)
		}
		accs = addMinimal(accs, a)
	}
	tab := impl.Events()
	var refused []lts.Event
	cex.Acceptances = [][]string{}
	for _, a := range accs {
		cex.Acceptances = append(cex.Acceptances, sortedNames(tab, a))
		for _, e := range a {
			if !slices.Contains(offers, e) {
				refused = append(refused, e)
			}
		}
	}
	slices.SortFunc(cex.Acceptances, slices.Compare)
	cex.ImplOffers = sortedNames(tab, offers)
	slices.Sort(refused)
	cex.Refused = sortedNames(tab, slices.Compact(refused))
	return nil
}

// tauCycle finds a shortest cycle of tau steps from s back to s.
func tauCycle(impl lts.System, s lts.State) ([]pathStep, error) {
	parent := map[lts.State]lts.State{}
	queue := []lts.State{s}
	for len(queue) > 0 && len(parent) <= maxReplayStates {
		u := queue[0]
		queue = queue[1:]
		trs, err := impl.Successors(u, nil)
		if err != nil {
			return nil, err
		}
		for _, tr := range trs {
			if tr.Event != lts.Tau {
				continue
			}
			if _, ok := parent[tr.Target]; ok {
				continue
			}
			parent[tr.Target] = u
			if tr.Target == s {
				var cycle []pathStep
				for v := s; ; {
					cycle = append(cycle, pathStep{ev: lts.Tau, s: v})
					if v = parent[v]; v == s {
						break
					}
				}
				slices.Reverse(cycle)
				return cycle, nil
			}
			queue = append(queue, tr.Target)
		}
	}
	return nil, fmt.Errorf("no cycle of tau steps leads back to the final implementation state")
}

// simulation is a fresh set simulation of a process with tau closure,
// for re-validation.
type simulation struct {
	sys lts.System
}

// closure is the set of states tau-reachable from set, sorted.
func (m *simulation) closure(set []lts.State) ([]lts.State, error) {
	seen := map[lts.State]bool{}
	var out []lts.State
	stack := slices.Clone(set)
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, u)
		if len(out) > maxReplayStates {
			return nil, fmt.Errorf("refine: re-validation: a tau closure of the specification exceeds %d states", maxReplayStates)
		}
		trs, err := m.sys.Successors(u, nil)
		if err != nil {
			return nil, err
		}
		for _, tr := range trs {
			if tr.Event == lts.Tau {
				stack = append(stack, tr.Target)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// after is the tau-closed set of states reached by trace.
func (m *simulation) after(trace []lts.Event) ([]lts.State, error) {
	set, err := m.closure([]lts.State{m.sys.Initial()})
	for _, e := range trace {
		if err != nil || len(set) == 0 {
			break
		}
		var next []lts.State
		for _, q := range set {
			trs, err := m.sys.Successors(q, nil)
			if err != nil {
				return nil, err
			}
			for _, tr := range trs {
				if tr.Event == e {
					next = append(next, tr.Target)
				}
			}
		}
		set, err = m.closure(next)
	}
	return set, err
}

// diverges reports whether some state of the tau-closed set reaches itself
// by one or more tau steps.
func (m *simulation) diverges(set []lts.State) (bool, error) {
	in := map[lts.State]bool{}
	for _, q := range set {
		in[q] = true
	}
	for _, q := range set {
		trs, err := m.sys.Successors(q, nil)
		if err != nil {
			return false, err
		}
		var from []lts.State
		for _, tr := range trs {
			if tr.Event == lts.Tau {
				from = append(from, tr.Target)
			}
		}
		reach, err := m.closure(from)
		if err != nil {
			return false, err
		}
		if _, ok := slices.BinarySearch(reach, q); ok {
			return true, nil
		}
	}
	return false, nil
}

// offered is the set of visible events some state of set can perform.
func (m *simulation) offered(set []lts.State) ([]lts.Event, error) {
	var out []lts.Event
	for _, q := range set {
		trs, err := m.sys.Successors(q, nil)
		if err != nil {
			return nil, err
		}
		for _, tr := range trs {
			if tr.Event != lts.Tau {
				out = append(out, tr.Event)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// sortedNames names events (Tick as TickName), sorted by name: event ids
// depend on the order the events were first met.
func sortedNames(tab *lts.EventTable, evs []lts.Event) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		if e == Tick {
			out = append(out, TickName)
		} else {
			out = append(out, tab.Name(e))
		}
	}
	slices.Sort(out)
	return out
}

// describePath fills the trace and path of cex from the validated steps.
func describePath(impl lts.System, cex *Counterexample, trace []lts.Event, steps []pathStep) *Counterexample {
	tab := impl.Events()
	cex.Trace = []string{}
	for _, e := range trace {
		cex.Trace = append(cex.Trace, tab.Name(e))
	}
	if cex.Kind == KindTrace && cex.Event == "" && len(trace) > 0 {
		cex.Event = tab.Name(trace[len(trace)-1])
	}
	if cex.Event == TickName {
		cex.Trace = append(cex.Trace, TickName)
	}
	desc, _ := impl.(lts.Describer)
	var prev []lts.Binding
	if desc != nil {
		prev = desc.Describe(impl.Initial())
		cex.Initial = prev
	}
	for _, st := range steps {
		step := Step{Event: tab.Name(st.ev), Visible: st.ev != lts.Tau, State: st.s}
		if desc != nil {
			step.Vars = desc.Describe(st.s)
			step.Changed = lts.Changed(prev, step.Vars)
			prev = step.Vars
		}
		cex.Path = append(cex.Path, step)
	}
	return cex
}
