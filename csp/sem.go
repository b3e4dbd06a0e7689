package csp

import (
	"slices"
	"sync/atomic"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// This file is the operational semantics: the transitions of a term. For a
// term without a parallel composition at an active position and without a
// reference whose arguments read variables ("simple"), the transitions are
// precomputed once as templates: guards, a label (possibly with data to
// evaluate), an event block, and the target term. At run time a template
// is instantiated against the variables: guards evaluated, the label
// interned. Other terms ("complex") are expanded at run time by the same
// rules, with the parallel compositions combined on the spot.

type labKind uint8

const (
	labTau labKind = iota
	labEv          // a fixed visible event
	labDyn         // a visible event whose data read variables
	labOut         // channel output
	labIn          // channel input
)

type cond struct {
	f   evalFn
	env []int64
	// key, if set, says what f computes (a comparison of shapes): the
	// edges of a template set whose first conds have equal keys share
	// its evaluation in a state (tmplSet.first).
	key *condKey
}

type blockRef struct {
	f   execFn
	env []int64
}

// wrap is a context applied to a target that is known only at run time
// (after a channel input binds its variables).
type wrap struct {
	kind uint8
	t    uint32
	set  *evset
	i    int
	kids []uint32
	op   uint8
	alph []*evset
}

const (
	wSeq uint8 = iota
	wHide
	wAtomic
	wIntr
	wPar
)

// Buffer operations of an instantiated channel edge.
const (
	bopNone int8 = iota
	bopPush
	bopPop
)

// edge is a transition template or (done) an instantiated transition.
type edge struct {
	kind   labKind
	ev     lts.Event
	tmpl   *evTmpl
	node   *pnode  // channel node (labOut, labIn)
	env    []int64 // environment of the label's expressions
	hides  []*evset
	conds  []cond
	block  blockRef
	target uint32
	bound  bool // labIn: target built from the received values
	wraps  []wrap
	atomic bool
	sync   bool // a visible event without a block: may synchronise
	// patch, if not nil, is what block does: constants stored in fixed
	// slots (Program.constPatch).
	patch []slotVal

	// Instantiated data.
	done bool
	bop  int8
	ch   int32 // channel instance (flattened index)
	nv   int8
	vals [maxMsg]int64
	sub  []edge  // a joint transition of a nested parallel: its parts
	who  int32   // component (top level) or child (nested) index
	benv []int64 // environment with a channel input's variables bound
}

// templates returns the memoised templates of a simple term, or errComplex.
func (p *Program) templates(t uint32) ([]edge, error) { return p.templatesOn(t, nil) }

// templatesOn is templates with the chain of terms whose templates are
// being computed (nil: none yet). A term that reaches itself there has
// no event on the way, only guards whose values the templates do not
// know (a guard known false cuts the edge, one known true is no guard):
// PAT accepts such a recursion when the guards exclude each other, since
// it unfolds a guarded process only when its guard holds. Such a term,
// and one whose chain grows too deep, is complex: its transitions are
// computed at run time (build with a machine), where the guards are
// decided before the guarded process is unfolded.
func (p *Program) templatesOn(t uint32, path *[]uint32) ([]edge, error) {
	ts, err := p.tmplSetOn(t, path)
	if err != nil {
		return nil, err
	}
	return ts.es, nil
}

// tmplSet returns the memoised template set of a simple term, building it
// if it is not built yet (or was dropped by heatBlocks), or errComplex.
// Whatever was built before, the answer is the same: its edges, their
// events and order, plain and local are functions of the term (heatBlocks
// changes only how blocks run), so a caller that reads them (LocalSteps,
// whoMoved) gives a state the same answer whatever the order of
// exploration. It returns the set it built or found, never reloads it:
// heatBlocks may drop it again meanwhile (another worker passing the
// switch), and a reader keeps the set it has.
func (p *Program) tmplSet(t uint32) (*tmplSet, error) {
	if ts := p.term(t).edges.Load(); ts != nil {
		return ts, nil
	}
	return p.tmplSetOn(t, nil)
}

// tmplSetOn is tmplSet with the chain of terms being built (templatesOn).
func (p *Program) tmplSetOn(t uint32, path *[]uint32) (*tmplSet, error) {
	tm := p.term(t)
	if ts := tm.edges.Load(); ts != nil {
		return ts, nil
	}
	if tm.cplx.Load() == 2 {
		return nil, errComplex
	}
	if path == nil {
		path = new([]uint32)
	}
	if len(*path) > maxUnfold || slices.Contains(*path, t) {
		return nil, errComplex
	}
	*path = append(*path, t)
	es, err := p.build(t, nil, path)
	*path = (*path)[:len(*path)-1]
	if err == errComplex {
		tm.cplx.Store(2)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	tm.cplx.Store(1)
	plain := plainEdges(es)
	ts := &tmplSet{es: es, plain: plain, local: plain && localEdges(es)}
	if plain {
		ts.first, ts.groups = firstGroups(es)
		ts.fast = fastEdges(es)
		ts.codes = make([]atomic.Uint64, len(es))
	}
	tm.edges.Store(ts)
	return ts, nil
}

// firstGroups groups the edges whose first conds have equal keys (two or
// more edges to a group): first[j] is edge j's group, -1 none; nil if no
// group.
func firstGroups(es []edge) ([]int8, int) {
	var first []int8
	groups := 0
	for j := range es {
		k := firstKey(&es[j])
		if k == nil {
			continue
		}
		for i := 0; i < j; i++ {
			if ki := firstKey(&es[i]); ki != nil && *ki == *k {
				if first == nil {
					first = make([]int8, len(es))
					for x := range first {
						first[x] = -1
					}
				}
				if first[i] < 0 {
					if groups == 127 {
						return first, groups
					}
					first[i] = int8(groups)
					groups++
				}
				first[j] = first[i]
				break
			}
		}
	}
	return first, groups
}

func firstKey(e *edge) *condKey {
	if len(e.conds) == 0 {
		return nil
	}
	return e.conds[0].key
}

// tmplSet is the memoised templates of a term. plain reports that every
// template is a prefix-like step (tau, a fixed event, or an event whose
// data read variables), not atomic and not a channel operation: the
// successors of a state whose components all have plain templates are
// generated by Proc.expandPlain without the general combination.
type tmplSet struct {
	es    []edge
	plain bool
	local bool // plain, and every template is local (localEdge)
	// first[j] is the group of edge j's first cond among edges whose
	// first conds compute the same comparison (firstGroups), or -1; nil
	// when no two do. expandPlain evaluates such a cond once per state.
	first  []int8
	groups int
	// fast[j] is edge j as bytes (fastOf), or nil; fast is nil when no
	// edge is. It is kept here, not in the edges: es may be another
	// term's memoised slice (a guard decided by the parameters returns
	// its body's edges as they are), which other workers read meanwhile.
	fast []*fastEdge
	// codes[j] caches the code of edge j's target (codes.cachedCode);
	// plain sets only.
	codes []atomic.Uint64
}

// localEdge reports whether a plain template is local: unguarded, without
// event block, its label fixed. In an interleaving without atomic steps
// no other component can enable, disable or alter it, and it changes only
// its component's control (lts.Move.Local).
func localEdge(e *edge) bool {
	return len(e.conds) == 0 && e.block.f == nil && e.kind != labDyn
}

func localEdges(es []edge) bool {
	for i := range es {
		if !localEdge(&es[i]) {
			return false
		}
	}
	return true
}

func plainEdges(es []edge) bool {
	for i := range es {
		e := &es[i]
		if e.done || e.atomic || e.sub != nil || e.bop != bopNone || e.bound || e.benv != nil ||
			(e.kind != labTau && e.kind != labEv && e.kind != labDyn) {
			return false
		}
	}
	return true
}

// build computes the transitions of t: templates when m is nil (and
// errComplex if that is impossible), or run-time edges when m is given.
// path is the chain of terms being expanded (templatesOn); at run time a
// term met again on it is a recursion without an event whose guards all
// hold in this state: PAT's unfolding would not end either, so it is an
// error of the model.
func (p *Program) build(t uint32, m *machine, path *[]uint32) ([]edge, error) {
	tm := p.term(t)
	if path == nil {
		path = new([]uint32)
	}
	if m != nil {
		if err := p.enter(t, m, path); err != nil {
			return nil, err
		}
		defer func() { *path = (*path)[:len(*path)-1] }()
	}
	kid := func(k uint32) ([]edge, error) { return p.kidEdges(k, m, path) }
	switch tm.kind {
	case kStop, kSkip:
		return nil, nil
	case kNode:
		return p.buildNode(tm, m, path)
	case kSeq:
		es, err := kid(tm.kids[0])
		if err != nil {
			return nil, err
		}
		r := tm.kids[1]
		return p.mapTargets(es, wrap{kind: wSeq, t: r})
	case kChoice:
		return p.buildChoice(tm, kid)
	case kHide:
		return p.buildHide(tm, kid)
	case kAtomic:
		es, err := kid(tm.kids[0])
		if err != nil {
			return nil, err
		}
		out := make([]edge, len(es))
		for i, e := range es {
			e.atomic = true
			out[i] = e
		}
		return p.mapTargets(out, wrap{kind: wAtomic})
	case kIntr:
		return p.buildIntr(tm, kid)
	case kPar:
		if m == nil {
			return nil, errComplex
		}
		return p.buildPar(tm, m, path)
	}
	return nil, nil
}

// buildChoice: the edges of [], <> and the general choice.
func (p *Program) buildChoice(tm *term, kid func(uint32) ([]edge, error)) ([]edge, error) {
	var out []edge
	for i, k := range tm.kids {
		if k == termSkip && tm.op != uint8(lang.InternalChoice) {
			// Skip as a branch: a silent step to termination.
			out = append(out, edge{kind: labTau, target: termSkip})
			continue
		}
		switch lang.ChoiceOp(tm.op) {
		case lang.InternalChoice:
			out = append(out, edge{kind: labTau, target: k})
		case lang.GeneralChoice:
			es, err := kid(k)
			if err != nil {
				return nil, err
			}
			out = append(out, es...)
		case lang.ExternalChoice:
			es, err := kid(k)
			if err != nil {
				return nil, err
			}
			for _, e := range es {
				if e.kind == labTau {
					kids := append([]uint32(nil), tm.kids...)
					kids[i] = e.target
					e.target = p.choice(tm.op, kids)
				}
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// buildHide: the edges of P \\ set, hidden events made silent.
func (p *Program) buildHide(tm *term, kid func(uint32) ([]edge, error)) ([]edge, error) {
	es, err := kid(tm.kids[0])
	if err != nil {
		return nil, err
	}
	out := make([]edge, 0, len(es))
	for _, e := range es {
		switch e.kind {
		case labEv:
			if p.has(tm.set, e.ev) {
				e.kind, e.ev, e.sync = labTau, lts.Tau, false
			}
		case labDyn, labOut, labIn:
			e.hides = append(append([]*evset(nil), e.hides...), tm.set)
		}
		out = append(out, e)
	}
	return p.mapTargets(out, wrap{kind: wHide, set: tm.set})
}

// buildIntr: the edges of P interrupt Q.
func (p *Program) buildIntr(tm *term, kid func(uint32) ([]edge, error)) ([]edge, error) {
	l, r := tm.kids[0], tm.kids[1]
	les, err := kid(l)
	if err != nil {
		return nil, err
	}
	out, err := p.mapTargets(les, wrap{kind: wIntr, t: r})
	if err != nil {
		return nil, err
	}
	res, err := kid(r)
	if err != nil {
		return nil, err
	}
	for _, e := range res {
		if e.kind == labTau {
			// A silent step of the interrupting process does not
			// interrupt yet.
			e.target = p.intr(l, e.target)
		}
		out = append(out, e)
	}
	return out, nil
}

// mapTargets applies a context to every target.
func (p *Program) mapTargets(es []edge, w wrap) ([]edge, error) {
	out := make([]edge, len(es))
	for i, e := range es {
		if e.bound {
			e.wraps = append(append([]wrap(nil), e.wraps...), w)
		} else {
			t, err := p.applyWrap(e.target, w)
			if err != nil {
				return nil, err
			}
			e.target = t
		}
		out[i] = e
	}
	return out, nil
}

func (p *Program) applyWrap(t uint32, w wrap) (uint32, error) {
	switch w.kind {
	case wSeq:
		return p.seq(t, w.t)
	case wHide:
		return p.hideT(t, w.set), nil
	case wAtomic:
		return p.atomicT(t), nil
	case wIntr:
		return p.intr(t, w.t), nil
	case wPar:
		kids := append([]uint32(nil), w.kids...)
		kids[w.i] = t
		return p.par(w.op, kids, w.alph), nil
	}
	return t, nil
}

// buildNode computes the transitions of a node term: one method per kind
// of node with more than one edge to build.
func (p *Program) buildNode(tm *term, m *machine, path *[]uint32) ([]edge, error) {
	n, env := tm.node, tm.env
	sp := p.specialize(n, env)
	switch n.kind {
	case pPrefix:
		return p.nodePrefix(n, env, sp)
	case pChanOut:
		e := edge{kind: labOut, node: n, env: env}
		if n.block != nil {
			e.block = blockRef{f: n.block, env: env}
		}
		t, err := p.norm(n.kids[0], env, 0)
		if err != nil {
			return nil, err
		}
		e.target = t
		return []edge{e}, nil
	case pChanIn:
		e := edge{kind: labIn, node: n, env: env, bound: true}
		if n.block != nil {
			e.block = blockRef{f: n.block}
		}
		return []edge{e}, nil
	case pGuard:
		return p.nodeGuard(n, env, sp, m, path)
	case pIf:
		return p.nodeIf(n, env, sp, m, path)
	case pCase:
		return p.nodeCase(n, env, sp)
	case pRef:
		return p.nodeRef(n, env, m, path)
	}
	return nil, nil
}

// nodePrefix: e{block} -> P is one edge, static or with a dynamic event.
func (p *Program) nodePrefix(n *pnode, env []int64, sp *spec) ([]edge, error) {
	e := edge{kind: labTau, env: env}
	if sp.ev != nil {
		if sp.ev.dyn {
			e.kind, e.tmpl = labDyn, sp.ev
		} else {
			ev, err := p.staticEvent(sp.ev, env)
			if err != nil {
				return nil, err
			}
			e.kind, e.ev = labEv, ev
		}
	}
	if sp.block != nil {
		e.block = blockRef{f: sp.block, env: env}
		e.patch = sp.patch
	}
	e.sync = e.kind != labTau && n.block == nil
	t, err := p.norm(n.kids[0], env, 0)
	if err != nil {
		return nil, err
	}
	e.target = t
	return []edge{e}, nil
}

// nodeGuard: [c] P has the edges of P, guarded by c.
func (p *Program) nodeGuard(n *pnode, env []int64, sp *spec, m *machine, path *[]uint32) ([]edge, error) {
	if m != nil && sp.cond.dyn {
		// At run time the guard is decided first, and the guarded
		// process is unfolded only if it holds (as PAT does).
		if ok, err := p.holds(sp.cond, env, m); err != nil || !ok {
			return nil, err
		}
		sp.cond = constExpr(1)
	}
	if !sp.cond.dyn {
		// A guard of parameters and constants is decided before P is
		// unfolded, as PAT decides it first: P's first steps may be
		// undefined where the guard fails ([i < N] a.(10 / (N - i)) -> ...).
		mm := machine{env: env}
		v := sp.cond.f(&mm)
		if mm.err != nil {
			return nil, mm.err
		}
		if v == 0 {
			return nil, nil
		}
	}
	body, err := p.norm(n.kids[0], env, 0)
	if err != nil {
		return nil, err
	}
	var es []edge
	if body == termSkip {
		// [c] Skip terminates by a silent step guarded by c (PAT's Skip
		// terminates by a step, which the guard enables), as ifa's Skip
		// branch does: without it, [i == N] Skip would be a deadlock.
		es = []edge{{kind: labTau, target: termSkip}}
	} else if es, err = p.kidEdges(body, m, path); err != nil {
		return nil, err
	}
	return p.guarded(es, sp.cond, env, false)
}

// nodeIf: if, ifa and ifb (docs/semantics.md).
func (p *Program) nodeIf(n *pnode, env []int64, sp *spec, m *machine, path *[]uint32) ([]edge, error) {
	th, err := p.norm(n.kids[0], env, 0)
	if err != nil {
		return nil, err
	}
	el, err := p.norm(n.kids[1], env, 0)
	if err != nil {
		return nil, err
	}
	switch lang.IfKind(n.op) {
	case lang.If:
		a := []edge{{kind: labTau, target: th}}
		b := []edge{{kind: labTau, target: el}}
		ga, err := p.guarded(a, sp.cond, env, false)
		if err != nil {
			return nil, err
		}
		gb, err := p.guarded(b, sp.cond, env, true)
		if err != nil {
			return nil, err
		}
		return append(ga, gb...), nil
	case lang.IfA:
		var out []edge
		taken := -1 // at run time, the branch the condition takes
		if m != nil && sp.cond.dyn {
			ok, err := p.holds(sp.cond, env, m)
			if err != nil {
				return nil, err
			}
			taken = boolIndex(!ok)
			sp.cond = constExpr(1 - int64(taken))
		}
		for i, br := range []uint32{th, el} {
			if taken >= 0 && i != taken {
				continue
			}
			var es []edge
			if br == termSkip {
				// A branch that is Skip terminates by a silent step.
				es = []edge{{kind: labTau, target: termSkip}}
			} else if es, err = p.kidEdges(br, m, path); err != nil {
				return nil, err
			}
			g, err := p.guarded(es, sp.cond, env, i == 1)
			if err != nil {
				return nil, err
			}
			out = append(out, g...)
		}
		return out, nil
	default: // IfB: waits for the condition, then behaves as Then
		if m != nil && sp.cond.dyn {
			if ok, err := p.holds(sp.cond, env, m); err != nil || !ok {
				return nil, err
			}
			sp.cond = constExpr(1)
		}
		var es []edge
		if th == termSkip {
			es = []edge{{kind: labTau, target: termSkip}}
		} else if es, err = p.kidEdges(th, m, path); err != nil {
			return nil, err
		}
		return p.guarded(es, sp.cond, env, false)
	}
}

// nodeCase: one silent edge per arm, taken when its condition is the first
// that holds; without a default, termination when none holds.
func (p *Program) nodeCase(n *pnode, env []int64, sp *spec) ([]edge, error) {
	var out []edge
	for i := range n.kids {
		t, err := p.norm(n.kids[i], env, 0)
		if err != nil {
			return nil, err
		}
		var earlier []evalFn
		for j := 0; j < i && j < len(sp.conds); j++ {
			earlier = append(earlier, sp.conds[j].f)
		}
		var f evalFn
		if i < len(sp.conds) {
			c := sp.conds[i].f
			f = func(m *machine) int64 {
				for _, g := range earlier {
					if g(m) != 0 {
						return 0
					}
				}
				return boolInt(c(m) != 0)
			}
		} else {
			f = func(m *machine) int64 {
				for _, g := range earlier {
					if g(m) != 0 {
						return 0
					}
				}
				return 1
			}
		}
		out = append(out, edge{kind: labTau, target: t, conds: []cond{{f: f, env: env}}})
	}
	if n.op == 0 {
		// No default: when no arm holds, the case terminates.
		var all []evalFn
		for _, c := range sp.conds {
			all = append(all, c.f)
		}
		f := func(m *machine) int64 {
			for _, g := range all {
				if g(m) != 0 {
					return 0
				}
			}
			return 1
		}
		out = append(out, edge{kind: labTau, target: termSkip, conds: []cond{{f: f, env: env}}})
	}
	return out, nil
}

// nodeRef unfolds a process call at run time.
func (p *Program) nodeRef(n *pnode, env []int64, m *machine, path *[]uint32) ([]edge, error) {
	// A reference whose arguments read variables is unfolded with
	// the variables of the moment it moves (as PAT does).
	if m == nil {
		return nil, errComplex
	}
	m.depth++
	defer func() { m.depth-- }()
	if m.depth > maxUnfold {
		return nil, &lts.RuntimeError{Pos: n.src.Pos().String(), Msg: "unguarded recursion (a process reaches itself without an event)"}
	}
	ne, err := p.refEnv(n, env, m)
	if err != nil {
		return nil, err
	}
	t, err := p.norm(n.ref.body, ne, 0)
	if err != nil {
		return nil, err
	}
	return p.kidEdges(t, m, path)
}

func (p *Program) kidEdges(t uint32, m *machine, path *[]uint32) ([]edge, error) {
	es, err := p.templatesOn(t, path)
	if err == errComplex && m != nil {
		return p.build(t, m, path)
	}
	return es, err
}

// enter pushes t on the run-time unfolding chain, or reports the
// recursion without an event that meeting it again (or a chain too deep)
// means.
func (p *Program) enter(t uint32, m *machine, path *[]uint32) error {
	if i := slices.Index(*path, t); i >= 0 || len(*path) > maxUnfold {
		if i < 0 {
			i = 0
		}
		pos := ""
		for _, u := range (*path)[i:] {
			if n := p.term(u).node; n != nil {
				pos = n.src.Pos().String()
				break
			}
		}
		return &lts.RuntimeError{Pos: pos, Msg: "unguarded recursion: the process reaches itself without an event, and every guard on the way holds here"}
	}
	*path = append(*path, t)
	return nil
}

// holds decides condition c with environment env in the state of m.
func (p *Program) holds(c cexpr, env []int64, m *machine) (bool, error) {
	mm := machine{vars: m.vars, env: env}
	v := c.f(&mm)
	if mm.err != nil {
		return false, mm.err
	}
	return v != 0, nil
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// guarded adds a condition (negated if neg) to every edge; a condition that
// depends only on the environment is decided now.
func (p *Program) guarded(es []edge, c cexpr, env []int64, neg bool) ([]edge, error) {
	f := c.f
	if neg {
		g := f
		f = func(m *machine) int64 { return boolInt(g(m) == 0) }
	}
	if !c.dyn {
		mm := machine{env: env}
		v := f(&mm)
		if mm.err != nil {
			return nil, mm.err
		}
		if v == 0 {
			return nil, nil
		}
		return es, nil
	}
	// A guard that is a comparison, or an && chain that starts with one,
	// keeps that comparison as a cond of its own, with its key.
	head := []cond{{f: f, env: env}}
	switch {
	case neg:
	case c.key != nil:
		head[0].key = c.key
	case c.conj != nil && c.first != nil:
		rest := c.conj[1:]
		rf := rest[0]
		if len(rest) > 1 {
			rf = andChain(rest)
		}
		head = []cond{{f: c.conj[0], env: env, key: c.first}, {f: rf, env: env}}
	}
	out := make([]edge, len(es))
	for i, e := range es {
		e.conds = append(append([]cond(nil), head...), e.conds...)
		out[i] = e
	}
	return out, nil
}

func (p *Program) staticEvent(t *evTmpl, env []int64) (lts.Event, error) {
	m := machine{env: env}
	var data [maxVals + 2]int64
	ds := data[:0]
	for _, d := range t.data {
		ds = append(ds, d.f(&m))
	}
	if m.err != nil {
		return 0, m.err
	}
	return p.event(t.base, ds), nil
}

// ---------------------------------------------------------------------------
// Instantiation

// move is an instantiated transition of one component: the edge it comes
// from (a memoised template, a run-time edge, or a materialised channel
// edge in combiner.ext) and its evaluated label. Moves are small so that
// instantiating templates copies little.
type move struct {
	e      *edge // nil when x >= 0
	x      int32 // index into combiner.ext, or -1
	ev     lts.Event
	who    int32
	kind   labKind
	sync   bool
	atomic bool
}

// edgeOf returns the edge of a move.
func (c *combiner) edgeOf(mv *move) *edge {
	if mv.x >= 0 {
		return &c.ext[mv.x]
	}
	return mv.e
}

// dynEvent computes the event of a template with data, and whether one of
// the hidings the edge passed through hides it (then m.err may be set).
func (p *Program) dynEvent(e *edge, m *machine) (ev lts.Event, hidden bool) {
	m.env = e.env
	var data [maxVals + 2]int64
	ds := data[:0]
	for _, d := range e.tmpl.data {
		ds = append(ds, d.f(m))
	}
	if m.err != nil {
		return 0, false
	}
	ev = m.event(p, e.tmpl.base, ds)
	for _, h := range e.hides {
		if p.has(h, ev) {
			return ev, true
		}
	}
	return ev, false
}

// guardsHold evaluates an edge's guards in order, in m's state: false at
// the first that does not hold or fails (then m.err is set).
func (m *machine) guardsHold(conds []cond) bool {
	for k := range conds {
		cd := &conds[k]
		m.env = cd.env
		if cd.f(m) == 0 || m.err != nil {
			return false
		}
	}
	return true
}

// inst appends to c.flat the instantiation of template e in the state m
// (nothing if a guard is false or a channel is not ready).
func (p *Program) inst(e *edge, m *machine, c *combiner, who int32) error {
	if e.done {
		c.flat = append(c.flat, move{e: e, x: -1, ev: e.ev, who: who, kind: e.kind, sync: e.sync, atomic: e.atomic})
		return nil
	}
	if !m.guardsHold(e.conds) {
		if m.err != nil {
			return m.err
		}
		return nil
	}
	switch e.kind {
	case labTau, labEv:
		c.flat = append(c.flat, move{e: e, x: -1, ev: e.ev, who: who, kind: e.kind, sync: e.sync, atomic: e.atomic})
		return nil
	case labDyn:
		ev, hidden := p.dynEvent(e, m)
		if m.err != nil {
			return m.err
		}
		mv := move{e: e, x: -1, ev: ev, who: who, kind: labEv, sync: e.sync, atomic: e.atomic}
		if hidden {
			mv.kind, mv.ev, mv.sync = labTau, lts.Tau, false
		}
		c.flat = append(c.flat, mv)
		return nil
	case labOut, labIn:
		n := len(c.ext)
		var err error
		c.ext, err = p.instChan(e, m, c.ext)
		if err != nil || len(c.ext) == n {
			return err
		}
		o := &c.ext[n]
		o.who = who
		c.flat = append(c.flat, move{x: int32(n), ev: o.ev, who: who, kind: o.kind, sync: false, atomic: o.atomic})
	}
	return nil
}

// chanInstance evaluates the channel-array indices.
func (p *Program) chanInstance(n *pnode, m *machine) int32 {
	var idx int64
	for i, c := range n.chIdx {
		v := c.f(m)
		if v < 0 || v >= int64(n.ch.dims[i]) {
			m.fail(n.src.Pos(), "index %d out of range [0, %d) of channel %s", v, n.ch.dims[i], n.ch.name)
			return 0
		}
		idx = idx*int64(n.ch.dims[i]) + v
	}
	return int32(idx)
}

func (p *Program) chanIdx(n *pnode, ch int32) []int64 {
	if len(n.ch.dims) == 0 {
		return nil
	}
	out := make([]int64, len(n.ch.dims))
	x := int64(ch)
	for i := len(n.ch.dims) - 1; i >= 0; i-- {
		out[i] = x % int64(n.ch.dims[i])
		x /= int64(n.ch.dims[i])
	}
	return out
}

func (p *Program) instChan(e *edge, m *machine, out []edge) ([]edge, error) {
	n := e.node
	cd := n.ch
	m.env = e.env
	ch := p.chanInstance(n, m)
	if m.err != nil {
		return out, m.err
	}
	o := *e
	o.conds, o.done, o.ch = nil, true, ch
	if e.kind == labOut {
		o.nv = int8(len(n.vals))
		for i, v := range n.vals {
			o.vals[i] = v.f(m)
		}
		if m.err != nil {
			return out, m.err
		}
		if cd.size == 0 {
			return append(out, o), nil // a half, paired by a parallel
		}
		base := cd.base + int(ch)*cd.instSlots()
		if m.vars[base] >= int64(cd.size) {
			return out, nil // full
		}
		if len(n.vals) > cd.arity {
			return out, &lts.RuntimeError{Pos: n.src.Pos().String(), Msg: "too many values for channel " + cd.name}
		}
		o.bop = bopPush
		o.kind, o.ev = labEv, p.chanEvent(cd.name+"!", p.chanIdx(n, ch), o.vals[:o.nv])
		p.applyHides(&o)
		return append(out, o), nil
	}
	if cd.size == 0 {
		return append(out, o), nil
	}
	base := cd.base + int(ch)*cd.instSlots()
	if m.vars[base] == 0 {
		return out, nil // empty
	}
	o.nv = int8(len(n.vals))
	for i := range n.vals {
		o.vals[i] = m.vars[base+1+i]
	}
	ne, ok, err := p.receive(n, e.env, o.vals[:o.nv], m)
	if err != nil || !ok {
		return out, err
	}
	t, err := p.bindTarget(n, ne, e.wraps)
	if err != nil {
		return out, err
	}
	o.target, o.bound, o.benv = t, false, ne
	o.bop = bopPop
	o.kind, o.ev = labEv, p.chanEvent(cd.name+"?", p.chanIdx(n, ch), o.vals[:o.nv])
	p.applyHides(&o)
	return append(out, o), nil
}

func (p *Program) applyHides(o *edge) {
	for _, h := range o.hides {
		if p.has(h, o.ev) {
			o.kind, o.ev = labTau, lts.Tau
			return
		}
	}
}

func (p *Program) chanEvent(base string, idx []int64, vals []int64) lts.Event {
	b := p.baseID(base)
	return p.event(b, append(append([]int64(nil), idx...), vals...))
}

// receive checks a received message against an input's constants and guard
// and returns the environment with the input variables bound.
func (p *Program) receive(n *pnode, env []int64, vals []int64, m *machine) ([]int64, bool, error) {
	if len(vals) != len(n.slots) {
		return nil, false, nil
	}
	ne := make([]int64, max(len(env), n.def.nslots))
	copy(ne, env)
	m.env = env
	for i, s := range n.slots {
		if s >= 0 {
			ne[s] = vals[i]
			continue
		}
		if n.vals[i].f(m) != vals[i] {
			return nil, false, m.errOrNil()
		}
	}
	if n.guard != nil {
		m.env = ne
		if n.guard.f(m) == 0 {
			return nil, false, m.errOrNil()
		}
	}
	return ne, true, m.errOrNil()
}

func (m *machine) errOrNil() error {
	if m.err != nil {
		return m.err
	}
	return nil
}

// bindTarget builds the continuation of an input with its variables bound.
func (p *Program) bindTarget(n *pnode, env []int64, wraps []wrap) (uint32, error) {
	t, err := p.norm(n.kids[0], env, 0)
	if err != nil {
		return 0, err
	}
	for _, w := range wraps {
		if t, err = p.applyWrap(t, w); err != nil {
			return 0, err
		}
	}
	return t, nil
}

// ---------------------------------------------------------------------------
// Parallel composition

// joint is a transition of a parallel composition: parts are indices into
// the flat list of its children's instantiated edges.
type joint struct {
	ev     lts.Event
	off, n int32
	atomic bool
	pair   bool // a synchronous channel handover: parts are output, input
}

// combiner holds the scratch of combining the children of one parallel.
type combiner struct {
	flat   []move
	ext    []edge  // materialised channel edges
	starts []int32 // flat index where child i's edges start; len = children+1
	joints []joint
	parts  []int32
	pick   []int32
}

// combine computes the joint transitions of a parallel composition with
// operator op (alphabets for ||); halves reports whether unpaired channel
// halves are kept (for a nested parallel, whose context may pair them).
func (p *Program) combine(c *combiner, op lang.ParOp, alphas []*evset, halves bool, m *machine) error {
	c.joints, c.parts = c.joints[:0], c.parts[:0]
	nk := len(c.starts) - 1
	childOf := func(i int32) int {
		return int(c.flat[i].who)
	}
	for i := int32(0); i < int32(len(c.flat)); i++ {
		am := &c.flat[i]
		ci := childOf(i)
		switch {
		case am.kind == labOut || am.kind == labIn:
			a := c.edgeOf(am)
			if a.kind == labOut {
				for j := int32(0); j < int32(len(c.flat)); j++ {
					bm := &c.flat[j]
					if bm.kind != labIn || childOf(j) == ci {
						continue
					}
					b := c.edgeOf(bm)
					if b.node.ch != a.node.ch || b.ch != a.ch {
						continue
					}
					_, ok, err := p.receive(b.node, b.env, a.vals[:a.nv], m)
					if err != nil {
						return err
					}
					if !ok {
						continue
					}
					ev := p.chanEvent(a.node.ch.name, p.chanIdx(a.node, a.ch), a.vals[:a.nv])
					for _, h := range append(append([]*evset(nil), a.hides...), b.hides...) {
						if p.has(h, ev) {
							ev = lts.Tau
							break
						}
					}
					off := int32(len(c.parts))
					c.parts = append(c.parts, i, j)
					c.joints = append(c.joints, joint{ev: ev, off: off, n: 2, atomic: a.atomic || b.atomic, pair: true})
				}
			}
			if halves {
				off := int32(len(c.parts))
				c.parts = append(c.parts, i)
				c.joints = append(c.joints, joint{ev: lts.Tau, off: off, n: 1, atomic: am.atomic})
			}
		case !am.sync || am.kind != labEv || op == lang.Interleave || alphas == nil || !p.has(alphas[ci], am.ev):
			off := int32(len(c.parts))
			c.parts = append(c.parts, i)
			c.joints = append(c.joints, joint{ev: am.ev, off: off, n: 1, atomic: am.atomic})
		default:
			// Multi-party synchronisation: every child whose alphabet has
			// the event takes part; the lowest such child generates.
			lowest := true
			for j := 0; j < ci; j++ {
				if p.has(alphas[j], am.ev) {
					lowest = false
					break
				}
			}
			if !lowest {
				continue
			}
			var others []int
			for j := ci + 1; j < nk; j++ {
				if p.has(alphas[j], am.ev) {
					others = append(others, j)
				}
			}
			c.enumerate(i, am.ev, others)
		}
	}
	return nil
}

// enumerate adds one joint per choice of a matching edge in every other
// participating child.
func (c *combiner) enumerate(first int32, ev lts.Event, others []int) {
	c.pick = append(c.pick[:0], first)
	var rec func(k int, atomic bool)
	rec = func(k int, atomic bool) {
		if k == len(others) {
			off := int32(len(c.parts))
			c.parts = append(c.parts, c.pick...)
			c.joints = append(c.joints, joint{ev: ev, off: off, n: int32(len(c.pick)), atomic: atomic})
			return
		}
		ch := others[k]
		for j := c.starts[ch]; j < c.starts[ch+1]; j++ {
			b := &c.flat[j]
			if b.kind == labEv && b.sync && b.ev == ev {
				c.pick = append(c.pick, j)
				rec(k+1, atomic || b.atomic)
				c.pick = c.pick[:len(c.pick)-1]
			}
		}
	}
	rec(0, c.flat[first].atomic)
}

// buildPar expands a nested parallel composition at run time.
func (p *Program) buildPar(tm *term, m *machine, path *[]uint32) ([]edge, error) {
	var c combiner
	for i, k := range tm.kids {
		c.starts = append(c.starts, int32(len(c.flat)))
		es, err := p.kidEdges(k, m, path)
		if err != nil {
			return nil, err
		}
		vars := m.vars
		for j := range es {
			if err := p.inst(&es[j], m, &c, int32(i)); err != nil {
				return nil, err
			}
			m.vars = vars
		}
	}
	c.starts = append(c.starts, int32(len(c.flat)))
	var alphas []*evset
	if tm.op == uint8(lang.Parallel) {
		alphas = tm.alphas
	}
	if err := p.combine(&c, lang.ParOp(tm.op), alphas, true, m); err != nil {
		return nil, err
	}
	var out []edge
	for _, j := range c.joints {
		parts := c.parts[j.off : j.off+j.n]
		if j.n == 1 && (c.flat[parts[0]].kind == labOut || c.flat[parts[0]].kind == labIn) {
			// An unpaired half: pass it up with this parallel as context.
			e := c.materialise(&c.flat[parts[0]])
			w := wrap{kind: wPar, i: int(e.who), kids: tm.kids, op: tm.op, alph: tm.alphas}
			if e.bound {
				e.wraps = append(append([]wrap(nil), e.wraps...), w)
			} else {
				t, err := p.applyWrap(e.target, w)
				if err != nil {
					return nil, err
				}
				e.target = t
			}
			out = append(out, e)
			continue
		}
		kids := append([]uint32(nil), tm.kids...)
		sub := make([]edge, 0, j.n)
		for k, pi := range parts {
			e := c.materialise(&c.flat[pi])
			if j.pair && k == 1 {
				a := c.materialise(&c.flat[parts[0]])
				ne, _, err := p.receive(e.node, e.env, a.vals[:a.nv], m)
				if err != nil {
					return nil, err
				}
				t, err := p.bindTarget(e.node, ne, e.wraps)
				if err != nil {
					return nil, err
				}
				e.target, e.bound, e.benv = t, false, ne
			}
			kids[e.who] = e.target
			sub = append(sub, e)
		}
		t := p.par(tm.op, kids, tm.alphas)
		kind := labEv
		if j.ev == lts.Tau {
			kind = labTau
		}
		out = append(out, edge{kind: kind, ev: j.ev, target: t, done: true, atomic: j.atomic, sub: sub,
			sync: kind == labEv && !j.pair && allSync(sub)})
	}
	return out, nil
}

func allSync(es []edge) bool {
	for _, e := range es {
		if !e.sync {
			return false
		}
	}
	return true
}

// materialise returns a copy of a move's edge with the move's label.
func (c *combiner) materialise(mv *move) edge {
	e := *c.edgeOf(mv)
	e.done, e.conds = true, nil
	e.kind, e.ev, e.sync, e.atomic, e.who = mv.kind, mv.ev, mv.sync, mv.atomic, mv.who
	return e
}

// spec holds a node's expressions compiled for one environment: parameters
// and index variables become constants, so `seg[i]` with i known is a
// direct slot read and constant subexpressions fold.
type spec struct {
	cond  cexpr
	conds []cexpr
	ev    *evTmpl
	block execFn
	patch []slotVal // block's constant stores, if that is all it does
}

// hotStates is the number of states of a system after which its program
// specialises event blocks to their environments (heatBlocks).
const hotStates = 1 << 15

// SetHotStates sets the number of stored states at which a system of p
// makes p specialise its event blocks (2^15 by default): the tests lower
// it to meet the switch in small systems. A matter of speed only: the
// specialised blocks compute the same successors, and the answers read
// from templates (LocalSteps, the moves) do not depend on whether they
// were built before or after (tmplSet). The parallel explorer (Explore)
// switches at the default.
func (p *Program) SetHotStates(n int) { p.hotAt.Store(int64(n)) }

// hot reports whether a system of p with n states makes it specialise
// event blocks.
func (p *Program) hot(n int) bool { return int64(n) >= p.hotAt.Load() }

// Hot reports whether p specialises event blocks already (heatBlocks has
// run).
func (p *Program) Hot() bool { return p.hotBlocks.Load() }

// heatBlocks makes every later template specialise its event block to its
// environment, and drops the templates built so far so that they are
// rebuilt that way. Blocks run only when their transition fires, and a
// small check fires each a few hundred times: compiling every block per
// environment up front was a fifth of a 0.35-ms check (Table 1, QF 1,
// seg 1), while a long search gains about 10% from the specialised code
// (BenchmarkExploreSegQueue). A search calls it when a system passes
// hotStates states; rebuilding then costs what compiling up front did.
// A reader of the templates meanwhile keeps the set it loaded, or builds
// it again (tmplSet): the sets before and after differ only in how their
// blocks run.
func (p *Program) heatBlocks() {
	if p.hotBlocks.Load() || !p.hotBlocks.CompareAndSwap(false, true) {
		return
	}
	for id := range p.terms.count.Load() {
		p.term(id).edges.Store(nil)
	}
}

// specialize compiles n's guard, event and block for env (falling back to
// the generic closures if anything fails). It runs once per term.
func (p *Program) specialize(n *pnode, env []int64) *spec {
	sp := &spec{cond: n.cond, conds: n.conds, ev: n.ev, block: n.block}
	if n.sc == nil {
		return sp
	}
	p.specMu.Lock()
	defer p.specMu.Unlock()
	// The environment's values compile to constants; n's own
	// substitutions take precedence (ident looks at subst first). A map
	// of constants built here per node was a third of the allocations of
	// a short check.
	sc := *n.sc
	sc.konst, sc.konstEnv = env, n.def.sc.env
	var tmp pnode
	if n.srcCond != nil {
		if c, err := p.expr(n.srcCond, &sc); err == nil {
			sp.cond = c
		}
	}
	if n.srcConds != nil {
		var cs []cexpr
		for _, e := range n.srcConds {
			c, err := p.expr(e, &sc)
			if err != nil {
				cs = nil
				break
			}
			cs = append(cs, c)
		}
		if cs != nil {
			sp.conds = cs
		}
	}
	if n.srcEv != nil && n.ev != nil {
		if t, err := p.evTemplate(n.srcEv, &sc, &tmp); err == nil && t != nil {
			sp.ev = t
		}
	}
	// A block with a generic version is specialised only once a search
	// is large (Program.heatBlocks).
	if n.srcBlock != nil && (n.block == nil || p.hotBlocks.Load()) {
		if b, err := p.block(n.srcBlock, &sc); err == nil {
			sp.block, sp.patch = b, p.constPatch(n.srcBlock, &sc)
		}
	}
	return sp
}
