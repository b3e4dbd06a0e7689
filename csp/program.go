package csp

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// Program is a checked model compiled for execution: the variable layout,
// the prepared process definitions and the tables shared by every system
// built from it (the event table, the hash-consed process terms). All its
// methods are safe for concurrent use.
type Program struct {
	c    *lang.Checked
	info *lang.Info
	// konsts is info.Consts keyed by node pointer (exprPtr; konst).
	konsts map[unsafe.Pointer]int64

	events *lts.EventTable

	// Variable layout: every global variable (arrays flattened) and every
	// buffered channel (a count and size*arity values) has slots in the
	// variable vector.
	varBase   []int // Info.Vars index -> first slot
	nslots    int
	init      []int64
	chans     []*chanDef // Info.Channels index -> channel
	localDims map[*lang.Symbol][]int
	maxLocals atomic.Int64 // largest number of block locals

	defs map[string]*procDef

	prepMu  sync.Mutex
	nodes   []*pnode
	operand map[lang.Proc]*pnode // prepared assertion operands

	terms termTable
	// hotBlocks: templates specialise event blocks (heatBlocks), which a
	// system does when it passes hotAt states (hotStates unless set).
	hotBlocks atomic.Bool
	hotAt     atomic.Int64

	evMu    sync.RWMutex
	evCache map[evKey]lts.Event
	baseMu  sync.Mutex
	baseIdx map[string]int32
	bases   []string

	setMu sync.Mutex
	sets  map[string]*evset

	specMu sync.Mutex // specialize writes shared compile tables

	originMu sync.Mutex
	origin   map[uint32]string // term -> the reference that produced it
	// descTerm memoises termString(t, 3), the control state Describe
	// shows for a component (guarded by originMu).
	descTerm map[uint32]string
}

// chanDef is a channel (or channel array) with its state layout.
type chanDef struct {
	name  string
	dims  []int
	size  int // 0: synchronous
	arity int // values per message
	base  int // first slot of instance 0 (buffered only)
	pos   lang.Pos
}

// instSlots is the number of slots of one buffered instance.
func (c *chanDef) instSlots() int { return 1 + c.size*c.arity }

// procDef is a process definition with its environment layout: parameters
// first, then one slot per binder (index variable, channel input) of its
// body.
type procDef struct {
	name   string
	decl   *lang.ProcDecl
	params int
	// lens gives each parameter's width: 0 for a scalar, n for an array
	// parameter of n elements (lang.Info.ParamLens), which takes n env
	// slots from its offset on.
	lens   []int
	nslots int
	sc     *scope
	body   *pnode
	alpha  *lang.AlphabetDecl
}

// Compile prepares a checked model for execution.
func Compile(c *lang.Checked) (prog *Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, fmt.Errorf("lts: internal error: %v", r)
		}
	}()
	p := &Program{
		c:         c,
		info:      c.Info,
		events:    lts.NewEventTable(),
		localDims: map[*lang.Symbol][]int{},
		defs:      map[string]*procDef{},
		operand:   map[lang.Proc]*pnode{},
		evCache:   map[evKey]lts.Event{},
		baseIdx:   map[string]int32{},
		sets:      map[string]*evset{},
		origin:    map[uint32]string{},
	}
	p.hotAt.Store(hotStates)
	p.konsts = make(map[unsafe.Pointer]int64, len(c.Info.Consts))
	for e, v := range c.Info.Consts {
		if k := exprPtr(e); k != nil {
			p.konsts[k] = v
		}
	}
	p.terms.init()
	p.initTerms()
	if err := p.layout(); err != nil {
		return nil, err
	}
	// Declare every definition before preparing bodies (references).
	for _, d := range c.File.Decls {
		pd, ok := d.(*lang.ProcDecl)
		if !ok {
			continue
		}
		def := &procDef{name: pd.Name.Name, decl: pd, params: len(pd.Params)}
		def.sc = &scope{env: map[*lang.Symbol]int{}}
		slot := 0
		for _, prm := range pd.Params {
			sym := p.info.Defs[prm]
			if sym == nil {
				return nil, errAt(prm, "unresolved parameter %s", prm.Name)
			}
			def.sc.env[sym] = slot
			n := p.info.ParamLens[prm]
			def.lens = append(def.lens, n)
			slot += max(n, 1)
		}
		def.nslots = slot
		if a := p.info.Alphabets[def.name]; a != nil {
			def.alpha = a
		}
		p.defs[def.name] = def
	}
	for _, def := range p.defs {
		body, err := p.prep(def.decl.Body, def)
		if err != nil {
			return nil, err
		}
		def.body = body
	}
	return p, nil
}

