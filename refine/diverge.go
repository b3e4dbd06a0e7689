package refine

import (
	"github.com/quasar-verify/quasar/lts"
)

// tauCycles answers whether a state lies on a cycle of tau steps, by
// Tarjan's algorithm over the tau edges of a System, run on demand from
// each state asked about and remembered across calls (states are dense
// ids). A state can diverge (perform tau forever) exactly when a state on a
// tau cycle is tau-reachable from it; the searches ask about every state
// they reach, and the states on that cycle are reached by the same trace,
// so asking about cycles is enough.
type tauCycles struct {
	sys   lts.System
	index []uint32 // 1 + discovery index; 0: not visited
	low   []uint32
	state []uint8 // 0 new, 1 on the stack, 2 done
	cyc   []bool  // done states: lies on a tau cycle
	next  uint32
	stack []lts.State
	calls []tframe
	succs []lts.State // the frames' unvisited tau successors, stacked
	trs   []lts.Transition
}

// tframe is a state of the iterative depth-first search; its tau
// successors left to visit are succs[lo:hi].
type tframe struct {
	s      lts.State
	lo, hi int
	self   bool // s has a tau step to itself
}

func newTauCycles(sys lts.System) *tauCycles { return &tauCycles{sys: sys} }

func (c *tauCycles) grow(s lts.State) {
	if int(s) < len(c.index) {
		return
	}
	n := int(s) + 1 + len(c.index)/2
	c.index = append(c.index, make([]uint32, n-len(c.index))...)
	c.low = append(c.low, make([]uint32, n-len(c.low))...)
	c.state = append(c.state, make([]uint8, n-len(c.state))...)
	c.cyc = append(c.cyc, make([]bool, n-len(c.cyc))...)
}

// onCycle reports whether s lies on a cycle of tau steps.
func (c *tauCycles) onCycle(s lts.State) (bool, error) {
	c.grow(s)
	if c.state[s] == 2 {
		return c.cyc[s], nil
	}
	if err := c.push(s); err != nil {
		return false, err
	}
	for len(c.calls) > 0 {
		f := &c.calls[len(c.calls)-1]
		if f.hi > f.lo {
			f.hi--
			t := c.succs[f.hi]
			c.grow(t)
			switch c.state[t] {
			case 0:
				if err := c.push(t); err != nil {
					return false, err
				}
			case 1:
				c.low[f.s] = min(c.low[f.s], c.index[t])
			}
			continue
		}
		done := *f
		c.calls = c.calls[:len(c.calls)-1]
		c.succs = c.succs[:done.lo]
		if len(c.calls) > 0 {
			p := c.calls[len(c.calls)-1].s
			c.low[p] = min(c.low[p], c.low[done.s])
		}
		if c.low[done.s] == c.index[done.s] {
			c.pop(done.s, done.self)
		}
	}
	return c.cyc[s], nil
}

// push starts visiting s.
func (c *tauCycles) push(s lts.State) error {
	c.next++
	c.index[s], c.low[s], c.state[s] = c.next, c.next, 1
	c.stack = append(c.stack, s)
	var err error
	c.trs, err = c.sys.Successors(s, c.trs[:0])
	if err != nil {
		c.reset()
		return err
	}
	f := tframe{s: s, lo: len(c.succs)}
	for _, tr := range c.trs {
		if tr.Event == lts.Tau {
			c.succs = append(c.succs, tr.Target)
			f.self = f.self || tr.Target == s
		}
	}
	f.hi = len(c.succs)
	c.calls = append(c.calls, f)
	return nil
}

// pop removes the strongly connected component rooted at root.
func (c *tauCycles) pop(root lts.State, self bool) {
	i := len(c.stack) - 1
	for c.stack[i] != root {
		i--
	}
	comp := c.stack[i:]
	cyclic := len(comp) > 1 || self
	for _, t := range comp {
		c.state[t], c.cyc[t] = 2, cyclic
	}
	c.stack = c.stack[:i]
}

// reset drops an interrupted search: the states it left on the stack are
// visited again on the next call.
func (c *tauCycles) reset() {
	for _, t := range c.stack {
		c.state[t], c.index[t], c.low[t] = 0, 0, 0
	}
	c.stack, c.calls, c.succs = c.stack[:0], c.calls[:0], c.succs[:0]
}
