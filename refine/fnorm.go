package refine

import (
	"encoding/binary"
	"slices"

	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lts"
)

// Tick stands for successful termination (CSP's ✓) in acceptance sets: a
// terminated state offers it and nothing else.
const Tick = lts.Event(^uint32(0))

// TickName is how Tick is shown.
const TickName = "✓"

// fnode is what the failures checks need to know of a normal-form node:
// a tau-closed set of specification states reached by one trace.
type fnode struct {
	accs [][]lts.Event // minimal acceptances of its stable states, sorted
	div  bool          // some state lies on a tau cycle (FD only)
	term bool          // some state is terminated: the trace may end in ✓
}

// failNorm normalises a specification System on the fly for the failures
// checks: node ids intern sorted tau-closed state sets (id 0 is the empty
// set), steps are memoised per (node, event), and each node carries its
// minimal acceptances and whether it diverges. Unlike the trace
// normaliser it works on the process itself, not on a tau-closed
// automaton, because stability (no tau step) is what acceptances are made
// of.
type failNorm struct {
	spec  lts.System // the process, for re-validation
	sys   lts.System // spec with its successors memoised
	term  lts.Terminator
	cyc   *tauCycles // nil: divergence is not needed (F)
	sets  *intern.Set
	info  []fnode
	memo  map[uint64]uint32
	trs   []lts.Transition
	buf   []lts.State
	stack []lts.State
	key   []byte
	mark  []uint32 // mark[s] == gen: s is in the closure being built
	gen   uint32
}

func newFailNorm(spec lts.System, fd bool) *failNorm {
	// A closure asks for the successors of each of its states, and so do
	// its acceptances and every step out of it: memoised, the process
	// computes each once.
	sys := newCachedSystem(spec, specCacheTransitions)
	n := &failNorm{spec: spec, sys: sys, sets: intern.New(1024), memo: make(map[uint64]uint32, 1024)}
	n.term, _ = spec.(lts.Terminator)
	if fd {
		n.cyc = newTauCycles(sys)
	}
	n.sets.Intern(nil)
	n.info = append(n.info, fnode{})
	return n
}

// specCacheTransitions bounds the memoised specification transitions (8
// bytes each); beyond it the process is asked again.
const specCacheTransitions = 1 << 24

// start is the node of the empty trace.
func (n *failNorm) start() (uint32, error) {
	return n.close(append(n.buf[:0], n.sys.Initial()))
}

// step is the node reached from m by the visible event e (0 if none).
func (n *failNorm) step(m uint32, e lts.Event) (uint32, error) {
	if m == empty {
		return empty, nil
	}
	k := uint64(m)<<32 | uint64(e)
	if t, ok := n.memo[k]; ok {
		return t, nil
	}
	src := n.sets.Get(m)
	n.buf = n.buf[:0]
	for i := 0; i < len(src); i += 4 {
		var err error
		n.trs, err = n.sys.Successors(lts.State(binary.LittleEndian.Uint32(src[i:])), n.trs[:0])
		if err != nil {
			return empty, err
		}
		for _, tr := range n.trs {
			if tr.Event == e {
				n.buf = append(n.buf, tr.Target)
			}
		}
	}
	t, err := n.close(n.buf)
	if err != nil {
		return empty, err
	}
	n.memo[k] = t
	return t, nil
}

// close interns the tau closure of seeds (which it may reorder).
func (n *failNorm) close(seeds []lts.State) (uint32, error) {
	if len(seeds) == 0 {
		return empty, nil
	}
	n.gen++
	set := n.stack[:0]
	for _, s := range seeds {
		if n.visit(s) {
			set = append(set, s)
		}
	}
	for i := 0; i < len(set); i++ {
		var err error
		n.trs, err = n.sys.Successors(set[i], n.trs[:0])
		if err != nil {
			return empty, err
		}
		for _, tr := range n.trs {
			if tr.Event == lts.Tau && n.visit(tr.Target) {
				set = append(set, tr.Target)
			}
		}
	}
	n.stack = set
	slices.Sort(set)
	n.key = n.key[:0]
	for _, s := range set {
		n.key = binary.LittleEndian.AppendUint32(n.key, uint32(s))
	}
	id, added := n.sets.Intern(n.key)
	if added {
		info, err := n.describe(set)
		if err != nil {
			return empty, err
		}
		n.info = append(n.info, info)
	}
	return id, nil
}

// visit marks s as in the current closure; false if it already was.
func (n *failNorm) visit(s lts.State) bool {
	if int(s) >= len(n.mark) {
		n.mark = append(n.mark, make([]uint32, int(s)+1-len(n.mark)+len(n.mark)/2)...)
	}
	if n.mark[s] == n.gen {
		return false
	}
	n.mark[s] = n.gen
	return true
}

// describe computes the minimal acceptances, divergence and termination of
// a new node.
func (n *failNorm) describe(set []lts.State) (fnode, error) {
	var f fnode
	for _, s := range set {
		var err error
		n.trs, err = n.sys.Successors(s, n.trs[:0])
		if err != nil {
			return f, err
		}
		terminated := len(n.trs) == 0 && n.term != nil && n.term.Terminated(s)
		f.term = f.term || terminated
		if n.cyc != nil && !f.div {
			if f.div, err = n.cyc.onCycle(s); err != nil {
				return f, err
			}
		}
		if acc, stable := acceptance(n.trs, terminated, nil); stable {
			f.accs = addMinimal(f.accs, acc)
		}
	}
	return f, nil
}

// acceptance is the sorted set of visible events of trs (with Tick for a
// terminated state), appended to buf, and whether the state is stable (has
// no tau step).
func acceptance(trs []lts.Transition, terminated bool, buf []lts.Event) ([]lts.Event, bool) {
	n := len(buf)
	for _, tr := range trs {
		if tr.Event == lts.Tau {
			return buf[:n], false
		}
		buf = append(buf, tr.Event)
	}
	if terminated {
		buf = append(buf, Tick)
	}
	tail := buf[n:]
	slices.Sort(tail)
	return append(buf[:n], slices.Compact(tail)...), true
}

// addMinimal adds acc to the antichain accs unless a subset of it is there,
// dropping the supersets of acc.
func addMinimal(accs [][]lts.Event, acc []lts.Event) [][]lts.Event {
	for _, a := range accs {
		if subsetOf(a, acc) {
			return accs
		}
	}
	out := accs[:0]
	for _, a := range accs {
		if !subsetOf(acc, a) {
			out = append(out, a)
		}
	}
	return append(out, slices.Clone(acc))
}

// subsetOf reports whether the sorted set a is a subset of the sorted set b.
func subsetOf(a, b []lts.Event) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
		j++
	}
	return true
}

// count is the number of non-empty nodes.
func (n *failNorm) count() int { return n.sets.Len() - 1 }