// Events is the event table shared by all systems of the program.
func (p *Program) Events() *lts.EventTable { return p.events }

// layout assigns variable slots and evaluates initial values.
func (p *Program) layout() error {
	for _, vi := range p.info.Vars {
		p.varBase = append(p.varBase, p.nslots)
		n := 1
		for _, d := range vi.Dims {
			n *= d
		}
		if len(vi.Init) != n && len(vi.Init) != 0 {
			return errAt(vi.Decl, "variable %s: %d initial values for %d elements", vi.Decl.Name.Name, len(vi.Init), n)
		}
		for i := 0; i < n; i++ {
			var v int64
			if i < len(vi.Init) {
				v = vi.Init[i]
			}
			if vi.Ranged && (v < vi.Lo || v > vi.Hi) {
				return errAt(vi.Decl, "initial value %d of %s outside its range {%d..%d}", v, vi.Decl.Name.Name, vi.Lo, vi.Hi)
			}
			p.init = append(p.init, v)
		}
		p.nslots += n
	}
	arity := p.channelArities()
	for i, ci := range p.info.Channels {
		cd := &chanDef{name: ci.Decl.Name.Name, dims: ci.Dims, size: ci.Size, arity: max(1, arity[i]), pos: ci.Decl.Pos()}
		if cd.size > 0 {
			cd.base = p.nslots
			n := 1
			for _, d := range cd.dims {
				n *= d
			}
			k := n * cd.instSlots()
			p.nslots += k
			for j := 0; j < k; j++ {
				p.init = append(p.init, 0)
			}
		}
		p.chans = append(p.chans, cd)
	}
	return nil
}

// channelArities finds the largest number of values sent or received on
// each channel.
func (p *Program) channelArities() []int {
	ar := make([]int, len(p.info.Channels))
	note := func(id *lang.Ident, n int) {
		if s := p.symOf(id); s != nil && s.Kind == lang.SymChannel && s.Slot < len(ar) && n > ar[s.Slot] {
			ar[s.Slot] = n
		}
	}
	var walk func(q lang.Proc)
	walk = func(q lang.Proc) {
		switch q := q.(type) {
		case *lang.ChanOutProc:
			note(q.Chan, len(q.Values))
			walk(q.Next)
		case *lang.ChanInProc:
			note(q.Chan, len(q.Vars))
			walk(q.Next)
		case *lang.PrefixProc:
			walk(q.Next)
		case *lang.MultiPrefixProc:
			walk(q.Next)
		case *lang.GuardProc:
			walk(q.Body)
		case *lang.IfProc:
			walk(q.Then)
			if q.Else != nil {
				walk(q.Else)
			}
		case *lang.CaseProc:
			for _, a := range q.Arms {
				walk(a.Body)
			}
			if q.Default != nil {
				walk(q.Default)
			}
		case *lang.SeqProc:
			walk(q.Left)
			walk(q.Right)
		case *lang.ChoiceProc:
			for _, k := range q.Procs {
				walk(k)
			}
		case *lang.ParProc:
			for _, k := range q.Procs {
				walk(k)
			}
		case *lang.IndexedProc:
			walk(q.Body)
		case *lang.HideProc:
			walk(q.Body)
		case *lang.AtomicProc:
			walk(q.Body)
		case *lang.InterruptProc:
			walk(q.Left)
			walk(q.Right)
		}
	}
	for _, d := range p.c.File.Decls {
		if pd, ok := d.(*lang.ProcDecl); ok {
			walk(pd.Body)
		}
	}
	return ar
}

