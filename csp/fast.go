package csp

import "github.com/quasar-verify/quasar/lang"

// This file specialises the closures of the commonest expression shapes.
// A guard such as q[seg[i]*S + k] == 0 (i and k constants once the term's
// environment is known) compiled operator by operator is a tree of six
// closures; the exploration spends most of its compute time calling them.
// Expressions remember their shape when it is one of
//
//	lin: a*vars[slot] + b                      (a variable, seg[i]*S + k)
//	ind: vars[base + a*vars[slot] + b]          (q[seg[i]*S + k])
//
// and operators over these shapes and constants build one closure that
// reads the variables directly. Errors (an index out of range) are
// reported exactly as the generic closures report them.

// shapesOff makes every expression compile to the generic closures: the
// tests compare the two compilations.
var shapesOff bool

type shapeKind uint8

const (
	shNone shapeKind = iota
	shLin
	shInd
	// shEnv: env[slot], a parameter or bound index of the term (in a
	// block that is not specialised to its environment).
	shEnv
	// shIndAdd: vars[base + a*vars[slot] + b] + c, the right side of an
	// increment a[i] = a[i] + c.
	shIndAdd
)

// shape describes a global-variable expression; only cexprs of kind
// shLin or shInd carry one.
type shape struct {
	kind shapeKind
	slot int
	a, b int64
	// shInd: the array's first slot, its length, and what an index out of
	// range reports.
	base int
	d    int64
	pos  lang.Pos
	name string
	// shIndAdd: the constant added.
	c int64
}

func linExpr(slot int, a, b int64) cexpr {
	if shapesOff {
		return cexpr{f: func(m *machine) int64 { return lang.Wrap32(a*m.vars[slot] + b) }, dyn: true}
	}
	var f evalFn
	switch {
	case a == 1 && b == 0:
		f = func(m *machine) int64 { return m.vars[slot] }
	case b == 0:
		f = func(m *machine) int64 { return lang.Wrap32(a * m.vars[slot]) }
	default:
		f = func(m *machine) int64 { return lang.Wrap32(a*m.vars[slot] + b) }
	}
	return cexpr{f: f, dyn: true, sh: shape{kind: shLin, slot: slot, a: a, b: b}}
}

// offsetFn is the checked offset closure of a one-dimensional index with a
// lin shape.
func offsetFn(ix shape, d int64, pos lang.Pos, name string) evalFn {
	s, a, b := ix.slot, ix.a, ix.b
	return func(m *machine) int64 {
		v := lang.Wrap32(a*m.vars[s] + b)
		if uint64(v) >= uint64(d) {
			m.fail(pos, "index %d out of range [0, %d) of %s", v, d, name)
			return 0
		}
		return v
	}
}

func indExpr(base int, ix shape, d int64, pos lang.Pos, name string) cexpr {
	s, a, b := ix.slot, ix.a, ix.b
	f := func(m *machine) int64 {
		v := lang.Wrap32(a*m.vars[s] + b)
		if uint64(v) >= uint64(d) {
			m.fail(pos, "index %d out of range [0, %d) of %s", v, d, name)
			return 0
		}
		return m.vars[base+int(v)]
	}
	return cexpr{f: f, dyn: true, sh: shape{kind: shInd, slot: s, a: a, b: b, base: base, d: d, pos: pos, name: name}}
}

// linArith combines a lin shape with a constant: x+c, x-c, x*c, c+x, c*x.
func linArith(op string, x shape, c int64, constLeft bool) (cexpr, bool) {
	switch {
	case op == "+":
		return linExpr(x.slot, x.a, x.b+c), true
	case op == "-" && !constLeft:
		return linExpr(x.slot, x.a, x.b-c), true
	case op == "-" && constLeft:
		return linExpr(x.slot, -x.a, c-x.b), true
	case op == "*":
		return linExpr(x.slot, x.a*c, x.b*c), true
	}
	return cexpr{}, false
}

