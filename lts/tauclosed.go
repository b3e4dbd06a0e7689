package lts

import "slices"

// TauClosed views a System as an Automaton over its visible events: from a
// state s, the event e leads to every state reachable by tau* e tau*. The
// closures and the successors of the states they contain are memoised per
// state, so the view is meant for specifications (which are small compared
// to the product search over them): a state's successors are computed once,
// not once for its closure and again for each event asked about.
//
// It is not safe for concurrent use.
type TauClosed struct {
	Sys     System
	closure map[State][]State
	// succ locates the memoised successors of a state in trs: offset<<32 |
	// count.
	succ map[State]uint64
	trs  []Transition
	buf  []Transition
}

// NewTauClosed wraps sys.
func NewTauClosed(sys System) *TauClosed {
	return &TauClosed{Sys: sys, closure: map[State][]State{}, succ: map[State]uint64{}}
}

func (a *TauClosed) Events() *EventTable { return a.Sys.Events() }

// Start returns the initial state only: Step and Enabled close under tau
// themselves, so one representative suffices.
func (a *TauClosed) Start(buf []State) []State { return append(buf, a.Sys.Initial()) }

// successors returns the transitions of s, memoised (the slice is valid
// until the next call). An error is not memoised: the system reports it
// again when asked again.
func (a *TauClosed) successors(s State) ([]Transition, error) {
	if a.succ == nil {
		a.succ = map[State]uint64{}
	}
	if v, ok := a.succ[s]; ok {
		off := v >> 32
		return a.trs[off : off+v&(1<<32-1)], nil
	}
	var err error
	a.buf, err = a.Sys.Successors(s, a.buf[:0])
	if err != nil {
		return nil, err
	}
	off := len(a.trs)
	a.trs = append(a.trs, a.buf...)
	a.succ[s] = uint64(off)<<32 | uint64(len(a.buf))
	return a.trs[off:], nil
}

// Closure returns the states reachable from s by tau steps, s included,
// sorted by id. The slice is shared: do not modify it.
func (a *TauClosed) Closure(s State) ([]State, error) {
	if c, ok := a.closure[s]; ok {
		return c, nil
	}
	if a.closure == nil {
		a.closure = map[State][]State{}
	}
	trs, err := a.successors(s)
	if err != nil {
		return nil, err
	}
	tau := false
	for _, t := range trs {
		if t.Event == Tau {
			tau = true
			break
		}
	}
	if !tau {
		// The common case of a specification: no internal step.
		out := []State{s}
		a.closure[s] = out
		return out, nil
	}
	seen := map[State]bool{s: true}
	stack := []State{s}
	out := []State{s}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		trs, err := a.successors(u)
		if err != nil {
			return nil, err
		}
		for _, t := range trs {
			if t.Event == Tau && !seen[t.Target] {
				seen[t.Target] = true
				stack = append(stack, t.Target)
				out = append(out, t.Target)
			}
		}
	}
	slices.Sort(out)
	a.closure[s] = out
	return out, nil
}

// Step appends the states reachable from s by tau* e, each a representative
// whose own tau closure Step and Enabled take into account.
func (a *TauClosed) Step(s State, e Event, buf []State) ([]State, error) {
	c, err := a.Closure(s)
	if err != nil {
		return buf, err
	}
	n := len(buf)
	for _, u := range c {
		trs, err := a.successors(u)
		if err != nil {
			return buf, err
		}
		for _, t := range trs {
			if t.Event == e {
				buf = append(buf, t.Target)
			}
		}
	}
	return dedup(buf, n), nil
}

// Enabled appends the visible events possible from s after tau steps.
func (a *TauClosed) Enabled(s State, buf []Event) ([]Event, error) {
	c, err := a.Closure(s)
	if err != nil {
		return buf, err
	}
	n := len(buf)
	for _, u := range c {
		trs, err := a.successors(u)
		if err != nil {
			return buf, err
		}
		for _, t := range trs {
			if t.Event != Tau {
				buf = append(buf, t.Event)
			}
		}
	}
	return dedup(buf, n), nil
}

// dedup sorts buf[n:] and removes duplicates.
func dedup[T ~uint32](buf []T, n int) []T {
	tail := buf[n:]
	slices.Sort(tail)
	out := buf[:n]
	for i, x := range tail {
		if i == 0 || x != tail[i-1] {
			out = append(out, x)
		}
	}
	return out
}