// ---------------------------------------------------------------------------
// Prepared process nodes

type pkind uint8

const (
	pStop pkind = iota
	pSkip
	pRef
	pPrefix
	pChanOut
	pChanIn
	pGuard
	pIf
	pCase
	pSeq
	pChoice
	pPar
	pIndexed
	pHide
	pAtomic
	pIntr
)

// pnode is a process expression prepared for execution: its expressions
// compiled in the scope of its definition. Terms pair a pnode with an
// environment.
type pnode struct {
	id   int32
	kind pkind
	src  lang.Node
	def  *procDef
	free uint64 // env slots the subtree reads (bit i = slot i); all ones if unknown
	kids []*pnode

	ev    *evTmpl // pPrefix (nil: tau), pChanOut/pChanIn: nil
	block execFn  // pPrefix, pChanOut, pChanIn; nil if none
	cond  cexpr   // pGuard, pIf
	conds []cexpr // pCase arms
	op    int     // choice op, par op, if kind; pCase: 1 if a default exists
	isPar bool    // pIndexed

	ref  *procDef // pRef
	args []cexpr
	dyn  bool // pRef: arguments read variables

	ch     *chanDef // channel ops
	chIdx  []cexpr
	vals   []cexpr // pChanOut values; pChanIn: constants to match (f == nil for binders)
	slots  []int   // pChanIn: env slot per value, -1 for a constant
	guard  *cexpr  // pChanIn guard over the received values
	index  []*lang.IndexVar
	islot  []int // pIndexed: env slot per index variable (-1: replication count)
	hide   *lang.EventSet
	hideSc *scope

	// Sources, recompiled per environment by specialize.
	sc       *scope
	srcEv    *lang.EventExpr
	srcBlock *lang.Block
	srcCond  lang.Expr
	srcConds []lang.Expr
}

// evTmpl is an event label with its data expressions.
type evTmpl struct {
	name string
	base int32
	data []cexpr
	dyn  bool // some data reads variables
	pos  lang.Pos
}

func (p *Program) newNode(kind pkind, src lang.Node, def *procDef) *pnode {
	n := &pnode{id: int32(len(p.nodes)), kind: kind, src: src, def: def}
	p.nodes = append(p.nodes, n)
	return n
}

// bind gives a binder a fresh env slot in def.
func (p *Program) bindSlot(def *procDef, id *lang.Ident) (int, error) {
	sym := p.info.Defs[id]
	if sym == nil {
		return 0, errAt(id, "unresolved binder %s", id.Name)
	}
	if s, ok := def.sc.env[sym]; ok {
		return s, nil
	}
	s := def.nslots
	def.nslots++
	def.sc.env[sym] = s
	return s, nil
}

// prep prepares q (a part of def's body). rec collects the env slots read.
func (p *Program) prep(q lang.Proc, def *procDef) (*pnode, error) {
	var rec uint64
	sc := *def.sc
	sc.rec = &rec
	n, err := p.prepIn(q, def, &sc)
	if err != nil {
		return nil, err
	}
	return n, nil
}

func (p *Program) cx(e lang.Expr, sc *scope, n *pnode) (cexpr, error) {
	var rec uint64
	inner := *sc
	inner.rec = &rec
	c, err := p.expr(e, &inner)
	n.free |= rec
	return c, err
}

func (p *Program) evTemplate(e *lang.EventExpr, sc *scope, n *pnode) (*evTmpl, error) {
	if e.Name.Name == "tau" && len(e.Data) == 0 {
		return nil, nil
	}
	t := &evTmpl{name: e.Name.Name, base: p.baseID(e.Name.Name), pos: e.Pos()}
	for _, d := range e.Data {
		c, err := p.cx(d, sc, n)
		if err != nil {
			return nil, err
		}
		t.data = append(t.data, c)
		t.dyn = t.dyn || c.dyn
	}
	return t, nil
}

