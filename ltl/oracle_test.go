package ltl

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// An exact oracle, independent of the checker's code: the elementary-set
// automaton of Baier and Katoen (Principles of Model Checking, 5.2) for the
// negated formula, built over formulas in the core syntax true, atom, !,
// &&, X, U; its product with the system made explicit; SCCs by Kosaraju's
// algorithm; fairness by the Emerson–Lei characterisation. It decides the
// same question as Check with none of its parts (GPVW, NNF, Tarjan on the
// fly, lassos), so agreement on valid verdicts is a real cross-check.

// core is a formula in the core syntax: op is OpTrue, OpAtom, OpNot,
// OpAnd, OpNext or OpUntil.
type core struct {
	op   Op
	l, r int // indexes into the closure list
	atom int
}

type closure struct {
	fs    []core
	index map[core]int
}

func (c *closure) mk(x core) int {
	if i, ok := c.index[x]; ok {
		return i
	}
	c.fs = append(c.fs, x)
	c.index[x] = len(c.fs) - 1
	return len(c.fs) - 1
}

func (c *closure) not(i int) int {
	if c.fs[i].op == OpNot {
		return c.fs[i].l
	}
	return c.mk(core{op: OpNot, l: i, r: -1})
}

// conv rewrites f into the core syntax.
func (c *closure) conv(f *Formula) int {
	t := func() int { return c.mk(core{op: OpTrue, l: -1, r: -1}) }
	or := func(a, b int) int { return c.not(c.mk(core{op: OpAnd, l: c.not(a), r: c.not(b)})) }
	switch f.Op {
	case OpTrue:
		return t()
	case OpFalse:
		return c.not(t())
	case OpAtom:
		return c.mk(core{op: OpAtom, l: -1, r: -1, atom: f.Atom})
	case OpNot:
		return c.not(c.conv(f.L))
	case OpAnd:
		return c.mk(core{op: OpAnd, l: c.conv(f.L), r: c.conv(f.R)})
	case OpOr:
		return or(c.conv(f.L), c.conv(f.R))
	case OpImplies:
		return or(c.not(c.conv(f.L)), c.conv(f.R))
	case OpIff:
		a, b := c.conv(f.L), c.conv(f.R)
		return c.mk(core{op: OpAnd, l: or(c.not(a), b), r: or(c.not(b), a)})
	case OpNext:
		return c.mk(core{op: OpNext, l: c.conv(f.L), r: -1})
	case OpUntil:
		return c.mk(core{op: OpUntil, l: c.conv(f.L), r: c.conv(f.R)})
	case OpRelease: // a R b = !(!a U !b)
		return c.not(c.mk(core{op: OpUntil, l: c.not(c.conv(f.L)), r: c.not(c.conv(f.R))}))
	case OpFinally:
		return c.mk(core{op: OpUntil, l: t(), r: c.conv(f.L)})
	default: // OpGlobally: !(true U !a)
		return c.not(c.mk(core{op: OpUntil, l: t(), r: c.not(c.conv(f.L))}))
	}
}

// elementary lists the elementary sets as truth vectors over the closure
// (consistent for !, &&, true, and locally consistent for U).
func (c *closure) elementary() [][]bool {
	n := len(c.fs)
	var pos []int // the formulas that are not negations: their values determine the rest
	for i, x := range c.fs {
		if x.op != OpNot {
			pos = append(pos, i)
		}
	}
	var out [][]bool
	for m := 0; m < 1<<len(pos); m++ {
		v := make([]bool, n)
		for j, i := range pos {
			v[i] = m&(1<<j) != 0
		}
		ok := true
		for i, x := range c.fs { // in creation order, operands come first
			switch x.op {
			case OpNot:
				v[i] = !v[x.l]
			case OpTrue:
				ok = ok && v[i]
			case OpAnd:
				ok = ok && v[i] == (v[x.l] && v[x.r])
			case OpUntil:
				ok = ok && (!v[x.r] || v[i]) && (!v[i] || v[x.r] || v[x.l])
			}
		}
		if ok {
			out = append(out, v)
		}
	}
	return out
}

