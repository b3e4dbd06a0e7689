package csp

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// This file compiles expressions and event-block statements into closures.
// A closure reads the machine: the global variables (vars), the environment
// of the process term it belongs to (env: parameters, index variables,
// channel inputs) and the locals of the block being executed. Errors are
// sticky in the machine, so the closures return plain values and callers
// check m.err once.

// machine is the scratch state of one successor computation. Each call of
// Successors has its own (pooled), so closures need no locking.
type machine struct {
	vars   []int64
	env    []int64
	locals []int64
	err    *lts.RuntimeError
	depth  int // unfolding depth of references with variable arguments
	// evc caches events computed from data (ret.i.got[i]) for this
	// machine's goroutine, lock-free: Program.event takes a lock and hashes
	// a map key on every call. Allocated on first use.
	evc *[evCacheSize]evSlot
	// undo logs every write to vars (slot, old value): expandPlain runs a
	// block on the state's own variables and then restores them, and
	// encodes the successor by patching the state's bytes at the written
	// slots only.
	undo []undoRec
}

type undoRec struct {
	slot int
	old  int64
}

// set writes vars[i] = v, logging the old value.
func (m *machine) set(i int, v int64) {
	m.undo = append(m.undo, undoRec{i, m.vars[i]})
	m.vars[i] = v
}

const (
	evCacheBits = 6
	evCacheSize = 1 << evCacheBits
)

type evSlot struct {
	key evKey
	ev  lts.Event
}

// event is Program.event through the machine's cache. An event's id never
// changes once interned, so a cached entry stays right.
func (m *machine) event(p *Program, base int32, ds []int64) lts.Event {
	if len(ds) > maxVals+2 {
		return p.event(base, ds)
	}
	k := evKey{base: base + 1, n: int32(len(ds))} // base+1: the zero slot is empty
	copy(k.d[:], ds)
	h := uint64(k.base)*0x9E3779B97F4A7C15 ^ uint64(k.n)
	for _, d := range ds {
		h = (h ^ uint64(d)) * 0x9E3779B97F4A7C15
	}
	if m.evc == nil {
		m.evc = new([evCacheSize]evSlot)
	}
	sl := &m.evc[h>>(64-evCacheBits)]
	if sl.key == k {
		return sl.ev
	}
	ev := p.event(base, ds)
	sl.key, sl.ev = k, ev
	return ev
}

func (m *machine) fail(pos lang.Pos, format string, args ...any) {
	if m.err == nil {
		m.err = &lts.RuntimeError{Pos: pos.String(), Msg: fmt.Sprintf(format, args...)}
	}
}

type evalFn func(m *machine) int64

type execFn func(m *machine)

// cexpr is a compiled expression: dyn reports whether it reads variables or
// locals (otherwise it depends only on the environment and can be evaluated
// when a term is built); konst whether it is a compile-time constant.
type cexpr struct {
	f     evalFn
	dyn   bool
	konst bool
	val   int64
	sh    shape // a specialisable shape (fast.go), or kind shNone
	// conj, if set, lists the conjuncts of an && chain in order (f
	// evaluates them in one loop rather than a closure per &&).
	conj []evalFn
	// key identifies a comparison of shapes and constants (cmpConst,
	// cmpVars) by what it computes; first is the key of an && chain's
	// first conjunct. nil: none.
	key, first *condKey
}

// condKey is what a comparison over shapes computes: two comparisons with
// equal keys have the same value in every state (and the same errors,
// but for the position they report).
type condKey struct {
	op   string
	x, y shapeKey
	c    int64 // y is the constant c when y.kind is shNone
}

type shapeKey struct {
	kind shapeKind
	slot int
	a, b int64
	base int
	d    int64
}

func keyOf(sh shape) shapeKey {
	return shapeKey{kind: sh.kind, slot: sh.slot, a: sh.a, b: sh.b, base: sh.base, d: sh.d}
}

func constExpr(v int64) cexpr {
	if v >= minSmallConst && v < minSmallConst+int64(len(smallConsts)) {
		return cexpr{f: smallConsts[v-minSmallConst], konst: true, val: v}
	}
	return cexpr{f: func(*machine) int64 { return v }, konst: true, val: v}
}

// smallConsts are the closures of the constants -1 .. 254, shared:
// compiling a check's templates made one per constant of its guards
// and labels.
const minSmallConst = -1

var smallConsts = func() (fs [256]evalFn) {
	for i := range fs {
		v := int64(i) + minSmallConst
		fs[i] = func(*machine) int64 { return v }
	}
	return fs
}()

// scope maps the names visible in a process body or block to their storage.
type scope struct {
	env    map[*lang.Symbol]int   // env slot of parameters, index and input variables
	locals map[*lang.Symbol]int   // local slot of block variables
	subst  map[*lang.Symbol]cexpr // macro parameters and unrolled index variables
	// konst, if set, holds the values of the environment slots of
	// konstEnv's symbols: they compile to constants (after subst), as
	// Program.specialize compiles a node for one environment.
	konst    []int64
	konstEnv map[*lang.Symbol]int
	nloc     *int    // next free local slot
	rec      *uint64 // if set, collects the env slots read
	// effects reports an event block, where a block macro may assign
	// global variables (elsewhere, in guards and event data, it may not).
	effects bool
}

