package lang

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// maxErrors caps the errors Check reports.
const maxErrors = 20

// maxArray caps the number of elements of one array or channel array, so
// that a typo in a dimension cannot exhaust memory.
const maxArray = 1 << 20

// Check resolves names, checks arities and simple types, and evaluates
// constants. It collects the errors it finds (up to 20), sorted by
// position. The model is not modified: what the checker learns is in the
// returned Info.
func Check(m *File) (ch *Checked, err error) {
	if m == nil {
		return nil, errors.New("lang.Check: nil model")
	}
	defer func() {
		if r := recover(); r != nil {
			ch, err = nil, &Error{Pos: Pos{File: m.Path}, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	c := newChecker(m)
	c.run()
	if len(c.errs) > 0 {
		c.errs.Sort()
		if len(c.errs) > maxErrors {
			extra := c.errs[maxErrors]
			c.errs = append(c.errs[:maxErrors:maxErrors], &Error{Pos: extra.Pos, Msg: "too many errors"})
		}
		return nil, c.errs
	}
	return &Checked{File: m, Info: c.info}, nil
}

type checker struct {
	m       *File
	info    *Info
	globals map[string]*Symbol
	errs    ErrorList
	// constant evaluation of #define
	evaluating map[*Symbol]bool
	evaluated  map[*Symbol]bool
	varDims    map[*Symbol][]int // global and local arrays
	// badParams and badArgs are array parameters and arguments whose
	// error paramLens reported: they are not checked again.
	badParams map[*Ident]bool
	badArgs   map[Expr]bool
	arity     map[*Symbol]int // processes
	// inGlobalInit: checking a global variable's declaration, where earlier
	// scalar globals stand for their initial values (PAT evaluates the
	// initialiser with the variables declared so far).
	inGlobalInit bool
}

func newChecker(m *File) *checker {
	return &checker{
		m: m,
		info: &Info{
			Defs:      map[*Ident]*Symbol{},
			Uses:      map[*Ident]*Symbol{},
			Consts:    map[Expr]int64{},
			Types:     map[Expr]Type{},
			Procs:     map[string]*ProcDecl{},
			Macros:    map[string]*DefineDecl{},
			Alphabets: map[string]*AlphabetDecl{},
			ParamLens: map[*Ident]int{},
		},
		globals:    map[string]*Symbol{},
		evaluating: map[*Symbol]bool{},
		evaluated:  map[*Symbol]bool{},
		varDims:    map[*Symbol][]int{},
		badParams:  map[*Ident]bool{},
		badArgs:    map[Expr]bool{},
		arity:      map[*Symbol]int{},
	}
}

func (c *checker) errorf(p Pos, format string, args ...any) {
	if len(c.errs) < 10*maxErrors {
		c.errs.Addf(p, format, args...)
	}
}

// scope is a chain of local name tables.
type scope struct {
	outer *scope
	names map[string]*Symbol
}

func (s *scope) push() *scope { return &scope{outer: s, names: map[string]*Symbol{}} }

func (c *checker) lookup(s *scope, name string) *Symbol {
	for ; s != nil; s = s.outer {
		if sym, ok := s.names[name]; ok {
			return sym
		}
	}
	return c.globals[name]
}

// declare adds a local symbol to s, reporting a duplicate in the same scope.
func (c *checker) declare(s *scope, id *Ident, kind SymKind, typ Type, slot int) *Symbol {
	sym := &Symbol{Kind: kind, Name: id.Name, Decl: id, Type: typ, Slot: slot}
	if prev, ok := s.names[id.Name]; ok {
		c.errorf(id.Pos(), "%s redeclared (previous declaration at %s)", id.Name, prev.Decl.Pos())
	}
	s.names[id.Name] = sym
	c.info.Defs[id] = sym
	return sym
}

var kindWords = map[SymKind]string{
	SymConst: "a constant", SymEnum: "an enum constant", SymProp: "a proposition", SymMacro: "a macro",
	SymVar: "a variable", SymChannel: "a channel", SymProc: "a process", SymParam: "a parameter",
	SymLocal: "a local variable", SymIndex: "an index variable", SymInput: "a channel input variable",
}

func (c *checker) run() {
	c.collect()
	for _, d := range c.m.Decls {
		switch x := d.(type) {
		case *DefineDecl:
			sym := c.info.Defs[x.Name]
			if sym != nil && c.globals[x.Name.Name] == sym {
				c.checkDefine(sym, x)
			}
		case *VarDecl:
			c.checkVar(x)
		case *ChannelDecl:
			c.checkChannel(x)
		}
	}
	c.paramLens()
	for _, d := range c.m.Decls {
		switch x := d.(type) {
		case *ProcDecl:
			sc := (*scope)(nil).push()
			for i, p := range x.Params {
				sym := c.declare(sc, p, SymParam, TypeUnknown, i)
				if n, ok := c.info.ParamLens[p]; ok {
					c.varDims[sym] = []int{n}
				}
			}
			c.proc(x.Body, sc)
		case *AlphabetDecl:
			sym := c.resolve(x.Proc, nil)
			if sym != nil && sym.Kind != SymProc {
				c.errorf(x.Proc.Pos(), "%s is %s, not a process", x.Proc.Name, kindWords[sym.Kind])
			}
			if prev, ok := c.info.Alphabets[x.Proc.Name]; ok {
				c.errorf(x.Pos(), "alphabet of %s redeclared (previous declaration at %s)", x.Proc.Name, prev.Pos())
			} else {
				c.info.Alphabets[x.Proc.Name] = x
			}
			c.eventSet(x.Events, nil)
		case *AssertDecl:
			c.assertion(x)
			c.info.Asserts = append(c.info.Asserts, x)
		}
	}
}

// collect declares every global name.
func (c *checker) collect() {
	add := func(id *Ident, sym *Symbol) {
		sym.Name, sym.Decl = id.Name, id
		if id.Name == "" {
			return
		}
		if prev, ok := c.globals[id.Name]; ok {
			c.errorf(id.Pos(), "%s redeclared (previous declaration at %s)", id.Name, prev.Decl.Pos())
			return
		}
		c.globals[id.Name] = sym
		c.info.Defs[id] = sym
	}
	for _, d := range c.m.Decls {
		switch x := d.(type) {
		case *DefineDecl:
			kind := SymConst
			if x.Params != nil || x.Block != nil {
				kind = SymMacro
			}
			add(x.Name, &Symbol{Kind: kind})
		case *EnumDecl:
			for i, n := range x.Names {
				add(n, &Symbol{Kind: SymEnum, Type: TypeInt, Value: int64(i)})
			}
		case *VarDecl:
			add(x.Name, &Symbol{Kind: SymVar, Slot: len(c.info.Vars)})
			c.info.Vars = append(c.info.Vars, &VarInfo{Decl: x})
		case *ChannelDecl:
			add(x.Name, &Symbol{Kind: SymChannel, Slot: len(c.info.Channels)})
			c.info.Channels = append(c.info.Channels, &ChannelInfo{Decl: x})
		case *ProcDecl:
			sym := &Symbol{Kind: SymProc}
			c.arity[sym] = len(x.Params)
			add(x.Name, sym)
			if _, dup := c.info.Procs[x.Name.Name]; !dup {
				c.info.Procs[x.Name.Name] = x
			}
		}
	}
}

// checkDefine classifies a #define: a constant if its value evaluates
// without variables, a proposition otherwise; macros are checked with their
// parameters in scope.
func (c *checker) checkDefine(sym *Symbol, x *DefineDecl) {
	if sym.Kind == SymMacro {
		c.info.Macros[x.Name.Name] = x
		sc := (*scope)(nil).push()
		for i, p := range x.Params {
			c.declare(sc, p, SymParam, TypeUnknown, i)
		}
		if x.Block != nil {
			c.block(x.Block, sc)
		} else {
			sym.Type = c.expr(x.Value, sc)
		}
		return
	}
	c.evalDefine(sym)
}

// evalDefine evaluates a parameterless #define on first use (defines may
// refer to defines declared later).
func (c *checker) evalDefine(sym *Symbol) {
	if c.evaluated[sym] {
		return
	}
	x := c.defineOf(sym)
	if c.evaluating[sym] {
		c.errorf(x.Name.Pos(), "constant %s refers to itself", sym.Name)
		sym.Kind = SymProp
		c.evaluated[sym] = true
		return
	}
	c.evaluating[sym] = true
	sym.Type = c.expr(x.Value, nil)
	delete(c.evaluating, sym)
	c.evaluated[sym] = true
	if v, ok := c.info.Consts[x.Value]; ok {
		sym.Kind, sym.Value = SymConst, v
	} else {
		sym.Kind = SymProp
		c.info.Macros[x.Name.Name] = x
	}
}

func (c *checker) defineOf(sym *Symbol) *DefineDecl {
	for _, d := range c.m.Decls {
		if x, ok := d.(*DefineDecl); ok && x.Name == sym.Decl {
			return x
		}
	}
	panic("define not found")
}

// constInt evaluates e as a constant in scope sc, reporting what if it is
// not one.
func (c *checker) constInt(e Expr, sc *scope, what string) (int64, bool) {
	if e == nil {
		return 0, false
	}
	c.expr(e, sc)
	v, ok := c.info.Consts[e]
	if !ok {
		c.errorf(e.Pos(), "%s must be a constant", what)
	}
	return v, ok
}

func (c *checker) dims(es []Expr, what string) ([]int, bool) {
	if es == nil {
		return nil, true
	}
	out := make([]int, len(es))
	n := int64(1)
	for i, e := range es {
		v, ok := c.constInt(e, nil, what)
		if !ok {
			return nil, false
		}
		if v < 1 {
			c.errorf(e.Pos(), "%s must be at least 1, found %d", what, v)
			return nil, false
		}
		if v > maxArray || n*v > maxArray { // n <= maxArray: no overflow
			c.errorf(e.Pos(), "%s too large (more than %d elements)", what, maxArray)
			return nil, false
		}
		n *= v
		if n > maxArray {
			c.errorf(e.Pos(), "%s too large (more than %d elements)", what, maxArray)
			return nil, false
		}
		out[i] = int(v)
	}
	return out, true
}

func (c *checker) checkVar(x *VarDecl) {
	sym := c.info.Defs[x.Name]
	if sym == nil || c.globals[x.Name.Name] != sym {
		return
	}
	c.inGlobalInit = true
	defer func() { c.inGlobalInit = false }()
	vi := c.info.Vars[sym.Slot]
	dims, ok := c.dims(x.Dims, "array size")
	if !ok {
		return
	}
	vi.Dims = dims
	if x.Range != nil {
		vi.Ranged = true
		vi.Lo, vi.Hi = math.MinInt32, math.MaxInt32
		if x.Range.Lo != nil {
			if v, ok := c.constInt(x.Range.Lo, nil, "range bound"); ok {
				vi.Lo = v
			}
		}
		if x.Range.Hi != nil {
			if v, ok := c.constInt(x.Range.Hi, nil, "range bound"); ok {
				vi.Hi = v
			}
		}
		if vi.Lo > vi.Hi {
			c.errorf(x.Range.Pos(), "empty range {%d..%d}", vi.Lo, vi.Hi)
		}
	}
	sym.Type = TypeInt
	switch init := x.Init.(type) {
	case nil:
		n := 1
		for _, d := range dims {
			n *= d
		}
		vi.Init = make([]int64, n)
		if vi.Ranged && (vi.Lo > 0 || vi.Hi < 0) {
			vi.Init = fill(vi.Init, vi.Lo) // PAT starts a ranged variable at its lower bound
		}
	case *ArrayLit:
		vals, typ, ok := c.arrayLit(init, nil)
		if !ok {
			return
		}
		vi.Bool = typ == TypeBool
		if dims == nil {
			dims = []int{len(vals)}
			vi.Dims = dims
		}
		n := 1
		for _, d := range dims {
			n *= d
		}
		if len(vals) != n {
			c.errorf(init.Pos(), "array %s has %d elements, initialiser has %d", x.Name.Name, n, len(vals))
			return
		}
		vi.Init = vals
	default:
		if dims != nil {
			c.errorf(init.Pos(), "array %s needs an array initialiser [..]", x.Name.Name)
			return
		}
		typ := c.expr(init, nil)
		v, ok := c.info.Consts[init]
		if !ok {
			c.errorf(init.Pos(), "initial value of %s must be a constant", x.Name.Name)
			return
		}
		vi.Bool = typ == TypeBool
		vi.Init = []int64{v}
	}
	if vi.Bool {
		sym.Type = TypeBool
	}
	if vi.Ranged && vi.Lo <= vi.Hi {
		for _, v := range vi.Init {
			if v < vi.Lo || v > vi.Hi {
				c.errorf(x.Name.Pos(), "initial value %d of %s is out of its range {%d..%d}", v, x.Name.Name, vi.Lo, vi.Hi)
				break
			}
		}
	}
	if dims != nil {
		c.varDims[sym] = dims
	}
}

func fill(s []int64, v int64) []int64 {
	for i := range s {
		s[i] = v
	}
	return s
}

// arrayLit flattens an array initialiser of constants.
func (c *checker) arrayLit(a *ArrayLit, sc *scope) ([]int64, Type, bool) {
	var out []int64
	typ := TypeUnknown
	for _, el := range a.Elems {
		var vals []int64
		if nested, ok := el.Value.(*ArrayLit); ok {
			v, t, ok := c.arrayLit(nested, sc)
			if !ok {
				return nil, 0, false
			}
			vals, typ = v, t
		} else {
			v, ok := c.constInt(el.Value, sc, "array element")
			if !ok {
				return nil, 0, false
			}
			if c.info.Types[el.Value] == TypeBool {
				typ = TypeBool
			} else if typ == TypeUnknown {
				typ = TypeInt
			}
			vals = []int64{v}
			if el.To != nil {
				hi, ok := c.constInt(el.To, sc, "array range bound")
				if !ok {
					return nil, 0, false
				}
				if hi > v && uint64(hi)-uint64(v) >= maxArray { // unsigned: no overflow
					c.errorf(el.Pos(), "array too large (more than %d elements)", maxArray)
					return nil, 0, false
				}
				vals = nil
				for x := v; x <= hi; x++ {
					vals = append(vals, x)
				}
			}
		}
		if el.Count != nil {
			n, ok := c.constInt(el.Count, sc, "repetition count")
			if !ok {
				return nil, 0, false
			}
			if n < 0 || n > maxArray || n*int64(len(vals))+int64(len(out)) > maxArray {
				c.errorf(el.Count.Pos(), "repetition count %d out of range", n)
				return nil, 0, false
			}
			rep := make([]int64, 0, int(n)*len(vals))
			for i := int64(0); i < n; i++ {
				rep = append(rep, vals...)
			}
			vals = rep
		}
		out = append(out, vals...)
		if len(out) > maxArray {
			c.errorf(el.Pos(), "array too large (more than %d elements)", maxArray)
			return nil, 0, false
		}
	}
	return out, typ, true
}

func (c *checker) checkChannel(x *ChannelDecl) {
	sym := c.info.Defs[x.Name]
	if sym == nil || c.globals[x.Name.Name] != sym {
		return
	}
	ci := c.info.Channels[sym.Slot]
	dims, _ := c.dims(x.Dims, "channel array size")
	ci.Dims = dims
	if v, ok := c.constInt(x.Size, nil, "channel size"); ok {
		if v < 0 || v > maxArray {
			c.errorf(x.Size.Pos(), "channel size must be between 0 and %d, found %d", maxArray, v)
		}
		ci.Size = int(v)
	}
}

// ---------------------------------------------------------------------------
// Processes

func (c *checker) resolve(id *Ident, sc *scope) *Symbol {
	sym := c.lookup(sc, id.Name)
	if sym == nil {
		c.undefined(id, sc, nil)
		return nil
	}
	c.info.Uses[id] = sym
	return sym
}

// undefined reports an unknown name with a suggestion among the names
// visible in sc accepted by want (all if nil).
func (c *checker) undefined(id *Ident, sc *scope, want func(*Symbol) bool) {
	if len(c.errs) >= 10*maxErrors {
		return // the suggestion costs a pass over every name: not when capped
	}
	var names []string
	seen := map[string]bool{}
	consider := func(n string, s *Symbol) {
		if !seen[n] && (want == nil || want(s)) {
			seen[n] = true
			names = append(names, n)
		}
	}
	for s := sc; s != nil; s = s.outer {
		for n, sym := range s.names {
			consider(n, sym)
		}
	}
	for n, sym := range c.globals {
		consider(n, sym)
	}
	msg := "undefined: " + id.Name
	if best := closest(id.Name, names); best != "" {
		msg += "; did you mean " + best + "?"
	}
	c.errorf(id.Pos(), "%s", msg)
}

// closest returns the name nearest to s by edit distance, if near enough.
func closest(s string, names []string) string {
	sort.Strings(names)
	best, bestD := "", len(s)/3+1
	if bestD > 3 {
		bestD = 3
	}
	bestD++ // accept distance <= limit
	for _, n := range names {
		d := editDistance(strings.ToLower(s), strings.ToLower(n))
		if s != n && strings.EqualFold(s, n) {
			d = 0
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 100
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (c *checker) procRef(r *RefProc, sc *scope) {
	sym := c.lookup(sc, r.Name.Name)
	if sym == nil {
		c.undefined(r.Name, sc, func(s *Symbol) bool { return s.Kind == SymProc })
	} else {
		c.info.Uses[r.Name] = sym
		if sym.Kind != SymProc {
			c.errorf(r.Name.Pos(), "%s is %s, not a process", r.Name.Name, kindWords[sym.Kind])
		} else if want := c.arity[sym]; want != len(r.Args) {
			c.errorf(r.Pos(), "%s takes %d %s, found %d", r.Name.Name, want, plural(want, "argument"), len(r.Args))
		}
	}
	var callee *ProcDecl
	if sym != nil && sym.Kind == SymProc {
		callee = c.info.Procs[r.Name.Name]
	}
	for i, a := range r.Args {
		if c.badArgs[a] {
			continue
		}
		if callee != nil && i < len(callee.Params) {
			if _, isArr := c.info.ParamLens[callee.Params[i]]; isArr {
				c.arrayArg(a, sc)
				continue
			}
		}
		c.expr(a, sc)
	}
}

// arrayArg checks an argument passed to an array parameter: an array
// literal (its elements may read variables, as a local array's), or the
// name of a one-dimensional array, global or parameter. Lengths were
// checked by paramLens.
func (c *checker) arrayArg(a Expr, sc *scope) {
	switch a := a.(type) {
	case *ArrayLit:
		c.localArrayLit(a, sc)
		return
	case *Ident:
		if sym := c.lookup(sc, a.Name); sym != nil && (sym.Kind == SymVar || sym.Kind == SymParam) {
			if dims, ok := c.varDims[sym]; ok && len(dims) == 1 {
				c.info.Uses[a] = sym
				c.info.Types[a] = TypeArray
				return
			}
		}
	}
	c.expr(a, sc) // a scalar: paramLens reported it
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

func (c *checker) cond(e Expr, sc *scope, what string) {
	if t := c.expr(e, sc); t == TypeInt {
		c.errorf(e.Pos(), "%s must be a boolean, found an integer", what)
	}
}

func (c *checker) proc(p Proc, sc *scope) {
	switch x := p.(type) {
	case *SkipProc, *StopProc, nil:
	case *RefProc:
		c.procRef(x, sc)
	case *PrefixProc:
		if x.Event != nil {
			c.event(x.Event, sc)
		}
		if x.Block != nil {
			c.block(x.Block, sc)
		}
		c.proc(x.Next, sc)
	case *MultiPrefixProc:
		for _, e := range x.Events {
			c.event(e, sc)
		}
		c.proc(x.Next, sc)
	case *ChanOutProc:
		c.channel(x.Chan, x.Index, sc)
		c.messageSize(x, len(x.Values))
		for _, v := range x.Values {
			c.value(v, sc)
		}
		if x.Block != nil {
			c.block(x.Block, sc)
		}
		c.proc(x.Next, sc)
	case *ChanInProc:
		c.channel(x.Chan, x.Index, sc)
		c.messageSize(x, len(x.Vars))
		inner := sc.push()
		for _, v := range x.Vars {
			if id, ok := v.(*Ident); ok {
				if sym := c.lookup(sc, id.Name); sym != nil && (sym.Kind == SymConst || sym.Kind == SymEnum) {
					c.expr(v, sc) // a constant to match
					continue
				}
				c.declare(inner, id, SymInput, TypeUnknown, 0)
				continue
			}
			c.value(v, sc)
		}
		if x.Guard != nil {
			c.cond(x.Guard, inner, "channel input guard")
		}
		if x.Block != nil {
			c.block(x.Block, inner)
		}
		c.proc(x.Next, inner)
	case *GuardProc:
		c.cond(x.Cond, sc, "guard")
		c.proc(x.Body, sc)
	case *IfProc:
		c.cond(x.Cond, sc, "condition")
		c.proc(x.Then, sc)
		c.proc(x.Else, sc)
	case *CaseProc:
		for _, a := range x.Arms {
			c.cond(a.Cond, sc, "case condition")
			c.proc(a.Body, sc)
		}
		c.proc(x.Default, sc)
	case *SeqProc:
		c.proc(x.Left, sc)
		c.proc(x.Right, sc)
	case *InterruptProc:
		c.proc(x.Left, sc)
		c.proc(x.Right, sc)
	case *ChoiceProc:
		for _, q := range x.Procs {
			c.proc(q, sc)
		}
	case *ParProc:
		for _, q := range x.Procs {
			c.proc(q, sc)
		}
	case *IndexedProc:
		inner := c.indexVars(x.Index, sc)
		c.proc(x.Body, inner)
	case *HideProc:
		c.proc(x.Body, sc)
		c.eventSet(x.Events, sc)
	case *AtomicProc:
		c.proc(x.Body, sc)
	default:
		c.errorf(p.Pos(), "unknown process %T", p)
	}
}

// value checks an expression used as event data or a channel value (a
// bare array name is reported by identValue).
func (c *checker) value(e Expr, sc *scope) {
	c.expr(e, sc)
}

func (c *checker) channel(id *Ident, index []Expr, sc *scope) {
	sym := c.lookup(sc, id.Name)
	if sym == nil {
		c.undefined(id, sc, func(s *Symbol) bool { return s.Kind == SymChannel })
	} else {
		c.info.Uses[id] = sym
		if sym.Kind != SymChannel {
			c.errorf(id.Pos(), "%s is %s, not a channel", id.Name, kindWords[sym.Kind])
		} else if ci := c.info.Channels[sym.Slot]; ci.Dims != nil || index != nil {
			if len(index) != len(ci.Dims) {
				c.errorf(id.Pos(), "channel %s needs %d %s, found %d", id.Name, len(ci.Dims), plural(len(ci.Dims), "index"), len(index))
			}
		}
	}
	for _, e := range index {
		c.intExpr(e, sc, "channel index")
	}
}

func (c *checker) intExpr(e Expr, sc *scope, what string) {
	if t := c.expr(e, sc); t == TypeBool {
		c.errorf(e.Pos(), "%s must be an integer, found a boolean", what)
	}
}

func (c *checker) event(e *EventExpr, sc *scope) {
	for _, d := range e.Data {
		c.value(d, sc)
	}
}

// indexVars declares index variables in a new scope; each set may use the
// variables before it. Without a variable, `{N}` is a replication count.
func (c *checker) indexVars(ivs []*IndexVar, sc *scope) *scope {
	inner := sc.push()
	for _, iv := range ivs {
		c.indexSet(iv, inner)
		if iv.Var != nil {
			c.declare(inner, iv.Var, SymIndex, TypeInt, 0)
		}
	}
	return inner
}

func (c *checker) indexSet(iv *IndexVar, sc *scope) {
	s := iv.Set
	if s.Range != nil {
		if s.Range.Lo == nil || s.Range.Hi == nil {
			c.errorf(s.Pos(), "unbounded replication {..} is not supported")
			return
		}
		c.setBound(s.Range.Lo, sc)
		c.setBound(s.Range.Hi, sc)
		return
	}
	if iv.Var == nil {
		if v, ok := c.constInt(s.Elems[0], sc, "replication count"); ok && (v < 0 || v > maxArray) {
			c.errorf(s.Elems[0].Pos(), "replication count must be between 0 and %d, found %d", maxArray, v)
		}
		return
	}
	for _, e := range s.Elems {
		c.setBound(e, sc)
	}
}

// setBound checks an index-set expression: an integer that does not depend
// on variables (parameters and index variables are fine).
func (c *checker) setBound(e Expr, sc *scope) {
	c.intExpr(e, sc, "index set element")
	if v := c.stateDependent(e); v != nil {
		c.errorf(v.Pos(), "index sets must not depend on variables, found %s", v.Name)
	}
}

// stateDependent returns a variable that e reads, if any.
func (c *checker) stateDependent(e Expr) *Ident {
	var found *Ident
	walkExpr(e, func(x Expr) {
		if id, ok := x.(*Ident); ok && found == nil {
			if sym := c.info.Uses[id]; sym != nil && (sym.Kind == SymVar || sym.Kind == SymLocal || sym.Kind == SymProp) {
				found = id
			}
		}
	})
	return found
}

func walkExpr(e Expr, f func(Expr)) {
	if e == nil {
		return
	}
	f(e)
	switch x := e.(type) {
	case *IndexExpr:
		walkExpr(x.X, f)
		walkExpr(x.Index, f)
	case *UnaryExpr:
		walkExpr(x.X, f)
	case *BinaryExpr:
		walkExpr(x.X, f)
		walkExpr(x.Y, f)
	case *CondExpr:
		walkExpr(x.Cond, f)
		walkExpr(x.X, f)
		walkExpr(x.Y, f)
	case *CallExpr:
		for _, a := range x.Args {
			walkExpr(a, f)
		}
	case *IndexedBoolExpr:
		walkExpr(x.Body, f)
	case *ArrayLit:
		for _, el := range x.Elems {
			walkExpr(el.Value, f)
			walkExpr(el.Count, f)
			walkExpr(el.To, f)
		}
	}
}

func (c *checker) eventSet(s *EventSet, sc *scope) {
	for _, it := range s.Items {
		inner := c.indexVars(it.Index, sc)
		c.event(it.Event, inner)
	}
}

func (c *checker) assertion(a *AssertDecl) {
	check := func(p Proc) {
		r, ok := p.(*RefProc)
		if !ok {
			c.proc(p, nil)
			return
		}
		c.procRef(r, nil)
		for _, arg := range r.Args {
			if c.badArgs[arg] {
				continue
			}
			if al, ok := arg.(*ArrayLit); ok {
				for _, el := range al.Elems {
					if _, ok := c.info.Consts[el.Value]; !ok && el.Value != nil && !isArrayLit(el.Value) {
						c.errorf(el.Value.Pos(), "element of an array argument of %s in an assertion must be a constant", r.Name.Name)
					}
				}
				continue
			}
			if _, ok := c.info.Consts[arg]; !ok {
				c.errorf(arg.Pos(), "argument of %s in an assertion must be a constant", r.Name.Name)
			}
		}
	}
	check(a.Left)
	switch a.Kind {
	case KindReaches:
		sym := c.lookup(nil, a.Goal.Name)
		if sym == nil {
			c.undefined(a.Goal, nil, func(s *Symbol) bool { return s.Kind == SymProp || s.Kind == SymConst })
			break
		}
		c.info.Uses[a.Goal] = sym
		if sym.Kind != SymProp && sym.Kind != SymConst {
			c.errorf(a.Goal.Pos(), "%s is %s, not a proposition (#define %s cond;)", a.Goal.Name, kindWords[sym.Kind], a.Goal.Name)
		} else if sym.Type == TypeInt {
			c.errorf(a.Goal.Pos(), "proposition %s must be a boolean, found an integer", a.Goal.Name)
		}
		if a.OptExpr != nil {
			c.intExpr(a.OptExpr, nil, "the expression of min/max")
		}
	case KindRefines, KindRefinesF, KindRefinesFD:
		check(a.Right)
	case KindQuasi:
		check(a.Right)
		c.quasi(a.Quasi)
	case KindLinearizes:
		check(a.Right)
		if a.Quasi != nil {
			c.quasi(a.Quasi)
		}
		c.linMap(a)
	}
}

func (c *checker) quasi(q *QuasiSpec) {
	bound := func(e Expr) {
		if v, ok := c.constInt(e, nil, "quasi bound"); ok && v < 0 {
			c.errorf(e.Pos(), "quasi bound must be >= 0, found %d", v)
		}
	}
	pattern := func(e *EventExpr) {
		for _, d := range e.Data {
			c.constInt(d, nil, "event pattern data")
		}
	}
	if q.Factor != nil {
		bound(q.Factor)
	}
	for _, cl := range q.Classes {
		for _, p := range cl.Patterns {
			pattern(p)
		}
		bound(cl.Bound)
	}
	for _, p := range q.On {
		pattern(p)
	}
	for _, p := range q.Barriers {
		pattern(p)
	}
}

// ---------------------------------------------------------------------------
// Statements

func (c *checker) block(b *Block, sc *scope) {
	inner := sc.push()
	for _, s := range b.Stmts {
		c.stmt(s, inner)
	}
}

func (c *checker) stmt(s Stmt, sc *scope) {
	switch x := s.(type) {
	case *Block:
		c.block(x, sc)
	case *AssignStmt:
		lt := c.assignable(x.LHS, sc)
		rt := c.expr(x.RHS, sc)
		if lt != TypeUnknown && rt != TypeUnknown && lt != rt {
			c.errorf(x.RHS.Pos(), "cannot assign %s to %s (%s)", typeWord(rt), exprString(x.LHS), typeWord(lt))
		}
	case *IncDecStmt:
		if t := c.assignable(x.LHS, sc); t == TypeBool {
			c.errorf(x.LHS.Pos(), "%s is a boolean; ++ and -- need an integer", exprString(x.LHS))
		}
	case *LocalVarStmt:
		dims, _ := c.dims(x.Dims, "array size")
		typ := TypeInt
		switch init := x.Init.(type) {
		case nil:
		case *ArrayLit:
			if c.localArrayLit(init, sc) == TypeBool {
				typ = TypeBool
			}
			if dims == nil {
				dims = []int{len(init.Elems)}
			}
		default:
			if t := c.expr(init, sc); t != TypeUnknown {
				typ = t
			}
		}
		sym := c.declare(sc, x.Name, SymLocal, typ, 0)
		if dims != nil {
			c.varDims[sym] = dims
		}
	case *IfStmt:
		c.cond(x.Cond, sc, "condition")
		c.block(x.Then, sc)
		if x.Else != nil {
			c.stmt(x.Else, sc)
		}
	case *WhileStmt:
		c.cond(x.Cond, sc, "condition")
		c.block(x.Body, sc)
	case *ExprStmt:
		c.expr(x.X, sc)
	}
}

// localArrayLit checks the initialiser of a local array: as in PAT, its
// elements may read variables (they are evaluated when the block runs);
// repetition counts and ranges stay constants. It returns the element type.
func (c *checker) localArrayLit(a *ArrayLit, sc *scope) Type {
	typ := TypeInt
	for _, el := range a.Elems {
		if nested, ok := el.Value.(*ArrayLit); ok {
			if c.localArrayLit(nested, sc) == TypeBool {
				typ = TypeBool
			}
			continue
		}
		if el.To != nil {
			c.constInt(el.Value, sc, "array range bound")
			c.constInt(el.To, sc, "array range bound")
		} else if c.expr(el.Value, sc) == TypeBool {
			typ = TypeBool
		}
		if el.Count != nil {
			c.constInt(el.Count, sc, "repetition count")
		}
	}
	return typ
}

// assignable checks the left side of an assignment and returns its type.
func (c *checker) assignable(e Expr, sc *scope) Type {
	root := e
	for {
		if ix, ok := root.(*IndexExpr); ok {
			root = ix.X
			continue
		}
		break
	}
	t := c.expr(e, sc)
	if id, ok := root.(*Ident); ok {
		if sym := c.info.Uses[id]; sym != nil && sym.Kind != SymVar && sym.Kind != SymLocal {
			c.errorf(id.Pos(), "cannot assign to %s (%s)", id.Name, kindWords[sym.Kind])
		}
	}
	return t
}

func typeWord(t Type) string {
	switch t {
	case TypeInt:
		return "an integer"
	case TypeBool:
		return "a boolean"
	case TypeArray:
		return "an array"
	}
	return "a value"
}

// MaxMessage is the most values a channel message may carry.
const MaxMessage = 16

func (c *checker) messageSize(at Node, n int) {
	if n > MaxMessage {
		c.errorf(at.Pos(), "at most %d values per message, found %d", MaxMessage, n)
	}
}
