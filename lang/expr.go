package lang

import "math"

// Expression checking: resolution, simple typing and constant folding.
// Constants are int64 holding PAT's 32-bit ints (booleans as 0/1), with
// PAT's arithmetic: + - * wrap around (Wrap32), / truncates toward zero and
// % is PAT's remainder (Mod).

func (c *checker) expr(e Expr, sc *scope) Type {
	if t, ok := c.info.Types[e]; ok {
		return t
	}
	t, v, ok := c.eval(e, sc)
	c.info.Types[e] = t
	if ok {
		c.info.Consts[e] = v
	}
	return t
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (c *checker) eval(e Expr, sc *scope) (Type, int64, bool) {
	switch x := e.(type) {
	case *IntLit:
		return TypeInt, x.Value, true
	case *BoolLit:
		return TypeBool, b2i(x.Value), true
	case *Ident:
		return c.identValue(x, sc)
	case *IndexExpr:
		return c.index(x, sc), 0, false
	case *UnaryExpr:
		t := c.expr(x.X, sc)
		v, ok := c.info.Consts[x.X]
		switch x.Op {
		case "!":
			if t == TypeInt {
				c.errorf(x.Pos(), "operator ! needs a boolean, found an integer")
			}
			return TypeBool, b2i(v == 0), ok
		case "-":
			if t == TypeBool {
				c.errorf(x.Pos(), "operator - needs an integer, found a boolean")
			}
			return TypeInt, Wrap32(-v), ok
		}
		return TypeUnknown, 0, false
	case *BinaryExpr:
		return c.binary(x, sc)
	case *CondExpr:
		c.cond(x.Cond, sc, "condition")
		tx, ty := c.expr(x.X, sc), c.expr(x.Y, sc)
		if tx != TypeUnknown && ty != TypeUnknown && tx != ty {
			c.errorf(x.Y.Pos(), "both branches of ?: must have the same type")
		}
		cv, cok := c.info.Consts[x.Cond]
		xv, xok := c.info.Consts[x.X]
		yv, yok := c.info.Consts[x.Y]
		if tx == TypeUnknown {
			tx = ty
		}
		if cok && cv != 0 {
			return tx, xv, xok
		}
		return tx, yv, cok && yok
	case *CallExpr:
		return c.call(x, sc), 0, false
	case *IndexedBoolExpr:
		inner := c.indexVars(x.Index, sc)
		c.cond(x.Body, inner, "operand of "+x.Op)
		return TypeBool, 0, false
	case *ArrayLit:
		c.errorf(x.Pos(), "array initialiser [..] not allowed here")
		return TypeArray, 0, false
	}
	return TypeUnknown, 0, false
}

func (c *checker) identValue(x *Ident, sc *scope) (Type, int64, bool) {
	sym := c.lookup(sc, x.Name)
	if sym == nil {
		c.undefined(x, sc, func(s *Symbol) bool { return s.Kind != SymProc && s.Kind != SymChannel && s.Kind != SymMacro })
		return TypeUnknown, 0, false
	}
	c.info.Uses[x] = sym
	switch sym.Kind {
	case SymConst:
		if _, isDefine := c.globals[x.Name]; isDefine && c.globals[x.Name] == sym {
			c.evalDefine(sym)
		}
		if sym.Kind == SymConst {
			return sym.Type, sym.Value, true
		}
		return sym.Type, 0, false
	case SymEnum:
		return TypeInt, sym.Value, true
	case SymProp:
		return sym.Type, 0, false
	case SymVar, SymLocal:
		if _, isArray := c.varDims[sym]; isArray {
			c.errorf(x.Pos(), "array %s used without an index", x.Name)
		}
		if sym.Kind == SymVar && c.inGlobalInit && sym.Slot < len(c.info.Vars) {
			if vi := c.info.Vars[sym.Slot]; vi != nil && vi.Dims == nil && len(vi.Init) == 1 {
				return sym.Type, vi.Init[0], true // an earlier global's initial value
			}
		}
		return sym.Type, 0, false
	case SymIndex:
		return TypeInt, 0, false
	case SymParam, SymInput:
		if _, isArray := c.varDims[sym]; isArray {
			c.errorf(x.Pos(), "array parameter %s used without an index", x.Name)
		}
		return TypeUnknown, 0, false
	case SymMacro:
		c.errorf(x.Pos(), "%s is a macro: use call(%s, ...)", x.Name, x.Name)
	default:
		c.errorf(x.Pos(), "%s is %s, not a value", x.Name, kindWords[sym.Kind])
	}
	return TypeUnknown, 0, false
}

// index checks a[i] and m[i][j].
func (c *checker) index(x *IndexExpr, sc *scope) Type {
	var idx []Expr
	var root Expr = x
	for {
		ix, ok := root.(*IndexExpr)
		if !ok {
			break
		}
		idx = append([]Expr{ix.Index}, idx...)
		root = ix.X
	}
	for _, i := range idx {
		c.intExpr(i, sc, "array index")
	}
	id, ok := root.(*Ident)
	if !ok {
		c.errorf(root.Pos(), "only arrays can be indexed")
		return TypeUnknown
	}
	sym := c.lookup(sc, id.Name)
	if sym == nil {
		c.undefined(id, sc, func(s *Symbol) bool { return s.Kind == SymVar || s.Kind == SymLocal })
		return TypeUnknown
	}
	c.info.Uses[id] = sym
	dims, isArray := c.varDims[sym]
	switch {
	case sym.Kind == SymParam && isArray:
		// An array parameter (Info.ParamLens).
	case sym.Kind == SymParam && c.badParams[sym.Decl.(*Ident)]:
		return TypeUnknown // its calls were reported
	case sym.Kind != SymVar && sym.Kind != SymLocal:
		if sym.Kind == SymParam || sym.Kind == SymInput {
			c.errorf(id.Pos(), "%s is %s and cannot be indexed", id.Name, kindWords[sym.Kind])
		} else {
			c.errorf(id.Pos(), "%s is %s, not an array", id.Name, kindWords[sym.Kind])
		}
		return TypeUnknown
	case !isArray:
		c.errorf(id.Pos(), "%s is not an array", id.Name)
		return TypeUnknown
	case len(dims) != len(idx):
		c.errorf(x.Pos(), "array %s has %d %s, found %d %s", id.Name, len(dims), plural(len(dims), "dimension"),
			len(idx), plural(len(idx), "index"))
		return sym.Type
	}
	for k, i := range idx {
		if v, ok := c.info.Consts[i]; ok && (v < 0 || v >= int64(dims[k])) {
			c.errorf(i.Pos(), "index %d out of range [0..%d] of %s", v, dims[k]-1, id.Name)
		}
	}
	return sym.Type
}

func (c *checker) call(x *CallExpr, sc *scope) Type {
	for _, a := range x.Args {
		c.expr(a, sc)
	}
	sym := c.lookup(nil, x.Func.Name)
	if sym == nil || sym.Kind != SymMacro {
		if sym == nil {
			c.errorf(x.Func.Pos(), "undefined macro %s (C# library calls are not supported)", x.Func.Name)
		} else {
			c.info.Uses[x.Func] = sym
			c.errorf(x.Func.Pos(), "%s is %s, not a macro #define %s(..)", x.Func.Name, kindWords[sym.Kind], x.Func.Name)
		}
		return TypeUnknown
	}
	c.info.Uses[x.Func] = sym
	def := c.info.Macros[x.Func.Name]
	if def != nil && len(def.Params) != len(x.Args) {
		c.errorf(x.Pos(), "macro %s takes %d %s, found %d", x.Func.Name, len(def.Params), plural(len(def.Params), "argument"), len(x.Args))
	}
	return sym.Type
}

var (
	arithOps = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true}
	cmpOps   = map[string]bool{"<": true, "<=": true, ">": true, ">=": true}
	logicOps = map[string]bool{"&&": true, "||": true, "xor": true}
	bitOps   = map[string]bool{"&": true, "|": true, "^": true}
)