// cmpConst compiles x op c for a shaped x, or returns nil.
func cmpConst(op string, x shape, c int64) evalFn {
	s, a, b := x.slot, x.a, x.b
	if x.kind == shLin {
		switch op {
		case "==":
			return func(m *machine) int64 { return boolInt(lang.Wrap32(a*m.vars[s]+b) == c) }
		case "!=":
			return func(m *machine) int64 { return boolInt(lang.Wrap32(a*m.vars[s]+b) != c) }
		case "<":
			return func(m *machine) int64 { return boolInt(lang.Wrap32(a*m.vars[s]+b) < c) }
		case "<=":
			return func(m *machine) int64 { return boolInt(lang.Wrap32(a*m.vars[s]+b) <= c) }
		case ">":
			return func(m *machine) int64 { return boolInt(lang.Wrap32(a*m.vars[s]+b) > c) }
		case ">=":
			return func(m *machine) int64 { return boolInt(lang.Wrap32(a*m.vars[s]+b) >= c) }
		}
		return nil
	}
	if x.kind != shInd {
		return nil
	}
	base, d, pos, name := x.base, x.d, x.pos, x.name
	// load is inlined by the compiler into each closure below.
	load := func(m *machine) (int64, bool) {
		v := lang.Wrap32(a*m.vars[s] + b)
		if uint64(v) >= uint64(d) {
			m.fail(pos, "index %d out of range [0, %d) of %s", v, d, name)
			return 0, false
		}
		return m.vars[base+int(v)], true
	}
	switch op {
	case "==":
		return func(m *machine) int64 { v, ok := load(m); return boolInt(ok && v == c) }
	case "!=":
		return func(m *machine) int64 { v, ok := load(m); return boolInt(ok && v != c) }
	case "<":
		return func(m *machine) int64 { v, ok := load(m); return boolInt(ok && v < c) }
	case "<=":
		return func(m *machine) int64 { v, ok := load(m); return boolInt(ok && v <= c) }
	case ">":
		return func(m *machine) int64 { v, ok := load(m); return boolInt(ok && v > c) }
	case ">=":
		return func(m *machine) int64 { v, ok := load(m); return boolInt(ok && v >= c) }
	}
	return nil
}

// cmpVars compiles vars[x] op vars[y] for two plain variables, or returns
// nil.
func cmpVars(op string, x, y shape) evalFn {
	if x.kind != shLin || y.kind != shLin || x.a != 1 || x.b != 0 || y.a != 1 || y.b != 0 {
		return nil
	}
	i, j := x.slot, y.slot
	switch op {
	case "==":
		return func(m *machine) int64 { return boolInt(m.vars[i] == m.vars[j]) }
	case "!=":
		return func(m *machine) int64 { return boolInt(m.vars[i] != m.vars[j]) }
	case "<":
		return func(m *machine) int64 { return boolInt(m.vars[i] < m.vars[j]) }
	case "<=":
		return func(m *machine) int64 { return boolInt(m.vars[i] <= m.vars[j]) }
	case ">":
		return func(m *machine) int64 { return boolInt(m.vars[i] > m.vars[j]) }
	case ">=":
		return func(m *machine) int64 { return boolInt(m.vars[i] >= m.vars[j]) }
	}
	return nil
}