// prepIn prepares the node of process term q of def in scope sc: its
// expressions compiled, its children prepared; one method per kind of term
// that needs more than a node.
func (p *Program) prepIn(q lang.Proc, def *procDef, sc *scope) (*pnode, error) {
	switch q := q.(type) {
	case *lang.StopProc:
		return p.newNode(pStop, q, def), nil
	case *lang.SkipProc:
		return p.newNode(pSkip, q, def), nil
	case *lang.RefProc:
		return p.prepRef(q, def, sc)
	case *lang.PrefixProc:
		return p.prepPrefix(q, def, sc)
	case *lang.MultiPrefixProc:
		return p.prepMultiPrefix(q, def, sc)
	case *lang.ChanOutProc:
		return p.prepChanOut(q, def, sc)
	case *lang.ChanInProc:
		return p.prepChanIn(q, def, sc)
	case *lang.GuardProc:
		n := p.newNode(pGuard, q, def)
		n.sc, n.srcCond = sc.plain(), q.Cond
		c, err := p.cx(q.Cond, sc, n)
		if err != nil {
			return nil, err
		}
		n.cond = c
		return p.withKids(n, def, sc, q.Body)
	case *lang.IfProc:
		n := p.newNode(pIf, q, def)
		n.sc, n.srcCond = sc.plain(), q.Cond
		n.op = int(q.Kind)
		c, err := p.cx(q.Cond, sc, n)
		if err != nil {
			return nil, err
		}
		n.cond = c
		els := q.Else
		if els == nil {
			els = &lang.SkipProc{Span: q.Span}
		}
		return p.withKids(n, def, sc, q.Then, els)
	case *lang.CaseProc:
		return p.prepCase(q, def, sc)
	case *lang.SeqProc:
		return p.withKids(p.newNode(pSeq, q, def), def, sc, q.Left, q.Right)
	case *lang.ChoiceProc:
		n := p.newNode(pChoice, q, def)
		n.op = int(q.Op)
		return p.withKids(n, def, sc, q.Procs...)
	case *lang.ParProc:
		n := p.newNode(pPar, q, def)
		n.op = int(q.Op)
		return p.withKids(n, def, sc, q.Procs...)
	case *lang.IndexedProc:
		return p.prepIndexed(q, def, sc)
	case *lang.HideProc:
		n := p.newNode(pHide, q, def)
		n.hide = q.Events
		n.hideSc = sc
		n.free = ^uint64(0) // the set is evaluated later; keep the whole env
		return p.withKids(n, def, sc, q.Body)
	case *lang.AtomicProc:
		return p.withKids(p.newNode(pAtomic, q, def), def, sc, q.Body)
	case *lang.InterruptProc:
		return p.withKids(p.newNode(pIntr, q, def), def, sc, q.Left, q.Right)
	}
	return nil, errAt(q, "unsupported process expression")
}

// withBlock compiles an event's block (if any) into n, then prepares the
// process that follows.
func (p *Program) withBlock(n *pnode, def *procDef, sc *scope, block *lang.Block, next lang.Proc) (*pnode, error) {
	if block != nil {
		b, err := p.blockIn(block, sc, n)
		if err != nil {
			return nil, err
		}
		n.block = b
	}
	return p.withKids(n, def, sc, next)
}

// prepRef prepares a call of a process definition.
func (p *Program) prepRef(q *lang.RefProc, def *procDef, sc *scope) (*pnode, error) {
	n := p.newNode(pRef, q, def)
	n.ref = p.defs[q.Name.Name]
	if n.ref == nil {
		return nil, errAt(q.Name, "undefined process %s", q.Name.Name)
	}
	if len(q.Args) != n.ref.params {
		return nil, errAt(q, "process %s takes %d arguments, found %d", q.Name.Name, n.ref.params, len(q.Args))
	}
	for i, a := range q.Args {
		cs := make([]cexpr, 1)
		var err error
		if n.ref.lens[i] > 0 {
			cs, err = p.arrayArg(a, n.ref.lens[i], sc)
		} else {
			cs[0], err = p.cx(a, sc, n)
		}
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			n.args = append(n.args, c) // one per env slot of the callee
			n.dyn = n.dyn || c.dyn
		}
	}
	return n, nil
}

