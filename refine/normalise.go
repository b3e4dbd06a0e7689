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
	spec       lts.Automaton
	red        Reducer // nil: the spec has none
	keep       Keeper  // nil: the spec has none (or no Reducer)
	pf         stepPrefetcher
	cov        Coverer // nil: the spec has none
	tag        Tagged  // nil: the spec is not tagged
	covMemo    map[uint64]bool
	bufA, bufB []lts.State
	macros     *intern.Set
	memo       intern.Memo[uint32]
	sizes      []uint32 // sizes[m] = number of states in macrostate m
	sigs       []uint64 // sigs[m] has bit s%64 set for each state s of m
	buf        []lts.State
	key        []byte
}

func newNormaliser(spec lts.Automaton) *normaliser {
	n := &normaliser{spec: spec, macros: intern.New(1024), memo: intern.NewMemo[uint32](1024)}
	n.red, _ = spec.(Reducer)
	if n.red != nil {
		n.keep, _ = spec.(Keeper)
	}
	if c, ok := spec.(Coverer); ok && c.Covering() {
		n.cov = c
	}
	n.pf, _ = spec.(stepPrefetcher)
	if t, ok := spec.(Tagged); ok && t.Late() {
		n.tag = t
	}
	n.covMemo = map[uint64]bool{}
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
	if t, ok := n.memo.Get(k); ok {
		return t, nil
	}
	src := n.macros.Get(m)
	n.buf = n.buf[:0]
	var err error
	if n.pf != nil && len(src) > 4 && !noPrefetch {
		n.bufA = n.states(m, n.bufA[:0])
		n.pf.PrefetchSteps(n.bufA, e)
	}
	for i := 0; i < len(src); i += 4 {
		n.buf, err = n.spec.Step(lts.State(binary.LittleEndian.Uint32(src[i:])), e, n.buf)
		if err != nil {
			return empty, err
		}
	}
	// Macrostates are reduced (intern): a step that keeps a reduced set
	// reduced needs no Reduce.
	t := n.internReduced(n.buf, n.keep != nil && n.keep.KeepsReduced(e))
	if n.tag != nil && t != empty {
		// A set of tagged states fails when some vector of tags has no
		// state left, not only when it is empty.
		n.bufA = n.states(t, n.bufA[:0])
		if !n.tag.Covered(n.bufA) {
			t = empty
		}
	}
	n.memo.Put(k, t)
	return t, nil
}

// stepPrefetcher is a specification that can ask the CPU to load what
// its steps of states on e will read first (linearize.Wrapper: its memo's
// slots), so that the misses of a macrostate's steps overlap.
type stepPrefetcher interface {
	PrefetchSteps(states []lts.State, e lts.Event)
}

// Tagged is implemented by specifications whose states may carry tags
// (linearize.Wrapper with arguments chosen late): a set of states stands
// for one set per vector of tags, and the search fails when one of those
// is empty. Covered reports whether none is; it must be monotone (a
// superset of a covered set is covered), so that the antichains stay
// sound. Late reports whether tags are in use (if not, the search asks
// only whether a set is empty).
type Tagged interface {
	Covered(states []lts.State) bool
	Late() bool
}

// Reducer is implemented by specifications that can tell, in a set of
// their states, states whose traces are all traces of another state of
// the set (a simulation: relax's window mode, where a state subsumes
// another; linearize.Wrapper, where a called operation simulates its own
// linearization). Reduce takes a sorted set without duplicates, drops (in
// place) some of those states and returns the rest, still sorted: a set
// with the same traces, after every event. Its result must depend on the
// set only (not on the order or history of calls), so that equal sets of
// traces found along different paths tend to become one macrostate, and
// it must commute with the renamings of pair symmetry (permAutomaton) when
// the spec has them: a renamed macrostate is not reduced again.
type Reducer interface {
	Reduce(states []lts.State) []lts.State
}

// Keeper is implemented by Reducers that know events whose step keeps a
// set reduced: KeepsReduced(e) true promises that for every set M that
// Reduce returns (a set Reduce leaves as it is), the union of the steps
// of M's states on e is again a set Reduce leaves as it is. The search
// then interns that union without calling Reduce (linearize.Wrapper: an
// invocation changes only the invoking thread, idle in every state, and
// keeps every relation Reduce tests).
type Keeper interface {
	KeepsReduced(e lts.Event) bool
}

// Coverer is implemented by specifications that can tell, for some pairs
// of sets of their states, that every trace accepted from the first is
// accepted from the second (relax's window mode: every state of a is in b
// or subsumed by a state of b). Covers(a, b) true promises it; a and b are
// sorted. The search then treats a pair (s, a) as a pair (s, M') with M' a
// subset of b would be (doc.go, antichains): the relation must be
// transitive.
type Coverer interface {
	Covers(a, b []lts.State) bool
	// Covering reports whether Covers can say more than "a is a subset of
	// b" (if not, the search does not call it).
	Covering() bool
}

// covered reports whether macrostate a is covered by macrostate b
// (Coverer), memoised.
func (n *normaliser) covered(a, b uint32) bool {
	if a == b {
		return true
	}
	k := uint64(a)<<32 | uint64(b)
	if v, ok := n.covMemo[k]; ok {
		return v
	}
	n.bufA, n.bufB = n.states(a, n.bufA[:0]), n.states(b, n.bufB[:0])
	v := n.cov.Covers(n.bufA, n.bufB)
	n.covMemo[k] = v
	return v
}

// states appends the states of macrostate m to buf.
func (n *normaliser) states(m uint32, buf []lts.State) []lts.State {
	src := n.macros.Get(m)
	for i := 0; i < len(src); i += 4 {
		buf = append(buf, lts.State(binary.LittleEndian.Uint32(src[i:])))
	}
	return buf
}

// intern sorts and deduplicates states (in place), reduces them (Reducer)
// and returns the id of the set.
func (n *normaliser) intern(states []lts.State) uint32 {
	return n.internReduced(states, false)
}

// internReduced is intern; reduced says the states are reduced already (a
// renamed macrostate: Reducer.Reduce commutes with renamings).
func (n *normaliser) internReduced(states []lts.State, reduced bool) uint32 {
	slices.Sort(states)
	states = slices.Compact(states)
	if n.red != nil && !reduced && len(states) > 1 {
		states = n.red.Reduce(states)
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