// Wrap32 wraps v to PAT's 32-bit C# int. PAT evaluates + - * and unary -
// on C# ints in an unchecked context (its EvaluatorDenotational), so they
// wrap around on overflow: 2147483647 + 1 is -2147483648.
func Wrap32(v int64) int64 { return int64(int32(v)) }

// Mod is PAT's remainder (its EvaluatorDenotational): C#'s remainder,
// which truncates toward zero, plus the divisor when it is negative. So
// -7 % 3 is 2, 7 % -3 is 1, and -7 % -3 is -4 (C#'s -1, plus -3). b must
// not be 0.
func Mod(a, b int64) int64 {
	r := a % b
	if r < 0 {
		r = Wrap32(r + b) // a C# int sum: it wraps, as everything else
	}
	return r
}

func (c *checker) binary(x *BinaryExpr, sc *scope) (Type, int64, bool) {
	tx, ty := c.expr(x.X, sc), c.expr(x.Y, sc)
	a, aok := c.info.Consts[x.X]
	b, bok := c.info.Consts[x.Y]
	ok := aok && bok
	need := func(t Type, want Type, operand Expr) {
		if t != TypeUnknown && t != want && t != TypeArray {
			c.errorf(operand.Pos(), "operator %s needs %s, found %s", x.Op, pluralType(want), typeWord(t))
		}
	}
	switch {
	case arithOps[x.Op]:
		need(tx, TypeInt, x.X)
		need(ty, TypeInt, x.Y)
		if !ok {
			return TypeInt, 0, false
		}
		switch x.Op {
		case "+":
			return TypeInt, Wrap32(a + b), true
		case "-":
			return TypeInt, Wrap32(a - b), true
		case "*":
			return TypeInt, Wrap32(a * b), true
		}
		if b == 0 {
			c.errorf(x.Y.Pos(), "division by zero")
			return TypeInt, 0, false
		}
		if b == -1 && a == math.MinInt32 {
			c.errorf(x.Pos(), "overflow: %d %s -1 is outside PAT's 32-bit int", a, x.Op)
			return TypeInt, 0, false
		}
		if x.Op == "/" {
			return TypeInt, a / b, true // Go and C# both truncate toward zero
		}
		return TypeInt, Mod(a, b), true
	case cmpOps[x.Op]:
		need(tx, TypeInt, x.X)
		need(ty, TypeInt, x.Y)
		var r bool
		switch x.Op {
		case "<":
			r = a < b
		case "<=":
			r = a <= b
		case ">":
			r = a > b
		case ">=":
			r = a >= b
		}
		return TypeBool, b2i(r), ok
	case x.Op == "==" || x.Op == "!=":
		if tx != TypeUnknown && ty != TypeUnknown && tx != ty {
			c.errorf(x.Pos(), "operator %s compares %s with %s", x.Op, typeWord(tx), typeWord(ty))
		}
		return TypeBool, b2i((a == b) == (x.Op == "==")), ok
	case logicOps[x.Op]:
		need(tx, TypeBool, x.X)
		need(ty, TypeBool, x.Y)
		switch x.Op {
		case "&&":
			if aok && a == 0 || bok && b == 0 {
				return TypeBool, 0, true
			}
			return TypeBool, 1, ok
		case "||":
			if aok && a != 0 || bok && b != 0 {
				return TypeBool, 1, true
			}
			return TypeBool, 0, ok
		}
		return TypeBool, b2i((a != 0) != (b != 0)), ok
	case bitOps[x.Op]:
		t := tx
		if t == TypeUnknown {
			t = ty
		}
		if tx != TypeUnknown && ty != TypeUnknown && tx != ty {
			c.errorf(x.Pos(), "operator %s mixes %s and %s", x.Op, typeWord(tx), typeWord(ty))
		}
		switch x.Op {
		case "&":
			return t, a & b, ok
		case "|":
			return t, a | b, ok
		}
		return t, a ^ b, ok
	}
	return TypeUnknown, 0, false
}

func pluralType(t Type) string {
	switch t {
	case TypeInt:
		return "integers"
	case TypeBool:
		return "booleans"
	}
	return "values"
}