// arrayArg compiles an argument passed to an array parameter of n
// elements into one expression per element: an array literal's elements,
// or the elements of a global array or of an array parameter, read when
// the call unfolds (by value, as PAT passes arrays).
func (p *Program) arrayArg(a lang.Expr, n int, sc *scope) ([]cexpr, error) {
	var cs []cexpr
	switch a := a.(type) {
	case *lang.ArrayLit:
		var err error
		if cs, err = p.arrayLit(a, sc); err != nil {
			return nil, err
		}
	case *lang.Ident:
		sym := p.symOf(a)
		switch {
		case sym != nil && sym.Kind == lang.SymVar && len(p.info.Vars[sym.Slot].Dims) == 1:
			base := p.varBase[sym.Slot]
			for k := range p.info.Vars[sym.Slot].Dims[0] {
				cs = append(cs, linExpr(base+k, 1, 0))
			}
		case sym != nil && sym.Kind == lang.SymParam:
			base, ok := sc.env[sym]
			if !ok {
				return nil, errAt(a, "%s is not bound here", a.Name)
			}
			for k := range n {
				slot := base + k
				if sc.rec != nil && slot < 64 {
					*sc.rec |= 1 << slot
				}
				cs = append(cs, cexpr{f: func(m *machine) int64 { return m.env[slot] }})
			}
		}
	}
	if len(cs) != n {
		return nil, errAt(a, "expected an array of %d elements, found %d", n, len(cs))
	}
	return cs, nil
}

// prepPrefix prepares e{block} -> P.
func (p *Program) prepPrefix(q *lang.PrefixProc, def *procDef, sc *scope) (*pnode, error) {
	n := p.newNode(pPrefix, q, def)
	n.sc, n.srcEv, n.srcBlock = sc.plain(), q.Event, q.Block
	if q.Event != nil {
		t, err := p.evTemplate(q.Event, sc, n)
		if err != nil {
			return nil, err
		}
		n.ev = t
	}
	return p.withBlock(n, def, sc, q.Block, q.Next)
}

// prepMultiPrefix prepares (a, b) -> P as a -> b -> P (docs/semantics.md).
func (p *Program) prepMultiPrefix(q *lang.MultiPrefixProc, def *procDef, sc *scope) (*pnode, error) {
	// (a, b) -> P is a -> b -> P (docs/semantics.md).
	next, err := p.prepIn(q.Next, def, sc)
	if err != nil {
		return nil, err
	}
	for i := len(q.Events) - 1; i >= 0; i-- {
		n := p.newNode(pPrefix, q.Events[i], def)
		n.sc, n.srcEv = sc.plain(), q.Events[i]
		t, err := p.evTemplate(q.Events[i], sc, n)
		if err != nil {
			return nil, err
		}
		n.ev = t
		n.kids = []*pnode{next}
		n.free |= next.free
		next = n
	}
	return next, nil
}

// prepChanOut prepares c!v1.v2{block} -> P.
func (p *Program) prepChanOut(q *lang.ChanOutProc, def *procDef, sc *scope) (*pnode, error) {
	n := p.newNode(pChanOut, q, def)
	if err := p.chanRef(n, q.Chan, q.Index, sc); err != nil {
		return nil, err
	}
	for _, v := range q.Values {
		c, err := p.cx(v, sc, n)
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, c)
	}
	if len(n.vals) > maxMsg {
		return nil, errAt(q, "at most %d values per message", maxMsg)
	}
	return p.withBlock(n, def, sc, q.Block, q.Next)
}

