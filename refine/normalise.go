package refine

import (
	"encoding/binary"
	"slices"

	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lts"
)

// empty is the id of the empty macrostate: the specification cannot follow.
const empty uint32 = 0

// normaliser determinises a specification automaton on the fly: a
// macrostate is the sorted set of automaton states reachable by one trace,
// encoded as 4 bytes per state (little endian) and interned, so equal sets
// get equal ids. Steps are memoised per (macrostate, event).
//
// It calls the automaton from one goroutine only (Automaton implementations
// need not be safe for concurrent use).
type normaliser struct {
	spec   lts.Automaton
	macros *intern.Set
	memo   map[uint64]uint32
	sizes  []uint32 // sizes[m] = number of states in macrostate m
	sigs   []uint64 // sigs[m] has bit s%64 set for each state s of m
	buf    []lts.State
	key    []byte

	// pruner, if the spec is one, drops from each macrostate the states
	// that add no trace.
	pruner Pruner
}

// Pruner is implemented by specifications that can tell, in a set of
// their states, states whose traces are traces of another state of the
// set (a simulation: linearize.Wrapper's "a called operation simulates its
// own linearization").
type Pruner interface {
	// Prune removes such states from the sorted, duplicate-free set
	// states (in place) and returns the rest: a set with the same
	// traces, after every event. It must commute with the renamings of
	// pair symmetry (permAutomaton) when the spec has them.
	Prune(states []lts.State) []lts.State
}

func newNormaliser(spec lts.Automaton) *normaliser {
	n := &normaliser{spec: spec, macros: intern.New(1024), memo: make(map[uint64]uint32, 1024)}
	if p, ok := spec.(Pruner); ok {
		n.pruner = p
	}
	n.intern(nil) // id 0: the empty set
	return n
}

// start is the macrostate of the empty trace.
func (n *normaliser) start() uint32 {
	n.buf = n.spec.Start(n.buf[:0])
	return n.intern(n.buf)
}

// step is the macrostate reached from m by the visible event e; empty if
// no state of m can perform e.
func (n *normaliser) step(m uint32, e lts.Event) (uint32, error) {
	if m == empty {
		return empty, nil
	}
	k := uint64(m)<<32 | uint64(e)
	if t, ok := n.memo[k]; ok {
		return t, nil
	}
	src := n.macros.Get(m)
	n.buf = n.buf[:0]
	var err error
	for i := 0; i < len(src); i += 4 {
		n.buf, err = n.spec.Step(lts.State(binary.LittleEndian.Uint32(src[i:])), e, n.buf)
		if err != nil {
			return empty, err
		}
	}
	t := n.intern(n.buf)
	n.memo[k] = t
	return t, nil
}

// intern sorts and deduplicates states (in place) and returns the id of the set.
func (n *normaliser) intern(states []lts.State) uint32 {
	return n.internPruned(states, false)
}

// internPruned is intern; pruned says the states are pruned already (a
// renamed macrostate: Pruner.Prune commutes with renamings).
func (n *normaliser) internPruned(states []lts.State, pruned bool) uint32 {
	slices.Sort(states)
	states = slices.Compact(states)
	if n.pruner != nil && !pruned && len(states) > 1 {
		states = n.pruner.Prune(states)
	}
	n.key = n.key[:0]
	for _, s := range states {
		n.key = binary.LittleEndian.AppendUint32(n.key, uint32(s))
	}
	id, added := n.macros.Intern(n.key)
	if added {
		var sig uint64
		for _, s := range states {
			sig |= 1 << (s & 63)
		}
		n.sizes = append(n.sizes, uint32(len(states)))
		n.sigs = append(n.sigs, sig)
	}
	return id
}

// subset reports whether macrostate a is a subset of macrostate b.
func (n *normaliser) subset(a, b uint32) bool {
	if a == b {
		return true
	}
	// A state of a outside b shows in the signatures most of the time.
	if n.sizes[a] > n.sizes[b] || n.sigs[a]&^n.sigs[b] != 0 {
		return false
	}
	x, y := n.macros.Get(a), n.macros.Get(b)
	j := 0
	for i := 0; i < len(x); i += 4 {
		u := binary.LittleEndian.Uint32(x[i:])
		for {
			if j >= len(y) {
				return false
			}
			v := binary.LittleEndian.Uint32(y[j:])
			j += 4
			if v == u {
				break
			}
			if v > u {
				return false
			}
		}
	}
	return true
}

// count is the number of non-empty macrostates.
func (n *normaliser) count() int { return n.macros.Len() - 1 }
