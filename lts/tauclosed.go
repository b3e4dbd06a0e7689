package lts

import "sort"

// TauClosed views a System as an Automaton over its visible events: from a
// state s, the event e leads to every state reachable by tau* e tau*. The
// closures are memoised per state, so the view is meant for specifications
// (which are small compared to the product search over them).
//
// It is not safe for concurrent use.
type TauClosed struct {
	Sys     System
	closure map[State][]State
	buf     []Transition
}

// NewTauClosed wraps sys.
func NewTauClosed(sys System) *TauClosed {
	return &TauClosed{Sys: sys, closure: map[State][]State{}}
}

func (a *TauClosed) Events() *EventTable { return a.Sys.Events() }

// Start returns the initial state only: Step and Enabled close under tau
// themselves, so one representative suffices.
func (a *TauClosed) Start(buf []State) []State { return append(buf, a.Sys.Initial()) }

// Closure returns the states reachable from s by tau steps, s included,
// sorted by id. The slice is shared: do not modify it.
func (a *TauClosed) Closure(s State) ([]State, error) {
	if c, ok := a.closure[s]; ok {
		return c, nil
	}
	seen := map[State]bool{s: true}
	stack := []State{s}
	out := []State{s}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var err error
		a.buf, err = a.Sys.Successors(u, a.buf[:0])
		if err != nil {
			return nil, err
		}
		for _, t := range a.buf {
			if t.Event == Tau && !seen[t.Target] {
				seen[t.Target] = true
				stack = append(stack, t.Target)
				out = append(out, t.Target)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
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
		a.buf, err = a.Sys.Successors(u, a.buf[:0])
		if err != nil {
			return buf, err
		}
		for _, t := range a.buf {
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
		a.buf, err = a.Sys.Successors(u, a.buf[:0])
		if err != nil {
			return buf, err
		}
		for _, t := range a.buf {
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
	sort.Slice(tail, func(i, j int) bool { return tail[i] < tail[j] })
	out := buf[:n]
	for i, x := range tail {
		if i == 0 || x != tail[i-1] {
			out = append(out, x)
		}
	}
	return out
}
