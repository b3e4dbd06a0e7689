package csp

import (
	"github.com/quasar-verify/quasar/lang"
)

// valueFn runs compiled statements and returns the value they leave, if
// any (ok false: the statements end without a value).
type valueFn func(m *machine) (v int64, ok bool)

// blockMacro compiles call(f, args) where f's body is a statement block,
// `#define clamp(v) { var r = v; if (r > 9) { r = 9; } r };`. The arguments
// are evaluated in the caller's frame; the block then runs in a frame of
// its own (the parameters, then its locals), so it is the same whether it
// is called from a guard, an event's data or an event block. Its value is
// that of its last statement, as in PAT's evaluator: a sequence is worth
// its second part, an assignment its right side (the variable's new
// value), an `if` the branch taken; a block that ends otherwise (a loop, a
// declaration, an `if` whose branch is missing) has no value, a run-time
// error where the value is used.
func (p *Program) blockMacro(def *lang.DefineDecl, e *lang.CallExpr, sc *scope) (valueFn, error) {
	args := make([]evalFn, len(e.Args))
	for i, a := range e.Args {
		c, err := p.expr(a, sc)
		if err != nil {
			return nil, err
		}
		args[i] = c.f
	}
	if !sc.effects && p.macroWrites(def) {
		return nil, errAt(e, "macro %s assigns global variables: call it only in an event block", e.Func.Name)
	}
	n := 0
	inner := &scope{locals: map[*lang.Symbol]int{}, env: map[*lang.Symbol]int{}, nloc: &n, effects: sc.effects}
	for _, prm := range def.Params {
		sym := p.info.Defs[prm]
		if sym == nil {
			return nil, errAt(prm, "unresolved macro parameter %s", prm.Name)
		}
		slot := n
		n++
		inner = inner.with(sym, cexpr{f: func(m *machine) int64 { return m.locals[slot] }, dyn: true})
	}
	body, err := p.valueStmts(def.Block.Stmts, inner)
	if err != nil {
		return nil, err
	}
	return func(m *machine) (int64, bool) {
		frame := make([]int64, n)
		for i, a := range args {
			frame[i] = a(m)
		}
		if m.err != nil {
			return 0, false
		}
		saved := m.locals
		m.locals = frame
		v, ok := body(m)
		m.locals = saved
		return v, ok
	}, nil
}

// blockMacroExpr is a block macro used as an expression.
func (p *Program) blockMacroExpr(def *lang.DefineDecl, e *lang.CallExpr, sc *scope) (cexpr, error) {
	run, err := p.blockMacro(def, e, sc)
	if err != nil {
		return cexpr{}, err
	}
	pos, name := e.Pos(), e.Func.Name
	return cexpr{f: func(m *machine) int64 {
		v, ok := run(m)
		if !ok && m.err == nil {
			m.fail(pos, "macro %s ends without a value (its last statement is not an expression)", name)
		}
		return v
	}, dyn: true}, nil
}

// valueStmts compiles a statement list that yields the value of its last
// statement.
func (p *Program) valueStmts(ss []lang.Stmt, sc *scope) (valueFn, error) {
	if len(ss) == 0 {
		return func(*machine) (int64, bool) { return 0, false }, nil
	}
	init, err := p.stmts(ss[:len(ss)-1], sc)
	if err != nil {
		return nil, err
	}
	last, err := p.valueStmt(ss[len(ss)-1], sc)
	if err != nil {
		return nil, err
	}
	return func(m *machine) (int64, bool) {
		init(m)
		if m.err != nil {
			return 0, false
		}
		return last(m)
	}, nil
}

// valueStmt compiles one statement with its value (see blockMacro).
func (p *Program) valueStmt(s lang.Stmt, sc *scope) (valueFn, error) {
	switch s := s.(type) {
	case *lang.ExprStmt:
		c, err := p.expr(s.X, sc)
		if err != nil {
			return nil, err
		}
		f := c.f
		return func(m *machine) (int64, bool) { return f(m), true }, nil
	case *lang.Block:
		return p.valueStmts(s.Stmts, sc)
	case *lang.AssignStmt, *lang.IncDecStmt:
		var target lang.Expr
		if a, ok := s.(*lang.AssignStmt); ok {
			target = a.LHS
		} else {
			target = s.(*lang.IncDecStmt).LHS
		}
		run, err := p.stmt(s, sc)
		if err != nil {
			return nil, err
		}
		after, err := p.expr(target, sc)
		if err != nil {
			return nil, err
		}
		f := after.f
		return func(m *machine) (int64, bool) {
			run(m)
			if m.err != nil {
				return 0, false
			}
			return f(m), true
		}, nil
	case *lang.IfStmt:
		c, err := p.expr(s.Cond, sc)
		if err != nil {
			return nil, err
		}
		th, err := p.valueStmts(s.Then.Stmts, sc)
		if err != nil {
			return nil, err
		}
		el := valueFn(func(*machine) (int64, bool) { return 0, false })
		if s.Else != nil {
			if el, err = p.valueStmt(s.Else, sc); err != nil {
				return nil, err
			}
		}
		cf := c.f
		return func(m *machine) (int64, bool) {
			v := cf(m)
			if m.err != nil {
				return 0, false
			}
			if v != 0 {
				return th(m)
			}
			return el(m)
		}, nil
	}
	run, err := p.stmt(s, sc)
	if err != nil {
		return nil, err
	}
	return func(m *machine) (int64, bool) { run(m); return 0, false }, nil
}

// macroWrites reports whether the block of a macro assigns a global
// variable.
func (p *Program) macroWrites(def *lang.DefineDecl) bool {
	written := make([]bool, p.nslots)
	p.blockWrites(def.Block, written)
	for _, w := range written {
		if w {
			return true
		}
	}
	return false
}