// runNode is a state of the system's run graph: a system state, and
// whether the termination step was taken.
type runNode struct {
	s     lts.State
	after bool
}

type runEdge struct {
	ev lts.Event
	to runNode
}

func runSteps(c *randomCase, u runNode) []runEdge {
	var out []runEdge
	for _, e := range c.sys.Edges[u.s] {
		out = append(out, runEdge{e.Event, runNode{e.Target, false}})
	}
	if len(out) == 0 {
		if c.sys.Final[u.s] && !u.after {
			return []runEdge{{Terminate, runNode{u.s, true}}}
		}
		return []runEdge{{Deadlock, u}}
	}
	return out
}

func letterOf(c *randomCase, u runNode, ev lts.Event, atom int) bool {
	switch name := c.atoms[atom].Name; name {
	case "p":
		return c.props[0][u.s]
	case "q":
		return c.props[1][u.s]
	case "terminate":
		return ev == Terminate
	default:
		return ev != Deadlock && ev != Terminate && c.sys.Table.Name(ev) == name
	}
}

type pnode struct {
	u runNode
	b int
}

type pedge struct {
	ev lts.Event
	to int
}

// exactViolation decides whether a fair run of c.sys violates c.f.
func exactViolation(c *randomCase, fair Fairness) bool {
	cl := &closure{index: map[core]int{}}
	root := cl.not(cl.conv(c.f.Root))
	els := cl.elementary()
	var untils []int
	for i, x := range cl.fs {
		if x.op == OpUntil {
			untils = append(untils, i)
		}
	}
	// Explicit product, from the initial nodes.
	id := map[pnode]int{}
	var nodes []pnode
	var adj [][]pedge
	var queue []int
	add := func(p pnode) int {
		if i, ok := id[p]; ok {
			return i
		}
		id[p] = len(nodes)
		nodes, adj = append(nodes, p), append(adj, nil)
		queue = append(queue, len(nodes)-1)
		return len(nodes) - 1
	}
	for b, v := range els {
		if v[root] {
			add(pnode{runNode{c.sys.Init, false}, b})
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		p := nodes[i]
		for _, e := range runSteps(c, p.u) {
			if !matches(cl, els[p.b], c, p.u, e.ev) {
				continue
			}
			for b2, v2 := range els {
				if follows(cl, els[p.b], v2) {
					adj[i] = append(adj[i], pedge{e.ev, add(pnode{e.to, b2})})
				}
			}
		}
	}
	acc := func(i int) uint64 {
		var m uint64
		for j, u := range untils {
			if v := els[nodes[i].b]; !v[u] || v[cl.fs[u].r] {
				m |= 1 << j
			}
		}
		return m
	}
	all := make([]bool, len(nodes))
	for i := range all {
		all[i] = true
	}
	for _, comp := range kosaraju(adj, all) {
		if fairAccepting(c, nodes, adj, comp, acc, len(untils), fair) {
			return true
		}
	}
	return false
}

// matches: the atoms of the elementary set are the letter of the step.
func matches(cl *closure, v []bool, c *randomCase, u runNode, ev lts.Event) bool {
	for i, x := range cl.fs {
		if x.op == OpAtom && v[i] != letterOf(c, u, ev, x.atom) {
			return false
		}
	}
	return true
}

// follows: the step from v to w respects X and the expansion law of U.
func follows(cl *closure, v, w []bool) bool {
	for i, x := range cl.fs {
		switch x.op {
		case OpNext:
			if v[i] != w[x.l] {
				return false
			}
		case OpUntil:
			if v[i] != (v[x.r] || v[x.l] && w[i]) {
				return false
			}
		}
	}
	return true
}

// kosaraju returns the SCCs of the graph restricted to in.
func kosaraju(adj [][]pedge, in []bool) [][]int {
	n := len(adj)
	rev := make([][]int, n)
	for u := range adj {
		for _, e := range adj[u] {
			if in[u] && in[e.to] {
				rev[e.to] = append(rev[e.to], u)
			}
		}
	}
	seen := make([]bool, n)
	var order []int
	var dfs1 func(u int)
	dfs1 = func(u int) {
		seen[u] = true
		for _, e := range adj[u] {
			if in[e.to] && !seen[e.to] {
				dfs1(e.to)
			}
		}
		order = append(order, u)
	}
	for u := range n {
		if in[u] && !seen[u] {
			dfs1(u)
		}
	}
	comp := make([]int, n)
	for i := range comp {
		comp[i] = -1
	}
	var out [][]int
	var dfs2 func(u, k int)
	dfs2 = func(u, k int) {
		comp[u] = k
		out[k] = append(out[k], u)
		for _, v := range rev[u] {
			if comp[v] < 0 {
				dfs2(v, k)
			}
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		if u := order[i]; comp[u] < 0 {
			out = append(out, nil)
			dfs2(u, len(out)-1)
		}
	}
	return out
}

// fairAccepting: some fair run stays in comp forever and meets every
// acceptance set (Emerson–Lei: drop the nodes that enable what is never
// taken inside, and look at the SCCs of the rest).
func fairAccepting(c *randomCase, nodes []pnode, adj [][]pedge, comp []int, acc func(int) uint64, numAcc int, fair Fairness) bool {
	in := make([]bool, len(nodes))
	for _, u := range comp {
		in[u] = true
	}
	var m uint64
	inner := false
	type tr struct {
		from lts.State
		ev   lts.Event
		to   lts.State
	}
	takenEv, takenTr := map[lts.Event]bool{}, map[tr]bool{}
	for _, u := range comp {
		m |= acc(u)
		for _, e := range adj[u] {
			if in[e.to] {
				inner = true
				takenEv[e.ev] = true
				takenTr[tr{nodes[u].u.s, e.ev, nodes[e.to].u.s}] = true
			}
		}
	}
	if !inner || m != 1<<numAcc-1 {
		return false
	}
	var keep []int
	for _, u := range comp {
		bad := false
		for _, e := range c.sys.Edges[nodes[u].u.s] {
			if nodes[u].u.after {
				break
			}
			switch fair {
			case Weak:
				always := true
				for _, v := range comp {
					has := false
					for _, e2 := range c.sys.Edges[nodes[v].u.s] {
						has = has || (e2.Event == e.Event && !nodes[v].u.after)
					}
					always = always && has
				}
				bad = bad || (e.Event != lts.Tau && always && !takenEv[e.Event])
			case Strong:
				bad = bad || (e.Event != lts.Tau && !takenEv[e.Event])
			case Global:
				bad = bad || !takenTr[tr{nodes[u].u.s, e.Event, e.Target}]
			}
		}
		if !bad {
			keep = append(keep, u)
		}
	}
	switch {
	case len(keep) == len(comp):
		return true
	case fair == Weak:
		return false
	}
	sub := make([]bool, len(nodes))
	for _, u := range keep {
		sub[u] = true
	}
	for _, s := range kosaraju(adj, sub) {
		if fairAccepting(c, nodes, adj, s, acc, numAcc, fair) {
			return true
		}
	}
	return false
}

// TestExactOracle: the checker's verdicts agree with the exact oracle on
// random systems and formulas, under every fairness.
func TestExactOracle(t *testing.T) {
	n := *randCases
	if testing.Short() {
		n = 500
	}
	r := rand.New(rand.NewPCG(*randSeed, 3))
	count := map[lts.Verdict]int{}
	for i := range n {
		c := genCase(r, 1+i%5)
		fair := Fairness(i % 4)
		res, err := Check(context.Background(), c.sys, c.f, c.atoms, Options{Fairness: fair})
		if err != nil {
			t.Fatal(err)
		}
		if want := exactViolation(c, fair); (res.Verdict == lts.Invalid) != want {
			t.Fatalf("case %d: %s under %s fairness: checker %v, oracle violation %v; edges %v final %v props %v",
				i, c.f, fair, res.Verdict, want, c.sys.Edges, c.sys.Final, c.props)
		}
		count[res.Verdict]++
	}
	t.Logf("%d cases: %v", n, count)
}
