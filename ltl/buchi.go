package ltl

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// Buchi is a generalized Büchi automaton over letters that assign truth
// values to the atoms, with labels on states (GPVW): a run q0 q1 … reads
// the word σ0 σ1 … if each σi satisfies the label of qi (Pos atoms true,
// Neg atoms false) and each qi+1 is a successor of qi. It is accepting if
// for every acceptance set j some state with bit j of Acc is visited
// infinitely often.
type Buchi struct {
	States []BState
	Init   []int
	NumAcc int // acceptance sets, ≤ 64
}

// BState is a state of a Buchi automaton.
type BState struct {
	Pos, Neg []int // atoms that must hold, and must not hold, in the letter read here
	Succ     []int
	Acc      uint64 // the acceptance sets this state belongs to
}

// Limits of the translation: formulas beyond them are refused, not
// translated slowly.
const (
	maxNodes = 50000 // tableau nodes
	maxAcc   = 64    // until subformulas (acceptance sets)
)

// nnf is a hash-consed negation normal form: atoms, negated atoms, true,
// false, and, or, X, U, R.
type nnf struct {
	nodes []nnode
	index map[nnode]int
}

type nnode struct {
	op   Op // OpNot only over an atom
	l, r int
	atom int
}

func (t *nnf) mk(op Op, l, r, atom int) int {
	k := nnode{op, l, r, atom}
	if i, ok := t.index[k]; ok {
		return i
	}
	t.nodes = append(t.nodes, k)
	t.index[k] = len(t.nodes) - 1
	return len(t.nodes) - 1
}

// conv returns the NNF of f, or of !f if neg.
func (t *nnf) conv(f *Formula, neg bool) int {
	switch f.Op {
	case OpTrue, OpFalse:
		if (f.Op == OpTrue) != neg {
			return t.mk(OpTrue, -1, -1, -1)
		}
		return t.mk(OpFalse, -1, -1, -1)
	case OpAtom:
		if neg {
			return t.mk(OpNot, -1, -1, f.Atom)
		}
		return t.mk(OpAtom, -1, -1, f.Atom)
	case OpNot:
		return t.conv(f.L, !neg)
	case OpAnd, OpOr:
		op := f.Op
		if neg {
			op = OpAnd + OpOr - op
		}
		return t.mk(op, t.conv(f.L, neg), t.conv(f.R, neg), -1)
	case OpImplies: // a -> b = !a || b
		if neg {
			return t.mk(OpAnd, t.conv(f.L, false), t.conv(f.R, true), -1)
		}
		return t.mk(OpOr, t.conv(f.L, true), t.conv(f.R, false), -1)
	case OpIff: // (a && b) || (!a && !b); negated: (a && !b) || (!a && b)
		a, na := t.conv(f.L, false), t.conv(f.L, true)
		b, nb := t.conv(f.R, false), t.conv(f.R, true)
		if neg {
			b, nb = nb, b
		}
		return t.mk(OpOr, t.mk(OpAnd, a, b, -1), t.mk(OpAnd, na, nb, -1), -1)
	case OpNext:
		return t.mk(OpNext, t.conv(f.L, neg), -1, -1)
	case OpUntil, OpRelease:
		op := f.Op
		if neg {
			op = OpUntil + OpRelease - op
		}
		return t.mk(op, t.conv(f.L, neg), t.conv(f.R, neg), -1)
	case OpFinally: // true U b; negated: false R !b
		if neg {
			return t.mk(OpRelease, t.mk(OpFalse, -1, -1, -1), t.conv(f.L, true), -1)
		}
		return t.mk(OpUntil, t.mk(OpTrue, -1, -1, -1), t.conv(f.L, false), -1)
	case OpGlobally: // false R a; negated: true U !a
		if neg {
			return t.mk(OpUntil, t.mk(OpTrue, -1, -1, -1), t.conv(f.L, true), -1)
		}
		return t.mk(OpRelease, t.mk(OpFalse, -1, -1, -1), t.conv(f.L, false), -1)
	}
	panic(fmt.Sprintf("ltl: unknown operator %d", f.Op))
}

// bitset is a set of nnf node ids.
type bitset []uint64