// prepChanIn prepares c?x.y[guard]{block} -> P, binding input variables
// to slots of the environment.
func (p *Program) prepChanIn(q *lang.ChanInProc, def *procDef, sc *scope) (*pnode, error) {
	n := p.newNode(pChanIn, q, def)
	if err := p.chanRef(n, q.Chan, q.Index, sc); err != nil {
		return nil, err
	}
	if len(q.Vars) > maxMsg {
		return nil, errAt(q, "at most %d values per message", maxMsg)
	}
	for _, v := range q.Vars {
		if id, ok := v.(*lang.Ident); ok {
			if s := p.info.Defs[id]; s != nil && s.Kind == lang.SymInput {
				slot, err := p.bindSlot(def, id)
				if err != nil {
					return nil, err
				}
				sc.env[s] = slot
				n.slots = append(n.slots, slot)
				n.vals = append(n.vals, cexpr{})
				continue
			}
		}
		c, err := p.cx(v, sc, n)
		if err != nil {
			return nil, err
		}
		n.slots = append(n.slots, -1)
		n.vals = append(n.vals, c)
	}
	if q.Guard != nil {
		g, err := p.cx(q.Guard, sc, n)
		if err != nil {
			return nil, err
		}
		n.guard = &g
	}
	return p.withBlock(n, def, sc, q.Block, q.Next)
}

// prepCase prepares case { c1: P1 ... default: Q }.
func (p *Program) prepCase(q *lang.CaseProc, def *procDef, sc *scope) (*pnode, error) {
	n := p.newNode(pCase, q, def)
	var kids []lang.Proc
	n.sc = sc.plain()
	for _, a := range q.Arms {
		n.srcConds = append(n.srcConds, a.Cond)
		c, err := p.cx(a.Cond, sc, n)
		if err != nil {
			return nil, err
		}
		n.conds = append(n.conds, c)
		kids = append(kids, a.Body)
	}
	if q.Default != nil {
		n.op = 1
		kids = append(kids, q.Default)
	}
	return p.withKids(n, def, sc, kids...)
}

// prepIndexed prepares an indexed choice or composition over index sets.
func (p *Program) prepIndexed(q *lang.IndexedProc, def *procDef, sc *scope) (*pnode, error) {
	n := p.newNode(pIndexed, q, def)
	n.isPar = q.IsPar
	if q.IsPar {
		n.op = int(q.ParOp)
	} else {
		n.op = int(q.ChoiceOp)
	}
	if len(q.Index) == 0 {
		return nil, errAt(q, "missing index")
	}
	n.index = q.Index
	for _, iv := range q.Index {
		// The set is evaluated with the environment (and the earlier
		// index variables) when the term is built.
		if err := p.recordSet(iv.Set, sc, n); err != nil {
			return nil, err
		}
		slot := -1
		if iv.Var != nil {
			s, err := p.bindSlot(def, iv.Var)
			if err != nil {
				return nil, err
			}
			slot = s
		}
		n.islot = append(n.islot, slot)
	}
	return p.withKids(n, def, sc, q.Body)
}

// recordSet notes the env slots an index set reads.
func (p *Program) recordSet(s *lang.IndexSet, sc *scope, n *pnode) error {
	var es []lang.Expr
	if s.Range != nil {
		es = append(es, s.Range.Lo, s.Range.Hi)
	}
	es = append(es, s.Elems...)
	for _, e := range es {
		c, err := p.cx(e, sc, n)
		if err != nil {
			return err
		}
		if c.dyn {
			return errAt(e, "index set must not depend on variables")
		}
	}
	return nil
}

func (p *Program) withKids(n *pnode, def *procDef, sc *scope, kids ...lang.Proc) (*pnode, error) {
	for _, k := range kids {
		kn, err := p.prepIn(k, def, sc)
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, kn)
		n.free |= kn.free
	}
	return n, nil
}

func (p *Program) blockIn(b *lang.Block, sc *scope, n *pnode) (execFn, error) {
	var rec uint64
	inner := *sc
	inner.rec = &rec
	f, err := p.block(b, &inner)
	n.free |= rec
	return f, err
}

func (p *Program) chanRef(n *pnode, id *lang.Ident, idx []lang.Expr, sc *scope) error {
	sym := p.symOf(id)
	if sym == nil || sym.Kind != lang.SymChannel {
		return errAt(id, "%s is not a channel", id.Name)
	}
	n.ch = p.chans[sym.Slot]
	if len(idx) != len(n.ch.dims) {
		return errAt(id, "channel %s has %d dimensions, found %d indices", id.Name, len(n.ch.dims), len(idx))
	}
	for _, e := range idx {
		c, err := p.cx(e, sc, n)
		if err != nil {
			return err
		}
		n.chIdx = append(n.chIdx, c)
	}
	return nil
}