// flipCmp is the comparison with its operands swapped (c < x is x > c).
func flipCmp(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// assignFast compiles lhs = rhs into one closure when lhs is a global
// without a declared range, scalar or indexed with a lin shape, and rhs is
// a constant or shaped; otherwise it returns nil.
func (p *Program) assignFast(lhs lang.Expr, rhs cexpr, sc *scope) execFn {
	if shapesOff || !rhs.konst && rhs.sh.kind == shNone {
		return nil
	}
	lv, err := p.access(lhs, sc)
	if err != nil || lv.local || p.info.Vars[lv.slot].Ranged {
		return nil
	}
	if lv.offset != nil && !lv.fixed && lv.ish.kind != shLin && lv.ish.kind != shEnv {
		return nil
	}
	dst := lv.base
	if lv.offset == nil || lv.fixed {
		// A fixed slot.
		switch {
		case rhs.konst:
			c := rhs.val
			return func(m *machine) { m.set(dst, c) }
		case rhs.sh.kind == shLin:
			s, a, b := rhs.sh.slot, rhs.sh.a, rhs.sh.b
			return func(m *machine) { m.set(dst, lang.Wrap32(a*m.vars[s]+b)) }
		}
		f := rhs.f
		return func(m *machine) { m.set(dst, f(m)) }
	}
	if lv.ish.kind == shEnv {
		return envAssign(dst, lv.ish.slot, lv.dims1, lv.pos1, lv.name, rhs)
	}
	// An element at a lin offset.
	s, a, b, d, pos, name := lv.ish.slot, lv.ish.a, lv.ish.b, lv.dims1, lv.pos1, lv.name
	if r := rhs.sh; r.kind == shIndAdd && r.slot == s && r.a == a && r.b == b && r.base == dst && r.d == d {
		// a[i] = a[i] + c: the right side's index is the left side's,
		// checked once; out of range, the right side's error is the one
		// reported, as by the generic closures (it is evaluated first).
		c, rpos, rname := r.c, r.pos, r.name
		return func(m *machine) {
			v := lang.Wrap32(a*m.vars[s] + b)
			if uint64(v) >= uint64(d) {
				m.fail(rpos, "index %d out of range [0, %d) of %s", v, d, rname)
				return
			}
			m.set(dst+int(v), lang.Wrap32(m.vars[dst+int(v)]+c))
		}
	}
	if rhs.konst {
		c := rhs.val
		return func(m *machine) {
			v := lang.Wrap32(a*m.vars[s] + b)
			if uint64(v) >= uint64(d) {
				m.fail(pos, "index %d out of range [0, %d) of %s", v, d, name)
				return
			}
			m.set(dst+int(v), c)
		}
	}
	f := rhs.f
	return func(m *machine) {
		x := f(m)
		v := lang.Wrap32(a*m.vars[s] + b)
		if uint64(v) >= uint64(d) {
			m.fail(pos, "index %d out of range [0, %d) of %s", v, d, name)
			return
		}
		if m.err == nil {
			m.set(dst+int(v), x)
		}
	}
}

// envExpr reads env[slot] (a term's parameter or bound index).
func envExpr(slot int) cexpr {
	f := func(m *machine) int64 { return m.env[slot] }
	if shapesOff {
		return cexpr{f: f}
	}
	return cexpr{f: f, sh: shape{kind: shEnv, slot: slot}}
}

// envOffsetFn is the checked offset closure of a one-dimensional index
// that is an env slot.
func envOffsetFn(s int, d int64, pos lang.Pos, name string) evalFn {
	return func(m *machine) int64 {
		v := m.env[s]
		if uint64(v) >= uint64(d) {
			m.fail(pos, "index %d out of range [0, %d) of %s", v, d, name)
			return 0
		}
		return v
	}
}

// envIndExpr reads vars[base + env[s]], checked.
func envIndExpr(base, s int, d int64, pos lang.Pos, name string) cexpr {
	return cexpr{f: func(m *machine) int64 {
		v := m.env[s]
		if uint64(v) >= uint64(d) {
			m.fail(pos, "index %d out of range [0, %d) of %s", v, d, name)
			return 0
		}
		return m.vars[base+int(v)]
	}, dyn: true}
}

// indAdd is x + c (x - c when op is "-") for x of shape shInd, or false.
// Its closure computes what the generic one computes; its shape lets
// assignFast fuse a[i] = a[i] + c into one closure.
func indAdd(op string, x cexpr, c int64, constLeft bool) (cexpr, bool) {
	if shapesOff || x.sh.kind != shInd {
		return cexpr{}, false
	}
	switch {
	case op == "+":
	case op == "-" && !constLeft:
		c = -c
	default:
		return cexpr{}, false
	}
	sh := x.sh
	sh.kind, sh.c = shIndAdd, c
	s, a, b, base, d, pos, name := sh.slot, sh.a, sh.b, sh.base, sh.d, sh.pos, sh.name
	f := func(m *machine) int64 {
		v := lang.Wrap32(a*m.vars[s] + b)
		if uint64(v) >= uint64(d) {
			m.fail(pos, "index %d out of range [0, %d) of %s", v, d, name)
			return 0
		}
		return lang.Wrap32(m.vars[base+int(v)] + c)
	}
	return cexpr{f: f, dyn: true, sh: sh}, true
}

// envAssign compiles vars[dst + env[s]] = rhs, checked as the generic
// assign does: the right side first, then the index, and no write after
// an error.
func envAssign(dst, s int, d int64, pos lang.Pos, name string, rhs cexpr) execFn {
	if rhs.konst {
		c := rhs.val
		return func(m *machine) {
			v := m.env[s]
			if uint64(v) >= uint64(d) {
				m.fail(pos, "index %d out of range [0, %d) of %s", v, d, name)
				return
			}
			m.set(dst+int(v), c)
		}
	}
	f := rhs.f
	return func(m *machine) {
		x := f(m)
		v := m.env[s]
		if uint64(v) >= uint64(d) {
			m.fail(pos, "index %d out of range [0, %d) of %s", v, d, name)
			return
		}
		if m.err == nil {
			m.set(dst+int(v), x)
		}
	}
}