func newSet(n int) bitset       { return make(bitset, (n+63)/64) }
func (s bitset) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }
func (s bitset) add(i int)      { s[i/64] |= 1 << (i % 64) }
func (s bitset) clone() bitset  { return slices.Clone(s) }
func (s bitset) key(t bitset) string { // (s, t) as a map key
	b := make([]byte, 0, 16*len(s))
	for _, w := range append(slices.Clone(s), t...) {
		for k := 0; k < 8; k++ {
			b = append(b, byte(w>>(8*k)))
		}
	}
	return string(b)
}
func (s bitset) first() int {
	for i, w := range s {
		if w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

type pendingNode struct {
	incoming  []int // tableau node ids; -1 is the initial pseudo node
	new       bitset
	old, next bitset
}

type tableau struct {
	t     *nnf
	n     int
	old   []bitset
	next  []bitset
	inc   [][]int
	byKey map[string]int
}

// Translate builds a generalized Büchi automaton accepting exactly the
// words that satisfy f (negate before calling to get the automaton of the
// violations), by the tableau construction of Gerth, Peled, Vardi and
// Wolper ("Simple on-the-fly automatic verification of linear temporal
// logic", 1995) on the negation normal form, with one acceptance set per
// until subformula.
func Translate(f *Formula) (*Buchi, error) {
	t := &nnf{index: map[nnode]int{}}
	root := t.conv(f, false)
	n := len(t.nodes)
	tb := &tableau{t: t, n: n, byKey: map[string]int{}}
	work := []pendingNode{{incoming: []int{-1}, new: newSet(n), old: newSet(n), next: newSet(n)}}
	work[0].new.add(root)
	for len(work) > 0 {
		if len(tb.old) > maxNodes {
			return nil, fmt.Errorf("the formula is too large: its automaton exceeds %d states", maxNodes)
		}
		nd := work[len(work)-1]
		work = work[:len(work)-1]
		work = tb.expand(nd, work)
	}
	return tb.automaton()
}

// expand processes one pending node, returning the work list with the
// nodes it splits into.
func (tb *tableau) expand(nd pendingNode, work []pendingNode) []pendingNode {
	t := tb.t
	i := nd.new.first()
	if i < 0 {
		k := nd.old.key(nd.next)
		if id, ok := tb.byKey[k]; ok {
			tb.inc[id] = append(tb.inc[id], nd.incoming...)
			return work
		}
		id := len(tb.old)
		tb.byKey[k] = id
		tb.old, tb.next, tb.inc = append(tb.old, nd.old), append(tb.next, nd.next), append(tb.inc, nd.incoming)
		return append(work, pendingNode{incoming: []int{id}, new: nd.next.clone(), old: newSet(tb.n), next: newSet(tb.n)})
	}
	nd.new[i/64] &^= 1 << (i % 64)
	x := t.nodes[i]
	add := func(p *pendingNode, j int) {
		if !p.old.has(j) {
			p.new.add(j)
		}
	}
	switch x.op {
	case OpFalse:
		return work
	case OpTrue, OpAtom, OpNot:
		if x.op != OpTrue {
			neg := OpAtom + OpNot - x.op
			if j, ok := t.index[nnode{neg, -1, -1, x.atom}]; ok && nd.old.has(j) {
				return work // contradiction
			}
		}
		nd.old.add(i)
		return append(work, nd)
	case OpAnd:
		nd.old.add(i)
		add(&nd, x.l)
		add(&nd, x.r)
		return append(work, nd)
	case OpNext:
		nd.old.add(i)
		nd.next.add(x.l)
		return append(work, nd)
	}
	// Splits: or, until, release.
	a := pendingNode{incoming: slices.Clone(nd.incoming), new: nd.new.clone(), old: nd.old.clone(), next: nd.next.clone()}
	b := nd
	a.old.add(i)
	b.old.add(i)
	switch x.op {
	case OpOr:
		add(&a, x.l)
		add(&b, x.r)
	case OpUntil: // a U b = b || (a && X(a U b))
		add(&a, x.l)
		a.next.add(i)
		add(&b, x.r)
	case OpRelease: // a R b = (a && b) || (b && X(a R b))
		add(&a, x.r)
		a.next.add(i)
		add(&b, x.l)
		add(&b, x.r)
	}
	return append(work, a, b)
}

// automaton reads the finished tableau as a Buchi automaton.
func (tb *tableau) automaton() (*Buchi, error) {
	t := tb.t
	var untils []int
	for i, x := range t.nodes {
		if x.op == OpUntil {
			untils = append(untils, i)
		}
	}
	if len(untils) > maxAcc {
		return nil, errors.New("the formula is too large: more than 64 until/eventually subformulas")
	}
	b := &Buchi{States: make([]BState, len(tb.old)), NumAcc: len(untils)}
	for q := range tb.old {
		st := &b.States[q]
		for i, x := range t.nodes {
			if !tb.old[q].has(i) {
				continue
			}
			switch x.op {
			case OpAtom:
				st.Pos = append(st.Pos, x.atom)
			case OpNot:
				st.Neg = append(st.Neg, x.atom)
			}
		}
		for j, u := range untils {
			if !tb.old[q].has(u) || tb.old[q].has(t.nodes[u].r) {
				st.Acc |= 1 << j
			}
		}
		for _, from := range tb.inc[q] {
			if from < 0 {
				b.Init = append(b.Init, q)
			} else {
				b.States[from].Succ = append(b.States[from].Succ, q)
			}
		}
	}
	for q := range b.States {
		s := b.States[q].Succ
		slices.Sort(s)
		b.States[q].Succ = slices.Compact(s)
	}
	slices.Sort(b.Init)
	b.Init = slices.Compact(b.Init)
	return b, nil
}

// AllAcc is the mask of all acceptance sets.
func (b *Buchi) AllAcc() uint64 {
	if b.NumAcc == 64 {
		return ^uint64(0)
	}
	return 1<<b.NumAcc - 1
}