// operandNode prepares an assertion operand (or any process expression
// outside a definition).
func (p *Program) operandNode(q lang.Proc) (*pnode, error) {
	p.prepMu.Lock()
	defer p.prepMu.Unlock()
	if n, ok := p.operand[q]; ok {
		return n, nil
	}
	def := &procDef{name: "", sc: &scope{env: map[*lang.Symbol]int{}}}
	p.specMu.Lock() // prep writes the tables specialize writes
	n, err := p.prep(q, def)
	p.specMu.Unlock()
	if err != nil {
		return nil, err
	}
	p.operand[q] = n
	return n, nil
}

// ---------------------------------------------------------------------------
// Event names

type evKey struct {
	base int32
	n    int32
	d    [maxVals + 2]int64
}

// maxVals is the most data of an event kept in the event caches' fixed
// keys (two more: a longer event takes the slow path); maxMsg is the most
// values of a channel message.
const (
	maxVals = 4
	maxMsg  = lang.MaxMessage
)

func (p *Program) baseID(name string) int32 {
	p.baseMu.Lock()
	defer p.baseMu.Unlock()
	if id, ok := p.baseIdx[name]; ok {
		return id
	}
	id := int32(len(p.bases))
	p.bases = append(p.bases, name)
	p.baseIdx[name] = id
	return id
}

// event interns base.d1.d2…; the cache avoids building the name each time.
func (p *Program) event(base int32, data []int64) lts.Event {
	if len(data) > maxVals+2 {
		ds := make([]int, len(data))
		for i, d := range data {
			ds[i] = int(d)
		}
		return p.events.Intern(p.baseName(base), ds...)
	}
	k := evKey{base: base, n: int32(len(data))}
	copy(k.d[:], data)
	p.evMu.RLock()
	e, ok := p.evCache[k]
	p.evMu.RUnlock()
	if ok {
		return e
	}
	ds := make([]int, len(data))
	for i, d := range data {
		ds[i] = int(d)
	}
	e = p.events.Intern(p.baseName(base), ds...)
	p.evMu.Lock()
	p.evCache[k] = e
	p.evMu.Unlock()
	return e
}

func (p *Program) baseName(b int32) string {
	p.baseMu.Lock()
	defer p.baseMu.Unlock()
	return p.bases[b]
}

// errComplex marks a term whose transitions cannot be precomputed.
var errComplex = errors.New("complex term")

// termTable hash-conses process terms.
type termTable struct {
	mu    sync.Mutex
	set   *intern.Set
	dir   atomic.Pointer[[]atomic.Pointer[termChunk]] // grown by copying under mu
	count atomic.Uint32
}

const chunkShift = 12

type termChunk [1 << chunkShift]*term

func (tt *termTable) init() {
	tt.set = intern.New(1024)
	dir := make([]atomic.Pointer[termChunk], 16)
	tt.dir.Store(&dir)
}

// maxChunks bounds the directory: 2^28 terms.
const maxChunks = 1 << 16

func (tt *termTable) get(id uint32) *term {
	return (*tt.dir.Load())[id>>chunkShift].Load()[id&(1<<chunkShift-1)]
}

// chunk returns the chunk of id, adding it (and growing the directory) if
// needed; tt.mu is held.
func (tt *termTable) chunk(id uint32) *termChunk {
	c := int(id >> chunkShift)
	dir := *tt.dir.Load()
	if c >= len(dir) {
		if c >= maxChunks {
			panic("lts: too many process terms")
		}
		bigger := make([]atomic.Pointer[termChunk], min(2*c, maxChunks))
		for i := range dir {
			bigger[i].Store(dir[i].Load())
		}
		tt.dir.Store(&bigger)
		dir = bigger
	}
	ch := dir[c].Load()
	if ch == nil {
		ch = new(termChunk)
		dir[c].Store(ch)
	}
	return ch
}