// plain is a copy of s that records nothing.
func (s *scope) plain() *scope {
	n := *s
	n.rec = nil
	return &n
}

func (s *scope) with(sym *lang.Symbol, e cexpr) *scope {
	n := *s
	n.subst = make(map[*lang.Symbol]cexpr, len(s.subst)+1)
	for k, v := range s.subst {
		n.subst[k] = v
	}
	n.subst[sym] = e
	return &n
}

// errEnvIndex reports an index set that reads the environment where the
// environment is not known (compile time).
var errEnvIndex = errors.New("index set reads the environment")

// compileError is a positioned error found while compiling.
type compileError struct {
	pos lang.Pos
	msg string
}

func (e *compileError) Error() string { return e.pos.String() + ": " + e.msg }

func errAt(n lang.Node, format string, args ...any) error {
	return &compileError{pos: n.Pos(), msg: fmt.Sprintf(format, args...)}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (p *Program) symOf(id *lang.Ident) *lang.Symbol {
	if s := p.info.Uses[id]; s != nil {
		return s
	}
	return p.info.Defs[id]
}

// konst is Info.Consts[e], looked up by e's node pointer (konsts): a map
// keyed by an interface hashes it through interhash, which was a tenth of
// a small check (Table 1 QF 1 seg 1 compiles some 1,200 expressions into
// the templates of 90 terms).
func (p *Program) konst(e lang.Expr) (int64, bool) {
	if k := exprPtr(e); k != nil {
		v, ok := p.konsts[k]
		return v, ok
	}
	v, ok := p.info.Consts[e]
	return v, ok
}

// exprPtr is the node pointer of e (nil for a type it does not know).
// Expression nodes are distinct allocations (none embeds another by
// value), so the pointer identifies the node as the interface does.
func exprPtr(e lang.Expr) unsafe.Pointer {
	switch e := e.(type) {
	case *lang.Ident:
		return unsafe.Pointer(e)
	case *lang.IntLit:
		return unsafe.Pointer(e)
	case *lang.BoolLit:
		return unsafe.Pointer(e)
	case *lang.IndexExpr:
		return unsafe.Pointer(e)
	case *lang.UnaryExpr:
		return unsafe.Pointer(e)
	case *lang.BinaryExpr:
		return unsafe.Pointer(e)
	case *lang.CondExpr:
		return unsafe.Pointer(e)
	case *lang.CallExpr:
		return unsafe.Pointer(e)
	case *lang.IndexedBoolExpr:
		return unsafe.Pointer(e)
	case *lang.ArrayLit:
		return unsafe.Pointer(e)
	}
	return nil
}

// expr compiles e in scope sc.
func (p *Program) expr(e lang.Expr, sc *scope) (cexpr, error) {
	if v, ok := p.konst(e); ok {
		return constExpr(v), nil
	}
	switch e := e.(type) {
	case *lang.IntLit:
		return constExpr(e.Value), nil
	case *lang.BoolLit:
		return constExpr(boolInt(e.Value)), nil
	case *lang.Ident:
		return p.ident(e, sc)
	case *lang.IndexExpr:
		return p.index(e, sc)
	case *lang.UnaryExpr:
		x, err := p.expr(e.X, sc)
		if err != nil {
			return x, err
		}
		xf := x.f
		var f evalFn
		switch e.Op {
		case "!":
			f = func(m *machine) int64 { return boolInt(xf(m) == 0) }
		case "-":
			f = func(m *machine) int64 { return lang.Wrap32(-xf(m)) }
		case "+":
			f = xf
		default:
			return cexpr{}, errAt(e, "unsupported operator %s", e.Op)
		}
		return p.fold(cexpr{f: f, dyn: x.dyn}, x.konst), nil
	case *lang.BinaryExpr:
		return p.binary(e, sc)
	case *lang.CondExpr:
		c, err := p.expr(e.Cond, sc)
		if err != nil {
			return c, err
		}
		x, err := p.expr(e.X, sc)
		if err != nil {
			return x, err
		}
		y, err := p.expr(e.Y, sc)
		if err != nil {
			return y, err
		}
		cf, xf, yf := c.f, x.f, y.f
		f := func(m *machine) int64 {
			if cf(m) != 0 {
				return xf(m)
			}
			return yf(m)
		}
		return p.fold(cexpr{f: f, dyn: c.dyn || x.dyn || y.dyn}, c.konst && x.konst && y.konst), nil
	case *lang.CallExpr:
		def := p.info.Macros[e.Func.Name]
		if def == nil {
			return cexpr{}, errAt(e, "undefined macro %s", e.Func.Name)
		}
		if len(def.Params) != len(e.Args) {
			return cexpr{}, errAt(e, "macro %s takes %d arguments, found %d", e.Func.Name, len(def.Params), len(e.Args))
		}
		if def.Block != nil {
			return p.blockMacroExpr(def, e, sc)
		}
		inner := sc
		for i, prm := range def.Params {
			a, err := p.expr(e.Args[i], sc)
			if err != nil {
				return a, err
			}
			sym := p.info.Defs[prm]
			if sym == nil {
				return cexpr{}, errAt(prm, "unresolved macro parameter %s", prm.Name)
			}
			inner = inner.with(sym, a)
		}
		return p.expr(def.Value, inner)
	case *lang.IndexedBoolExpr:
		// Unrolled over every combination of the index variables' values
		// (sets must not read variables).
		and := e.Op == "&&"
		var parts []evalFn
		dyn, konst := false, true
		err := p.eachIndex(e.Index, sc, nil, func(inner *scope) error {
			b, err := p.expr(e.Body, inner)
			if err != nil {
				return err
			}
			parts = append(parts, b.f)
			dyn = dyn || b.dyn
			konst = konst && b.konst
			return nil
		})
		if err == errEnvIndex {
			// The set reads a parameter: the expression is compiled again
			// for each term's environment (specialize), where it is known;
			// here it cannot be evaluated.
			pos := e.Pos()
			return cexpr{f: func(m *machine) int64 {
				m.fail(pos, "index set depends on a parameter in a context where it is not known")
				return 0
			}, dyn: true}, nil
		}
		if err != nil {
			return cexpr{}, err
		}
		f := func(m *machine) int64 {
			for _, g := range parts {
				if (g(m) != 0) != and {
					return boolInt(!and)
				}
			}
			return boolInt(and)
		}
		return p.fold(cexpr{f: f, dyn: dyn}, konst), nil
	}
	return cexpr{}, errAt(e, "unsupported expression")
}

// logic compiles x && y and x || y when a constant operand decides them
// or makes them y (or x) as a truth value, and flattens chains of &&
// (left to right, stopping at the first false conjunct, as the nested
// closures would). It reports false to leave e to the generic closure
// (both operands constant: folded there; or a constant right operand
// that does not spare evaluating x).
func logic(e *lang.BinaryExpr, x, y cexpr) (cexpr, bool) {
	and := e.Op == "&&"
	switch {
	case x.konst && y.konst:
		return cexpr{}, false
	case x.konst:
		// false && y, true || y: y is never evaluated.
		if (x.val != 0) != and {
			return constExpr(boolInt(!and)), true
		}
		return truth(e.Y, y), true
	case y.konst:
		// x && true, x || false: x, as a truth value.
		if (y.val != 0) == and {
			return truth(e.X, x), true
		}
		return cexpr{}, false
	case !and:
		return cexpr{}, false
	}
	conj := append(append([]evalFn(nil), conjuncts(x)...), conjuncts(y)...)
	first := x.key
	if x.conj != nil {
		first = x.first
	}
	return cexpr{f: andChain(conj), dyn: x.dyn || y.dyn, conj: conj, first: first}, true
}

func conjuncts(c cexpr) []evalFn {
	if c.conj != nil {
		return c.conj
	}
	return []evalFn{c.f}
}

// andChain evaluates fs in order and is 1 if none is 0.
func andChain(fs []evalFn) evalFn {
	switch len(fs) {
	case 2:
		a, b := fs[0], fs[1]
		return func(m *machine) int64 { return boolInt(a(m) != 0 && b(m) != 0) }
	case 3:
		a, b, c := fs[0], fs[1], fs[2]
		return func(m *machine) int64 { return boolInt(a(m) != 0 && b(m) != 0 && c(m) != 0) }
	}
	return func(m *machine) int64 {
		for _, f := range fs {
			if f(m) == 0 {
				return 0
			}
		}
		return 1
	}
}

// truth is c as a truth value (0 or 1): c itself when the expression is
// one already.
func truth(e lang.Expr, c cexpr) cexpr {
	if isTruth(e) {
		return c
	}
	f := c.f
	return cexpr{f: func(m *machine) int64 { return boolInt(f(m) != 0) }, dyn: c.dyn}
}

// isTruth reports whether e always evaluates to 0 or 1: a comparison, a
// logical operator or a boolean literal.
func isTruth(e lang.Expr) bool {
	switch e := e.(type) {
	case *lang.BoolLit:
		return true
	case *lang.UnaryExpr:
		return e.Op == "!"
	case *lang.BinaryExpr:
		switch e.Op {
		case "==", "!=", "<", "<=", ">", ">=", "&&", "||":
			return true
		}
	}
	return false
}

// fold evaluates a constant expression now.
func (p *Program) fold(c cexpr, konst bool) cexpr {
	if !konst {
		return c
	}
	var m machine
	v := c.f(&m)
	if m.err != nil {
		return c // keep the error for run time, where it carries the trace
	}
	return constExpr(v)
}

// setValues evaluates an index set with the given environment (nil: it
// must be constant).
func (p *Program) setValues(s *lang.IndexSet, sc *scope, env []int64) ([]int64, error) {
	eval := func(e lang.Expr) (int64, error) {
		c, err := p.expr(e, sc)
		if err != nil {
			return 0, err
		}
		if c.dyn {
			return 0, errAt(e, "index set must not depend on variables")
		}
		if env == nil && !c.konst {
			return 0, errEnvIndex
		}
		m := machine{env: env}
		v := c.f(&m)
		if m.err != nil {
			return 0, m.err
		}
		return v, nil
	}
	var out []int64
	if s.Range != nil {
		lo, err := eval(s.Range.Lo)
		if err != nil {
			return nil, err
		}
		hi, err := eval(s.Range.Hi)
		if err != nil {
			return nil, err
		}
		if hi-lo > 1<<16 {
			return nil, errAt(s, "index set too large")
		}
		for v := lo; v <= hi; v++ {
			out = append(out, v)
		}
		return out, nil
	}
	for _, e := range s.Elems {
		v, err := eval(e)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (p *Program) ident(id *lang.Ident, sc *scope) (cexpr, error) {
	sym := p.symOf(id)
	if sym == nil {
		if def := p.info.Macros[id.Name]; def != nil && len(def.Params) == 0 {
			return p.expr(def.Value, sc)
		}
		return cexpr{}, errAt(id, "unresolved name %s", id.Name)
	}
	if c, ok := sc.subst[sym]; ok {
		return c, nil
	}
	if sc.konstEnv != nil {
		if slot, ok := sc.konstEnv[sym]; ok && slot < len(sc.konst) {
			return constExpr(sc.konst[slot]), nil
		}
	}
	switch sym.Kind {
	case lang.SymConst, lang.SymEnum:
		return constExpr(sym.Value), nil
	case lang.SymProp:
		def := p.info.Macros[sym.Name]
		if def == nil {
			return cexpr{}, errAt(id, "undefined proposition %s", sym.Name)
		}
		return p.expr(def.Value, sc)
	case lang.SymVar:
		vi := p.info.Vars[sym.Slot]
		if vi.Dims != nil {
			return cexpr{}, errAt(id, "array %s used without an index", id.Name)
		}
		return linExpr(p.varBase[sym.Slot], 1, 0), nil
	case lang.SymLocal:
		slot, ok := sc.locals[sym]
		if !ok {
			return cexpr{}, errAt(id, "local %s used outside its block", id.Name)
		}
		return cexpr{f: func(m *machine) int64 { return m.locals[slot] }, dyn: true}, nil
	case lang.SymParam, lang.SymIndex, lang.SymInput:
		slot, ok := sc.env[sym]
		if !ok {
			return cexpr{}, errAt(id, "%s is not bound here", id.Name)
		}
		if sc.rec != nil && slot < 64 {
			*sc.rec |= 1 << slot
		}
		return envExpr(slot), nil
	}
	return cexpr{}, errAt(id, "%s cannot be used as a value", id.Name)
}

// lvalue locates a variable element: a global (vars) or a local (locals),
// with a flattened offset computed at run time.
type lvalue struct {
	local  bool
	base   int
	offset evalFn // nil for a scalar
	slot   int    // Info.Vars index for globals (range checks, names)
	dyn    bool
	fixed  bool  // a constant in-range index: base is the element's slot
	ish    shape // a global's one index with a lin shape (offset reads it)
	dims1  int64
	pos1   lang.Pos
	name   string
}

// access resolves a[i][j] or x into its storage.
func (p *Program) access(e lang.Expr, sc *scope) (lvalue, error) {
	// The indices in the order written (a[i][j]: i, then j), collected
	// into a small array: a short check compiles many accesses when it
	// builds its templates (Program.specialize), and the three slices
	// made here for each were about a tenth of that.
	var idxBuf [4]lang.Expr
	n := 0
	for x := e; ; {
		ie, ok := x.(*lang.IndexExpr)
		if !ok {
			break
		}
		n++
		x = ie.X
	}
	idx := idxBuf[:0]
	if n > len(idxBuf) {
		idx = make([]lang.Expr, 0, n)
	}
	idx = idx[:n]
	x := e
	for k := n - 1; k >= 0; k-- {
		ie := x.(*lang.IndexExpr)
		idx[k] = ie.Index
		x = ie.X
	}
	id, ok := x.(*lang.Ident)
	if !ok {
		return lvalue{}, errAt(e, "expected a variable")
	}
	sym := p.symOf(id)
	if sym == nil {
		return lvalue{}, errAt(id, "unresolved name %s", id.Name)
	}
	var lv lvalue
	var dims []int
	switch sym.Kind {
	case lang.SymVar:
		vi := p.info.Vars[sym.Slot]
		lv = lvalue{base: p.varBase[sym.Slot], slot: sym.Slot}
		dims = vi.Dims
	case lang.SymLocal:
		slot, ok := sc.locals[sym]
		if !ok {
			return lvalue{}, errAt(id, "local %s used outside its block", id.Name)
		}
		lv = lvalue{local: true, base: slot, slot: -1}
		dims = p.localDims[sym]
	default:
		return lvalue{}, errAt(id, "%s is not a variable", id.Name)
	}
	if len(idx) != len(dims) {
		return lvalue{}, errAt(e, "%s has %d dimensions, found %d indices", id.Name, len(dims), len(idx))
	}
	if len(idx) == 0 {
		return lv, nil
	}
	var fsBuf [4]evalFn
	var posBuf [4]lang.Pos
	fs, pos := fsBuf[:], posBuf[:]
	if len(idx) > len(fsBuf) {
		fs, pos = make([]evalFn, len(idx)), make([]lang.Pos, len(idx))
	}
	fs, pos = fs[:len(idx):len(idx)], pos[:len(idx):len(idx)]
	var c0 cexpr // the first index, compiled
	for i, ix := range idx {
		c, err := p.expr(ix, sc)
		if err != nil {
			return lv, err
		}
		if i == 0 {
			c0 = c
		}
		fs[i] = c.f
		pos[i] = ix.Pos()
		lv.dyn = lv.dyn || c.dyn
	}
	name := id.Name
	if len(idx) == 1 {
		if c := c0; c.konst && c.val >= 0 && c.val < int64(dims[0]) {
			// A constant index in range: a fixed slot.
			lv.fixed, lv.base = true, lv.base+int(c.val)
			return lv, nil
		}
	}
	if len(fs) == 1 && !lv.local {
		if c := c0; c.sh.kind == shLin {
			lv.ish = c.sh
			lv.offset = offsetFn(c.sh, int64(dims[0]), pos[0], name)
			lv.dims1 = int64(dims[0])
			lv.pos1 = pos[0]
			lv.name = name
			return lv, nil
		}
	}
	if len(fs) == 1 && !lv.local && c0.sh.kind == shEnv {
		lv.ish = c0.sh
		lv.dims1, lv.pos1, lv.name = int64(dims[0]), pos[0], name
		lv.offset = envOffsetFn(c0.sh.slot, lv.dims1, lv.pos1, name)
		return lv, nil
	}
	if len(fs) == 1 {
		// The common one-dimensional case, without the loop.
		f, d, pos0 := fs[0], int64(dims[0]), pos[0]
		lv.offset = func(m *machine) int64 {
			v := f(m)
			if uint64(v) >= uint64(d) {
				m.fail(pos0, "index %d out of range [0, %d) of %s", v, d, name)
				return 0
			}
			return v
		}
		return lv, nil
	}
	// Several dimensions: the closure keeps copies (fs and pos may be
	// the arrays above).
	fsc, posc := append([]evalFn(nil), fs...), append([]lang.Pos(nil), pos...)
	lv.offset = func(m *machine) int64 {
		var off int64
		for i, f := range fsc {
			v := f(m)
			if v < 0 || v >= int64(dims[i]) {
				m.fail(posc[i], "index %d out of range [0, %d) of %s", v, dims[i], name)
				return 0
			}
			off = off*int64(dims[i]) + v
		}
		return off
	}
	return lv, nil
}

func (p *Program) index(e *lang.IndexExpr, sc *scope) (cexpr, error) {
	if id, ok := e.X.(*lang.Ident); ok {
		if sym := p.symOf(id); sym != nil && sym.Kind == lang.SymParam {
			return p.paramIndex(e, id, sym, sc)
		}
	}
	lv, err := p.access(e, sc)
	if err != nil {
		return cexpr{}, err
	}
	base, off := lv.base, lv.offset
	if lv.fixed {
		if lv.local {
			return cexpr{f: func(m *machine) int64 { return m.locals[base] }, dyn: true}, nil
		}
		return linExpr(base, 1, 0), nil
	}
	if lv.ish.kind == shLin {
		return indExpr(base, lv.ish, lv.dims1, lv.pos1, lv.name), nil
	}
	if lv.ish.kind == shEnv {
		return envIndExpr(base, lv.ish.slot, lv.dims1, lv.pos1, lv.name), nil
	}
	if lv.local {
		return cexpr{f: func(m *machine) int64 { return m.locals[base+int(off(m))] }, dyn: true}, nil
	}
	return cexpr{f: func(m *machine) int64 { return m.vars[base+int(off(m))] }, dyn: true}, nil
}

// paramIndex compiles arr[i] for an array parameter arr, whose elements
// are n env slots from base on.
func (p *Program) paramIndex(e *lang.IndexExpr, id *lang.Ident, sym *lang.Symbol, sc *scope) (cexpr, error) {
	base, ok := sc.env[sym]
	n := p.info.ParamLens[sym.Decl.(*lang.Ident)]
	if !ok || n == 0 {
		return cexpr{}, errAt(id, "%s is not an array parameter bound here", id.Name)
	}
	ix, err := p.expr(e.Index, sc)
	if err != nil {
		return cexpr{}, err
	}
	if ix.konst {
		if ix.val < 0 || ix.val >= int64(n) {
			return cexpr{}, errAt(e.Index, "index %d out of range [0, %d) of %s", ix.val, n, id.Name)
		}
		slot := base + int(ix.val)
		if sc.rec != nil && slot < 64 {
			*sc.rec |= 1 << slot
		}
		return cexpr{f: func(m *machine) int64 { return m.env[slot] }}, nil
	}
	if sc.rec != nil {
		for k := base; k < base+n && k < 64; k++ {
			*sc.rec |= 1 << k
		}
	}
	f, pos, name := ix.f, e.Index.Pos(), id.Name
	return cexpr{f: func(m *machine) int64 {
		v := f(m)
		if uint64(v) >= uint64(n) {
			m.fail(pos, "index %d out of range [0, %d) of %s", v, n, name)
			return 0
		}
		return m.env[base+int(v)]
	}, dyn: ix.dyn}, nil
}

func (p *Program) binary(e *lang.BinaryExpr, sc *scope) (cexpr, error) {
	x, err := p.expr(e.X, sc)
	if err != nil {
		return x, err
	}
	if and := e.Op == "&&"; (and || e.Op == "||") && x.konst && (x.val != 0) != and && sc.konst != nil && !sc.effects && !shapesOff {
		// false && y, true || y, in a guard or event datum compiled for
		// one environment (Program.specialize): y is never evaluated, so
		// it is not compiled either (what logic would return, without
		// the cost of y: in a short check, compiling guards is a large
		// part of the time, and [] v:{1..V} makes many such operands).
		return constExpr(boolInt(!and)), nil
	}
	y, err := p.expr(e.Y, sc)
	if err != nil {
		return y, err
	}
	xf, yf := x.f, y.f
	pos := e.Pos()
	var f evalFn
	switch {
	case y.konst && !x.konst && x.sh.kind == shLin:
		if c, ok := linArith(e.Op, x.sh, y.val, false); ok {
			return c, nil
		}
	case x.konst && !y.konst && y.sh.kind == shLin:
		if c, ok := linArith(e.Op, y.sh, x.val, true); ok {
			return c, nil
		}
	case y.konst && !x.konst && x.sh.kind == shInd:
		if c, ok := indAdd(e.Op, x, y.val, false); ok {
			return c, nil
		}
	case x.konst && !y.konst && y.sh.kind == shInd:
		if c, ok := indAdd(e.Op, y, x.val, true); ok {
			return c, nil
		}
	}
	var key *condKey
	switch {
	case y.konst && !x.konst:
		f = cmpConst(e.Op, x.sh, y.val)
		key = &condKey{op: e.Op, x: keyOf(x.sh), c: y.val}
	case x.konst && !y.konst:
		f = cmpConst(flipCmp(e.Op), y.sh, x.val)
		key = &condKey{op: flipCmp(e.Op), x: keyOf(y.sh), c: x.val}
	case !x.konst && !y.konst:
		f = cmpVars(e.Op, x.sh, y.sh)
		key = &condKey{op: e.Op, x: keyOf(x.sh), y: keyOf(y.sh)}
	}
	if f != nil {
		return cexpr{f: f, dyn: true, key: key}, nil
	}
	if (e.Op == "&&" || e.Op == "||") && !shapesOff {
		if c, ok := logic(e, x, y); ok {
			return c, nil
		}
	}
	if y.konst && !x.konst {
		// A constant right operand saves a closure call per evaluation.
		c := y.val
		switch e.Op {
		case "+":
			f = func(m *machine) int64 { return lang.Wrap32(xf(m) + c) }
		case "-":
			f = func(m *machine) int64 { return lang.Wrap32(xf(m) - c) }
		case "*":
			f = func(m *machine) int64 { return lang.Wrap32(xf(m) * c) }
		case "==":
			f = func(m *machine) int64 { return boolInt(xf(m) == c) }
		case "!=":
			f = func(m *machine) int64 { return boolInt(xf(m) != c) }
		case "<":
			f = func(m *machine) int64 { return boolInt(xf(m) < c) }
		case "<=":
			f = func(m *machine) int64 { return boolInt(xf(m) <= c) }
		case ">":
			f = func(m *machine) int64 { return boolInt(xf(m) > c) }
		case ">=":
			f = func(m *machine) int64 { return boolInt(xf(m) >= c) }
		}
		if f != nil {
			return cexpr{f: f, dyn: x.dyn}, nil
		}
	}
	switch e.Op {
	case "&&":
		f = func(m *machine) int64 { return boolInt(xf(m) != 0 && yf(m) != 0) }
	case "||":
		f = func(m *machine) int64 { return boolInt(xf(m) != 0 || yf(m) != 0) }
	case "==":
		f = func(m *machine) int64 { return boolInt(xf(m) == yf(m)) }
	case "!=":
		f = func(m *machine) int64 { return boolInt(xf(m) != yf(m)) }
	case "<":
		f = func(m *machine) int64 { return boolInt(xf(m) < yf(m)) }
	case "<=":
		f = func(m *machine) int64 { return boolInt(xf(m) <= yf(m)) }
	case ">":
		f = func(m *machine) int64 { return boolInt(xf(m) > yf(m)) }
	case ">=":
		f = func(m *machine) int64 { return boolInt(xf(m) >= yf(m)) }
	case "+":
		f = func(m *machine) int64 { return lang.Wrap32(xf(m) + yf(m)) }
	case "-":
		f = func(m *machine) int64 { return lang.Wrap32(xf(m) - yf(m)) }
	case "*":
		f = func(m *machine) int64 { return lang.Wrap32(xf(m) * yf(m)) }
	case "/":
		f = func(m *machine) int64 {
			a, b := xf(m), yf(m)
			if b == 0 {
				m.fail(pos, "division by zero")
				return 0
			}
			if b == -1 && a == math.MinInt32 {
				m.fail(pos, "overflow: %d / -1 is outside PAT's 32-bit int", a)
				return 0
			}
			return a / b
		}
	case "%":
		f = func(m *machine) int64 {
			a, b := xf(m), yf(m)
			if b == 0 {
				m.fail(pos, "division by zero")
				return 0
			}
			if b == -1 && a == math.MinInt32 {
				m.fail(pos, "overflow: %d %% -1 overflows in PAT's C# evaluator", a)
				return 0
			}
			return lang.Mod(a, b)
		}
	case "&":
		f = func(m *machine) int64 { return xf(m) & yf(m) }
	case "|":
		f = func(m *machine) int64 { return xf(m) | yf(m) }
	case "^", "xor":
		f = func(m *machine) int64 { return xf(m) ^ yf(m) }
	default:
		return cexpr{}, errAt(e, "unsupported operator %s", e.Op)
	}
	return p.fold(cexpr{f: f, dyn: x.dyn || y.dyn}, x.konst && y.konst), nil
}

// block compiles an event block. Locals get slots after the ones already
// in use by enclosing blocks (none: blocks do not nest across events).
func (p *Program) block(b *lang.Block, sc *scope) (execFn, error) {
	n := 0
	inner := *sc
	inner.locals = map[*lang.Symbol]int{}
	for k, v := range sc.locals {
		inner.locals[k] = v
	}
	inner.nloc = &n
	inner.effects = true
	f, err := p.stmts(b.Stmts, &inner)
	if err != nil {
		return nil, err
	}
	for {
		cur := p.maxLocals.Load()
		if int64(n) <= cur || p.maxLocals.CompareAndSwap(cur, int64(n)) {
			break
		}
	}
	return f, nil
}

func (p *Program) stmts(ss []lang.Stmt, sc *scope) (execFn, error) {
	fs := make([]execFn, 0, len(ss))
	for _, s := range ss {
		f, err := p.stmt(s, sc)
		if err != nil {
			return nil, err
		}
		if f != nil {
			fs = append(fs, f)
		}
	}
	switch len(fs) {
	case 0:
		return func(*machine) {}, nil
	case 1:
		return fs[0], nil
	}
	return func(m *machine) {
		for _, f := range fs {
			f(m)
			if m.err != nil {
				return
			}
		}
	}, nil
}

const maxLoop = 1 << 20

// stmt compiles a statement of an event block or block macro.
func (p *Program) stmt(s lang.Stmt, sc *scope) (execFn, error) {
	switch s := s.(type) {
	case *lang.Block:
		return p.stmts(s.Stmts, sc)
	case *lang.AssignStmt:
		return p.assignStmt(s, sc)
	case *lang.IncDecStmt:
		x, err := p.expr(s.LHS, sc)
		if err != nil {
			return nil, err
		}
		xf := x.f
		d := int64(1)
		if !s.Inc {
			d = -1
		}
		if x.sh.kind == shLin {
			if f := p.assignFast(s.LHS, linExpr(x.sh.slot, x.sh.a, x.sh.b+d), sc); f != nil {
				return f, nil
			}
		}
		if c, ok := indAdd("+", x, d, false); ok {
			if f := p.assignFast(s.LHS, c, sc); f != nil {
				return f, nil
			}
		}
		return p.assign(s.LHS, func(m *machine) int64 { return lang.Wrap32(xf(m) + d) }, sc, s.Pos())
	case *lang.LocalVarStmt:
		return p.localVar(s, sc)
	case *lang.IfStmt:
		return p.ifStmt(s, sc)
	case *lang.WhileStmt:
		return p.whileStmt(s, sc)
	case *lang.ExprStmt:
		if call, ok := s.X.(*lang.CallExpr); ok {
			if def := p.info.Macros[call.Func.Name]; def != nil && def.Block != nil && len(def.Params) == len(call.Args) {
				// A block macro as a statement: run for its effects.
				run, err := p.blockMacro(def, call, sc)
				if err != nil {
					return nil, err
				}
				return func(m *machine) { run(m) }, nil
			}
		}
		c, err := p.expr(s.X, sc)
		if err != nil {
			return nil, err
		}
		cf := c.f
		return func(m *machine) { cf(m) }, nil
	}
	return nil, errAt(s, "unsupported statement")
}

// assignStmt compiles x = e and x op= e.
func (p *Program) assignStmt(s *lang.AssignStmt, sc *scope) (execFn, error) {
	rhs, err := p.expr(s.RHS, sc)
	if err != nil {
		return nil, err
	}
	op := s.Op
	if op != "=" {
		// x op= e is x = x op e.
		bin := &lang.BinaryExpr{Span: s.Span, Op: op[:len(op)-1], X: s.LHS, Y: s.RHS}
		if rhs, err = p.binary(bin, sc); err != nil {
			return nil, err
		}
	}
	if f := p.assignFast(s.LHS, rhs, sc); f != nil {
		return f, nil
	}
	return p.assign(s.LHS, rhs.f, sc, s.Pos())
}

// localVar compiles var t = e; and var t[n] = [...];, giving the local its
// slots after the enclosing block's.
func (p *Program) localVar(s *lang.LocalVarStmt, sc *scope) (execFn, error) {
	sym := p.info.Defs[s.Name]
	if sym == nil {
		return nil, errAt(s.Name, "unresolved local %s", s.Name.Name)
	}
	size := 1
	var dims []int
	for _, d := range s.Dims {
		c, err := p.expr(d, sc)
		if err != nil {
			return nil, err
		}
		if !c.konst || c.val <= 0 {
			return nil, errAt(d, "array dimension must be a positive constant")
		}
		dims = append(dims, int(c.val))
		size *= int(c.val)
	}
	var init []evalFn
	if s.Init != nil {
		if al, ok := s.Init.(*lang.ArrayLit); ok {
			vals, err := p.arrayLit(al, sc)
			if err != nil {
				return nil, err
			}
			for _, v := range vals {
				init = append(init, v.f)
			}
			if dims == nil { // var t = [a, b, c]: the literal gives the size
				size = len(init)
				dims = []int{size}
			}
		} else {
			c, err := p.expr(s.Init, sc)
			if err != nil {
				return nil, err
			}
			init = []evalFn{c.f}
		}
	}
	slot := *sc.nloc
	*sc.nloc += size
	sc.locals[sym] = slot
	if dims != nil {
		p.localDims[sym] = dims
	}
	if len(init) > size {
		return nil, errAt(s, "too many initial values for %s", s.Name.Name)
	}
	return func(m *machine) {
		for i := 0; i < size; i++ {
			var v int64
			if i < len(init) {
				v = init[i](m)
			}
			m.locals[slot+i] = v
		}
	}, nil
}

// ifStmt compiles if (c) {...} else ....
func (p *Program) ifStmt(s *lang.IfStmt, sc *scope) (execFn, error) {
	c, err := p.expr(s.Cond, sc)
	if err != nil {
		return nil, err
	}
	th, err := p.stmts(s.Then.Stmts, sc)
	if err != nil {
		return nil, err
	}
	el := func(*machine) {}
	if s.Else != nil {
		if el, err = p.stmt(s.Else, sc); err != nil {
			return nil, err
		}
	}
	cf := c.f
	return func(m *machine) {
		v := cf(m)
		if m.err != nil {
			return
		}
		if v != 0 {
			th(m)
		} else {
			el(m)
		}
	}, nil
}

// whileStmt compiles while (c) {...}; more than maxLoop iterations is a
// run-time error.
func (p *Program) whileStmt(s *lang.WhileStmt, sc *scope) (execFn, error) {
	c, err := p.expr(s.Cond, sc)
	if err != nil {
		return nil, err
	}
	body, err := p.stmts(s.Body.Stmts, sc)
	if err != nil {
		return nil, err
	}
	cf := c.f
	pos := s.Pos()
	return func(m *machine) {
		for n := 0; ; n++ {
			if cf(m) == 0 || m.err != nil {
				return
			}
			if n > maxLoop {
				m.fail(pos, "while loop did not terminate after %d iterations", maxLoop)
				return
			}
			body(m)
			if m.err != nil {
				return
			}
		}
	}, nil
}

// assign stores the value of rhs into lhs, checking declared ranges.
func (p *Program) assign(lhs lang.Expr, rhs evalFn, sc *scope, pos lang.Pos) (execFn, error) {
	lv, err := p.access(lhs, sc)
	if err != nil {
		return nil, err
	}
	base, off := lv.base, lv.offset
	if lv.fixed {
		off = nil
	}
	if lv.local {
		if off == nil {
			return func(m *machine) { m.locals[base] = rhs(m) }, nil
		}
		return func(m *machine) {
			v := rhs(m)
			o := off(m)
			if m.err == nil {
				m.locals[base+int(o)] = v
			}
		}, nil
	}
	vi := p.info.Vars[lv.slot]
	name := vi.Decl.Name.Name
	if vi.Ranged {
		lo, hi := vi.Lo, vi.Hi
		if off == nil {
			return func(m *machine) {
				v := rhs(m)
				if v < lo || v > hi {
					m.fail(pos, "value %d of %s outside its range {%d..%d}", v, name, lo, hi)
					return
				}
				m.set(base, v)
			}, nil
		}
		return func(m *machine) {
			v := rhs(m)
			o := off(m)
			if m.err != nil {
				return
			}
			if v < lo || v > hi {
				m.fail(pos, "value %d of %s outside its range {%d..%d}", v, name, lo, hi)
				return
			}
			m.set(base+int(o), v)
		}, nil
	}
	if off == nil {
		return func(m *machine) { m.set(base, rhs(m)) }, nil
	}
	return func(m *machine) {
		v := rhs(m)
		o := off(m)
		if m.err == nil {
			m.set(base+int(o), v)
		}
	}, nil
}

// arrayLit flattens an array initialiser.
func (p *Program) arrayLit(al *lang.ArrayLit, sc *scope) ([]cexpr, error) {
	var out []cexpr
	for _, el := range al.Elems {
		if sub, ok := el.Value.(*lang.ArrayLit); ok {
			vs, err := p.arrayLit(sub, sc)
			if err != nil {
				return nil, err
			}
			out = append(out, vs...)
			continue
		}
		v, err := p.expr(el.Value, sc)
		if err != nil {
			return nil, err
		}
		switch {
		case el.Count != nil:
			n, err := p.expr(el.Count, sc)
			if err != nil {
				return nil, err
			}
			if !n.konst || n.val < 0 || n.val > 1<<20 {
				return nil, errAt(el.Count, "repetition count must be a small constant")
			}
			for i := int64(0); i < n.val; i++ {
				out = append(out, v)
			}
		case el.To != nil:
			to, err := p.expr(el.To, sc)
			if err != nil {
				return nil, err
			}
			if !v.konst || !to.konst {
				return nil, errAt(el, "range bounds must be constants")
			}
			step := int64(1)
			if to.val < v.val {
				step = -1
			}
			for x := v.val; ; x += step {
				out = append(out, constExpr(x))
				if x == to.val {
					break
				}
			}
		default:
			out = append(out, v)
		}
	}
	return out, nil
}
