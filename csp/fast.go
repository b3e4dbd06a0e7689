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
	if lv.offset != nil && !lv.fixed && lv.ish.kind != shLin {
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
	// An element at a lin offset.
	s, a, b, d, pos, name := lv.ish.slot, lv.ish.a, lv.ish.b, lv.dims1, lv.pos1, lv.name
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
