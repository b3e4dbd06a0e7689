package pipeline

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
	"github.com/quasar-verify/quasar/relax"
)

// Arguments chosen late (on unless Options.NoLateArgs; docs/linearizes-log.md,
// "Arguments chosen late, object states tagged").
//
// lateModel rewrites the implementations of a model's linearizes
// assertions so that an invocation family
//
//	[] v:A @ OP_inv.T.v -> P
//
// is one invocation OP_inv.T without its argument, after which the thread
// runs P with v "open": the same steps for every value, up to the first
// step that reads v (its guard, block or event data, or a process argument
// other than v passed bare) or the first visible step of the thread. That
// step is split into one step per value a, which first performs the choice
// event choose$.T.a (lateChoose: no event of a model): a silent step (tau
// or a bare block) that reads v becomes `[] v:{a1, ..} @ [guard]
// choose$.T.v{block} -> Q` (the values as literals); a visible step, which
// may only be split where it is the thread's only next step (not under a
// guard or a choice, also of a caller), is preceded by its own step
// `[] v:{a1, ..} @ choose$.T.v ->`. A process P(.., v, ..) reached with v
// bare gets an open copy without that parameter; the definitions
// reachable from the assertion get closed copies in which the families
// are rewritten (the copies of each assertion its own, named with a mark
// no name of the model contains). A shape the rewrite does not know (if, case,
// sequences, parallel or atomic parts, channels, a value read in a
// process argument or an index set, an index variable named like the
// value or hiding the thread) while v is open leaves the assertion as it
// is (checked without the option; Assertion.LateArgsOff says where); so
// does, anywhere on the implementation's side, a part whose events are
// not the thread's own business (hiding, ||, atomic, interrupt), an
// #alphabet of a definition it reaches, a family over no value, an
// invocation of a rewritten op with other data than the thread and the
// argument, and, for the whole model, included files.
//
// The states between the invocation and the choice are then one per
// thread state, not one per value; the derived object (linearize.Wrapper,
// SetLate) makes one state per value on the invocation, tagged with it,
// and keeps the states tagged a on choose.T.a. A trace of the rewritten
// model is a trace of the original once each open invocation is given the
// value its choice names (or, if the thread never chose, any value) and
// the choices are dropped (lateTrace).
type lateRewrite struct {
	info   *lang.Info
	procs  map[string]*lang.ProcDecl
	closed map[string]string // definition -> its closed copy's name
	open   map[string]string // definition + "#k" -> its open copy (parameter k open)
	// reached: the model's definitions the implementation reaches.
	reached map[string]bool
	decls   []lang.Decl
	values  map[string][]int // op -> the values of its family
	// mark is in the name of every definition the rewrite makes and in
	// no name of the model; choose is the choices' event.
	mark, choose string
	// mutant, when not 0, breaks the rewrite on purpose (tests): 2 the
	// split forgets a value; latePanic panics.
	mutant int
}

// lateRetried starts Assertion.LateArgsOff when the check with the
// option found that its assumptions fail on the model and the assertion
// was checked again without it.
const lateRetried = "checked again without the late arguments: "

// latePanic is the mutant number that makes the rewrite panic (tests: a
// panic of the rewrite must not be a crash).
const latePanic = 99

// lateOut is a rewritten model: its file, the choices' event, and for
// each linearizes assertion of the model (by its declaration in the
// model) the values of its families or why it is not rewritten.
type lateOut struct {
	file    *lang.File
	choose  string
	asserts map[*lang.AssertDecl]*lateAssert
}

// lateAssert is one linearizes assertion's part of a rewritten model:
// values (op -> the values of its family) when its implementation is
// rewritten, else off says why not (it is checked without the option).
type lateAssert struct {
	values map[string][]int
	off    string
}

// lateChoose is the choices' event: it has a character no name of a
// model can have (an identifier is letters, digits and '_':
// lang/scanner.go), so no event, variable or hiding of the model can
// meet it.
const lateChoose = "choose$"

// lateMark is the mark in the names of the copies the rewrite makes and of
// the placeholder of a dead value, unless a name of the model contains
// it (then __late2, ...): none of them is a name of the model. (A '$'
// would do as well, but the names of definitions decide which of two
// symmetric counterexamples the search meets first, and these keep the
// ones the rewrite has shown since it was built.)
const lateMark = "__late"

// lateModel returns the model m (checked: info) with the implementations
// of its linearizes assertions rewritten, each on its own (an assertion
// the rewrite does not know is left as it is, and says why; with only,
// those in only, the others left as they are); m itself is
// not changed. The new declarations keep the positions of m's (a run-time
// error of the rewritten model points at the model's own text). An error
// says why no assertion can be rewritten.
func lateModel(m *lang.File, info *lang.Info, mutant int, only map[*lang.AssertDecl]bool) (*lateOut, error) {
	if mutant == latePanic {
		panic("late arguments: a hand mutant")
	}
	names := map[string]bool{}
	for _, d := range m.Decls {
		if _, ok := d.(*lang.IncludeDecl); ok {
			return nil, fmt.Errorf("late arguments: %s: a model with included files", d.Pos())
		}
		eachIdent(d, func(id *lang.Ident) { names[id.Name] = true })
	}
	// A mark no name of the model contains.
	base := lateMark
	for i := 2; containsIn(names, base); i++ {
		base = fmt.Sprintf("%s%d", lateMark, i)
	}
	out := &lateOut{file: &lang.File{Span: m.Span, Path: m.Path}, choose: lateChoose, asserts: map[*lang.AssertDecl]*lateAssert{}}
	var decls []lang.Decl
	var why error
	n := 0 // linearizes assertions met
	for _, d := range m.Decls {
		a, ok := d.(*lang.AssertDecl)
		if !ok || a.Kind != lang.KindLinearizes || a.Map != nil {
			out.file.Decls = append(out.file.Decls, d)
			continue
		}
		if n++; only != nil && !only[a] {
			out.file.Decls = append(out.file.Decls, d)
			continue
		}
		// Each assertion's copies are its own (their names carry its
		// number after the mark, from the second on, counted over all the
		// model's linearizes assertions, so that a check's names, hence
		// its counterexample, do not depend on which are selected): its
		// values and its shapes are its own business.
		mark := base
		if n > 1 {
			mark = fmt.Sprintf("%s_%d", base, n)
		}
		rw := &lateRewrite{info: info, procs: info.Procs, closed: map[string]string{}, open: map[string]string{}, reached: map[string]bool{}, values: map[string][]int{}, mark: mark, choose: lateChoose, mutant: mutant}
		left, err := rw.closedProc(a.Left)
		if err == nil {
			err = rw.applies(m, a)
		}
		if err != nil {
			out.asserts[a] = &lateAssert{off: err.Error()}
			if why == nil {
				why = err
			}
			out.file.Decls = append(out.file.Decls, d)
			continue
		}
		out.asserts[a] = &lateAssert{values: rw.values}
		// The new declarations get trees of their own: they share
		// subtrees with the model's definitions and with each other,
		// whose names the checker would resolve in two scopes (an open
		// copy's value is no longer a parameter). The model's own
		// declarations are shared with m (checking and compiling a model
		// does not change its tree).
		ca := *a
		ca.Left = left
		out.file.Decls = append(out.file.Decls, cloneAST(lang.Decl(&ca)))
		for _, d := range rw.decls {
			decls = append(decls, cloneAST(d))
		}
	}
	if len(decls) == 0 {
		if why == nil {
			why = fmt.Errorf("late arguments: no linearizes assertion")
		}
		return nil, why
	}
	out.file.Decls = append(out.file.Decls, decls...)
	return out, nil
}

// applies checks, once an assertion's implementation is rewritten, what
// the rewrite needs of the rest of the model: a family to rewrite; no
// invocation of a rewritten op without its argument (or with more) on
// the implementation's side (it would be read as an open one); no
// channel named like an invocation; no #alphabet of a definition the
// implementation reaches (its copies would have none).
func (rw *lateRewrite) applies(m *lang.File, a *lang.AssertDecl) error {
	if len(rw.values) == 0 {
		return fmt.Errorf("late arguments: no invocation family to rewrite")
	}
	nodes := []any{a.Left}
	for _, name := range slices.Sorted(maps.Keys(rw.reached)) {
		nodes = append(nodes, rw.procs[name])
	}
	for _, d := range m.Decls {
		switch d := d.(type) {
		case *lang.ChannelDecl:
			if op, ok := strings.CutSuffix(d.Name.Name, "_inv"); ok && rw.values[op] != nil {
				return fmt.Errorf("late arguments: %s: a channel named like an invocation", d.Pos())
			}
		case *lang.AlphabetDecl:
			if rw.reached[d.Proc.Name] {
				return fmt.Errorf("late arguments: %s: an #alphabet of %s, which the implementation reaches", d.Pos(), d.Proc.Name)
			}
		}
	}
	var bad error
	for _, n := range nodes {
		eachNode(n, func(n any) bool {
			if e, ok := n.(*lang.EventExpr); ok {
				if op, ok := strings.CutSuffix(e.Name.Name, "_inv"); ok && rw.values[op] != nil && len(e.Data) != 2 {
					bad = fmt.Errorf("late arguments: %s: %s invoked with %d data, not the thread and the argument", e.Pos(), op, len(e.Data))
				}
			}
			return bad == nil
		})
		if bad != nil {
			return bad
		}
	}
	return nil
}

// cloneAST returns a deep copy of an AST node (every pointer, slice and
// interface copied; the AST's types have exported fields only).
func cloneAST[T any](n T) T {
	return cloneValue(reflect.ValueOf(&n).Elem()).Interface().(T)
}

func cloneValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(cloneValue(v.Elem()))
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(cloneValue(v.Elem()))
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		for _, i := range astFields(v.Type()) {
			c.Field(i).Set(cloneValue(v.Field(i)))
		}
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(cloneValue(v.Index(i)))
		}
		return c
	}
	return v
}

// closedRef returns the name of the closed copy of definition name.
func (rw *lateRewrite) closedRef(name string) (string, error) {
	if n, ok := rw.closed[name]; ok {
		return n, nil
	}
	p := rw.procs[name]
	if p == nil {
		return "", fmt.Errorf("late arguments: no definition %s", name)
	}
	n := name + rw.mark
	rw.closed[name] = n
	rw.reached[name] = true
	body, err := rw.closedProc(p.Body)
	if err != nil {
		return "", err
	}
	rw.decls = append(rw.decls, &lang.ProcDecl{Span: p.Span, Name: &lang.Ident{Span: p.Name.Span, Name: n}, Params: p.Params, Body: body})
	return n, nil
}

// closedProc copies p with references renamed to closed copies and the
// invocation families rewritten.
func (rw *lateRewrite) closedProc(p lang.Proc) (lang.Proc, error) {
	var err error
	sub := func(q lang.Proc) lang.Proc {
		if err != nil || q == nil {
			return q
		}
		var r lang.Proc
		r, err = rw.closedProc(q)
		return r
	}
	switch x := p.(type) {
	case *lang.SkipProc, *lang.StopProc:
		return p, nil
	case *lang.RefProc:
		c := *x
		n, e := rw.closedRef(x.Name.Name)
		if e != nil {
			return nil, e
		}
		c.Name = &lang.Ident{Span: x.Name.Span, Name: n}
		return &c, nil
	case *lang.IndexedProc:
		if x.IsPar && x.ParOp != lang.Interleave {
			return nil, fmt.Errorf("late arguments: %s: an alphabetised parallel composition", x.Pos())
		}
		if q, ok, e := rw.family(x); e != nil || ok {
			return q, e
		}
		c := *x
		c.Body = sub(x.Body)
		return &c, err
	case *lang.PrefixProc:
		c := *x
		c.Next = sub(x.Next)
		return &c, err
	case *lang.MultiPrefixProc:
		c := *x
		c.Next = sub(x.Next)
		return &c, err
	case *lang.ChanOutProc:
		c := *x
		c.Next = sub(x.Next)
		return &c, err
	case *lang.ChanInProc:
		c := *x
		c.Next = sub(x.Next)
		return &c, err
	case *lang.GuardProc:
		c := *x
		c.Body = sub(x.Body)
		return &c, err
	case *lang.IfProc:
		c := *x
		c.Then, c.Else = sub(x.Then), sub(x.Else)
		return &c, err
	case *lang.CaseProc:
		c := *x
		c.Arms = nil
		for _, a := range x.Arms {
			ca := *a
			ca.Body = sub(a.Body)
			c.Arms = append(c.Arms, &ca)
		}
		c.Default = sub(x.Default)
		return &c, err
	case *lang.SeqProc:
		c := *x
		c.Left, c.Right = sub(x.Left), sub(x.Right)
		return &c, err
	case *lang.ChoiceProc:
		c := *x
		c.Procs = nil
		for _, q := range x.Procs {
			c.Procs = append(c.Procs, sub(q))
		}
		return &c, err
	case *lang.ParProc:
		if x.Op != lang.Interleave {
			return nil, fmt.Errorf("late arguments: %s: an alphabetised parallel composition", x.Pos())
		}
		c := *x
		c.Procs = nil
		for _, q := range x.Procs {
			c.Procs = append(c.Procs, sub(q))
		}
		return &c, err
	case *lang.HideProc, *lang.AtomicProc, *lang.InterruptProc:
		// Hiding could hide a choice or change an invocation, an atomic
		// part or an interrupt could run one with other threads' steps:
		// not known.
		return nil, fmt.Errorf("late arguments: %s: %s on the implementation's side", p.Pos(), procWord(p))
	}
	return nil, fmt.Errorf("late arguments: %s: unknown process form %T", p.Pos(), p)
}

// family rewrites `[] v:A @ OP_inv.T.v -> P` (ok false: x is no family).
func (rw *lateRewrite) family(x *lang.IndexedProc) (lang.Proc, bool, error) {
	if x.IsPar || x.ChoiceOp != lang.GeneralChoice || len(x.Index) != 1 || x.Index[0].Var == nil {
		return nil, false, nil
	}
	v := x.Index[0].Var.Name
	pre, ok := x.Body.(*lang.PrefixProc)
	if !ok || pre.Event == nil || pre.Block != nil || !strings.HasSuffix(pre.Event.Name.Name, "_inv") || len(pre.Event.Data) != 2 {
		return nil, false, nil
	}
	if id, ok := pre.Event.Data[1].(*lang.Ident); !ok || id.Name != v || mentions(pre.Event.Data[0], v) {
		return nil, false, nil
	}
	vals, err := rw.set(x.Index[0].Set)
	if err != nil {
		return nil, false, err
	}
	if len(vals) == 0 {
		return nil, false, fmt.Errorf("late arguments: %s: a family over no value", x.Pos())
	}
	// The thread names the choices: it must be the same value at the
	// choice as at the invocation (no variable in it).
	var unstable *lang.Ident
	eachIdent(pre.Event.Data[0], func(id *lang.Ident) {
		if sym := rw.info.Uses[id]; unstable == nil && (sym == nil || sym.Kind != lang.SymParam && sym.Kind != lang.SymIndex && sym.Kind != lang.SymConst && sym.Kind != lang.SymEnum) {
			unstable = id
		}
	})
	if unstable != nil {
		return nil, false, fmt.Errorf("late arguments: %s: the thread reads %s, which may change", unstable.Pos(), unstable.Name)
	}
	op := strings.TrimSuffix(pre.Event.Name.Name, "_inv")
	if old, ok := rw.values[op]; ok && !slices.Equal(old, vals) {
		return nil, false, fmt.Errorf("late arguments: %s: two families of %s over different values", x.Pos(), op)
	}
	rw.values[op] = vals
	lt := &late{v: v, vals: vals, thread: pre.Event.Data[0]}
	next, err := rw.openProc(pre.Next, lt, true)
	if err != nil {
		return nil, false, err
	}
	ev := *pre.Event
	ev.Data = ev.Data[:1]
	c := *pre
	c.Event, c.Next = &ev, next
	return &c, true, nil
}

// set is the values of an index set (constants).
func (rw *lateRewrite) set(s *lang.IndexSet) ([]int, error) {
	cst := func(e lang.Expr) (int, error) {
		if e == nil {
			return 0, fmt.Errorf("late arguments: an open bound")
		}
		c, ok := rw.info.Consts[e]
		if !ok {
			return 0, fmt.Errorf("late arguments: %s: the values of a family must be constant", e.Pos())
		}
		return int(c), nil
	}
	var vals []int
	if s.Range != nil {
		lo, err := cst(s.Range.Lo)
		if err != nil {
			return nil, err
		}
		hi, err := cst(s.Range.Hi)
		if err != nil {
			return nil, err
		}
		for a := lo; a <= hi; a++ {
			vals = append(vals, a)
		}
		return vals, nil
	}
	for _, e := range s.Elems {
		a, err := cst(e)
		if err != nil {
			return nil, err
		}
		vals = append(vals, a)
	}
	slices.Sort(vals)
	return slices.Compact(vals), nil
}

// late is an open argument: its name (v; a name used nowhere when the
// value is dead), its values and the thread's expression.
type late struct {
	v      string
	vals   []int
	thread lang.Expr
}

// openRef returns the name of the open copy of definition name with
// parameter k open (k < 0: no parameter holds the value); top says the
// copy's first step is the thread's only next step (not under a guard
// or a choice of the caller).
func (rw *lateRewrite) openRef(name string, k int, lt *late, args []lang.Expr, top bool) (string, error) {
	// The thread, in the callee's names: it must be passed bare.
	tid, ok := lt.thread.(*lang.Ident)
	j := -1
	if ok {
		j = slices.IndexFunc(args, func(a lang.Expr) bool { id, ok := a.(*lang.Ident); return ok && id.Name == tid.Name })
	}
	if j < 0 || j == k {
		return "", fmt.Errorf("late arguments: %s: the thread must be passed bare to %s", lt.thread.Pos(), name)
	}
	key := fmt.Sprintf("%s#%d#%d#%v", name, k, j, top)
	if n, ok := rw.open[key]; ok {
		return n, nil
	}
	p := rw.procs[name]
	if p == nil {
		return "", fmt.Errorf("late arguments: no definition %s", name)
	}
	n := fmt.Sprintf("%s%s_open%d_%d", name, rw.mark, k+1, j)
	if !top {
		n += "_guarded"
	}
	rw.open[key] = n
	rw.reached[name] = true
	params := slices.Clone(p.Params)
	inner := &late{v: "none" + rw.mark, vals: lt.vals, thread: &lang.Ident{Span: p.Params[j].Span, Name: p.Params[j].Name}}
	if k >= 0 {
		inner.v = p.Params[k].Name
		params = slices.Delete(params, k, k+1)
	}
	rw.decls = append(rw.decls, nil) // reserve the place (definitions print in order)
	at := len(rw.decls) - 1
	body, err := rw.openProc(p.Body, inner, top)
	if err != nil {
		return "", err
	}
	rw.decls[at] = &lang.ProcDecl{Span: p.Span, Name: &lang.Ident{Span: p.Name.Span, Name: n}, Params: params, Body: body}
	return n, nil
}

// openProc rewrites p run with lt's value open. top says p's first step
// is the thread's only next step (not under a guard or a choice).
func (rw *lateRewrite) openProc(p lang.Proc, lt *late, top bool) (lang.Proc, error) {
	reads := func(n any) bool { return mentions(n, lt.v) }
	switch x := p.(type) {
	case *lang.StopProc:
		return p, nil
	case *lang.RefProc:
		k := -1
		for i, a := range x.Args {
			if id, ok := a.(*lang.Ident); ok && id.Name == lt.v && k < 0 {
				k = i
				continue
			}
			if mentions(a, lt.v) {
				return nil, fmt.Errorf("late arguments: %s: a process argument reads the open value", a.Pos())
			}
		}
		n, err := rw.openRef(x.Name.Name, k, lt, x.Args, top)
		if err != nil {
			return nil, err
		}
		c := *x
		c.Name = &lang.Ident{Span: x.Name.Span, Name: n}
		if k >= 0 {
			c.Args = slices.Delete(slices.Clone(x.Args), k, k+1)
		}
		return &c, nil
	case *lang.PrefixProc:
		silent := x.Event == nil || x.Event.Name.Name == "tau"
		if silent && x.Block != nil && reads(x.Block) || silent && rw.nextReads(x.Next, lt) {
			return rw.split(nil, x, lt)
		}
		if silent {
			next, err := rw.openProc(x.Next, lt, true)
			if err != nil {
				return nil, err
			}
			c := *x
			c.Next = next
			return &c, nil
		}
		// A visible step: the choice first, as a step of its own.
		if !top {
			return nil, fmt.Errorf("late arguments: %s: a visible step with the value open under a guard or a choice", x.Pos())
		}
		return rw.chooseFirst(x, lt)
	case *lang.GuardProc:
		if pre, ok := x.Body.(*lang.PrefixProc); ok && (pre.Event == nil || pre.Event.Name.Name == "tau") {
			if reads(x.Cond) || pre.Block != nil && reads(pre.Block) || rw.nextReads(pre.Next, lt) {
				return rw.split(x.Cond, pre, lt)
			}
		}
		if reads(x.Cond) {
			return nil, fmt.Errorf("late arguments: %s: a guard reads the open value before a step that cannot be split", x.Pos())
		}
		body, err := rw.openProc(x.Body, lt, false)
		if err != nil {
			return nil, err
		}
		c := *x
		c.Body = body
		return &c, nil
	case *lang.ChoiceProc:
		if x.Op != lang.GeneralChoice {
			break
		}
		c := *x
		c.Procs = nil
		for _, q := range x.Procs {
			r, err := rw.openProc(q, lt, false)
			if err != nil {
				return nil, err
			}
			c.Procs = append(c.Procs, r)
		}
		return &c, nil
	case *lang.IndexedProc:
		if x.IsPar || x.ChoiceOp != lang.GeneralChoice || slices.ContainsFunc(x.Index, func(iv *lang.IndexVar) bool {
			// (An index variable named like the value or a name of the
			// thread would hide it.)
			return iv.Var != nil && (iv.Var.Name == lt.v || mentions(lt.thread, iv.Var.Name)) || reads(iv.Set)
		}) {
			break
		}
		body, err := rw.openProc(x.Body, lt, false)
		if err != nil {
			return nil, err
		}
		c := *x
		c.Body = body
		return &c, nil
	}
	return nil, fmt.Errorf("late arguments: %s: %T with the value open", p.Pos(), p)
}

// nextReads reports whether the process after a silent step reads the
// open value in a way the rewrite cannot carry: a reference with v in an
// argument that is not bare. (A bare v is carried by an open copy.)
func (rw *lateRewrite) nextReads(p lang.Proc, lt *late) bool {
	if r, ok := p.(*lang.RefProc); ok {
		for _, a := range r.Args {
			if id, ok := a.(*lang.Ident); ok && id.Name == lt.v {
				continue
			}
			if mentions(a, lt.v) {
				return true
			}
		}
	}
	return false
}

// split is `[] v:A @ [cond] choose.T.v{block} -> Q` for the silent step
// `[cond] tau{block} -> Q`, Q closed.
func (rw *lateRewrite) split(cond lang.Expr, pre *lang.PrefixProc, lt *late) (lang.Proc, error) {
	next, err := rw.closedProc(pre.Next)
	if err != nil {
		return nil, err
	}
	c := *pre
	c.Event = rw.chooseEvent(pre, lt)
	c.Next = next
	var body lang.Proc = &c
	if cond != nil {
		body = &lang.GuardProc{Span: pre.Span, Cond: cond, Body: body}
	}
	return rw.overValues(body, lt), nil
}

// chooseFirst is `[] v:A @ choose.T.v -> x` for a visible step x, x closed.
func (rw *lateRewrite) chooseFirst(x *lang.PrefixProc, lt *late) (lang.Proc, error) {
	q, err := rw.closedProc(x)
	if err != nil {
		return nil, err
	}
	return rw.overValues(&lang.PrefixProc{Span: x.Span, Event: rw.chooseEvent(x, lt), Next: q}, lt), nil
}

func (rw *lateRewrite) chooseEvent(at *lang.PrefixProc, lt *late) *lang.EventExpr {
	th := lt.thread
	return &lang.EventExpr{Span: at.Span, Name: &lang.Ident{Span: at.Span, Name: rw.choose}, Data: []lang.Expr{th, &lang.Ident{Span: at.Span, Name: lt.v}}}
}

// overValues is `[] v:{a1, a2, ..} @ body` over the family's values,
// written as literals: the family's own set, an expression, could read
// another name where the split is (a parameter of an open copy).
func (rw *lateRewrite) overValues(body lang.Proc, lt *late) lang.Proc {
	vals := lt.vals
	if rw.mutant == 2 && len(vals) > 1 {
		vals = vals[:len(vals)-1] // Mutant: the split forgets the last value.
	}
	set := &lang.IndexSet{}
	for _, a := range vals {
		set.Elems = append(set.Elems, &lang.IntLit{Value: int64(a)})
	}
	return &lang.IndexedProc{ChoiceOp: lang.GeneralChoice,
		Index: []*lang.IndexVar{{Var: &lang.Ident{Name: lt.v}, Set: set}}, Body: body}
}

// containsIn reports whether some name has s in it.
func containsIn(names map[string]bool, s string) bool {
	for n := range names {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// procWord names a process form in messages.
func procWord(p lang.Proc) string {
	switch p.(type) {
	case *lang.HideProc:
		return "hiding"
	case *lang.AtomicProc:
		return "an atomic part"
	case *lang.InterruptProc:
		return "an interrupt"
	}
	return fmt.Sprintf("%T", p)
}

// eachNode calls f for every pointer in the AST below n (n's own
// included), depth first, while f returns true.
func eachNode(n any, f func(any) bool) {
	walkAST(reflect.ValueOf(n), f)
}

func walkAST(v reflect.Value, f func(any) bool) bool {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return true
		}
		if !f(v.Interface()) {
			return false
		}
		return walkAST(v.Elem(), f)
	case reflect.Interface:
		if v.IsNil() {
			return true
		}
		return walkAST(v.Elem(), f)
	case reflect.Struct:
		for _, i := range astFields(v.Type()) {
			if !walkAST(v.Field(i), f) {
				return false
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if !walkAST(v.Index(i), f) {
				return false
			}
		}
	}
	return true
}

// astFieldsOf memoises astFields (a map replaced, never changed).
var astFieldsOf atomic.Pointer[map[reflect.Type][]int]

// astFields returns the fields of a struct type of the AST that may hold
// pointers (the others, positions and names, are neither walked nor
// cloned: they are values). The AST's types have exported fields only.
func astFields(t reflect.Type) []int {
	m := astFieldsOf.Load()
	if m != nil {
		if f, ok := (*m)[t]; ok {
			return f
		}
	}
	var out []int
	for i := range t.NumField() {
		if t.Field(i).IsExported() && holdsPointers(t.Field(i).Type) {
			out = append(out, i)
		}
	}
	n := map[reflect.Type][]int{t: out}
	if m != nil {
		maps.Copy(n, *m)
	}
	astFieldsOf.Store(&n) // (a racing store loses an entry, found again later)
	return out
}

func holdsPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// eachIdent calls f for every identifier in the AST below n.
func eachIdent(n any, f func(*lang.Ident)) {
	eachNode(n, func(x any) bool {
		if id, ok := x.(*lang.Ident); ok {
			f(id)
		}
		return true
	})
}

// mentions reports whether the name occurs in n (syntactically: a
// conservative "reads").
func mentions(n any, name string) bool {
	found := false
	eachNode(n, func(x any) bool {
		if id, ok := x.(*lang.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// lateCtx is what a check with arguments chosen late needs besides the
// rewritten model: the original model's program (compiled on demand) and
// assertion (a counterexample is replayed there), the families' values
// and the choices' event.
type lateCtx struct {
	orig   func() (*csp.Program, error)
	a      *lang.AssertDecl
	values map[string][]int
	choose string
}

// lateSetup is the rewritten model of m (checked: c), checked and
// compiled, with the families' values and the choices' event; an error
// (a model the rewrite does not know) says why there is none. A panic of
// the rewrite is an error too.
func lateSetup(m *lang.File, c *lang.Checked, mutant int, only map[*lang.AssertDecl]bool) (lc *lang.Checked, prog *csp.Program, out *lateOut, err error) {
	defer func() {
		// A model the rewrite does not know must not become a crash.
		if r := recover(); r != nil {
			lc, prog, out, err = nil, nil, nil, fmt.Errorf("late arguments: internal error: %v", r)
		}
	}()
	if out, err = lateModel(m, c.Info, mutant, only); err != nil {
		return nil, nil, nil, err
	}
	if lc, prog, err = load(out.file); err != nil {
		return nil, nil, nil, fmt.Errorf("late arguments: internal error: the rewritten model: %v", err)
	}
	if !sameAsserts(c.Info.Asserts, lc.Info.Asserts) {
		return nil, nil, nil, fmt.Errorf("late arguments: internal error: the rewritten model's assertions are not the model's")
	}
	return lc, prog, out, nil
}

// sameAsserts reports whether the rewritten model's assertions are the
// original's, one for one.
func sameAsserts(a, b []*lang.AssertDecl) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || (a[i].Map == nil) != (b[i].Map == nil) || a[i].Pos() != b[i].Pos() {
			return false
		}
	}
	return true
}

// lateTraces maps a trace of the rewritten model to traces of the
// original: each open invocation OP_inv.T gets the value of T's next
// choice choose.T.A, and the choices are dropped. An invocation whose
// thread never chose may stand for any value: the traces for every
// vector of values of those invocations are returned, in lexicographic
// order.
func lateTraces(trace []string, values map[string][]int, choose string) ([][]string, error) {
	type slot struct {
		at   int
		vals []int
	}
	out := make([]string, 0, len(trace))
	var free []slot
	for i, name := range trace {
		base, data := lts.SplitName(name)
		if base == choose {
			continue
		}
		op, ok := strings.CutSuffix(base, "_inv")
		vals := values[op]
		if !ok || vals == nil || len(data) != 1 {
			out = append(out, name)
			continue
		}
		t := data[0]
		chosen := false
		for _, later := range trace[i+1:] {
			b, d := lts.SplitName(later)
			if b == choose && len(d) == 2 && d[0] == t {
				out = append(out, fmt.Sprintf("%s.%d.%d", base, t, d[1]))
				chosen = true
				break
			}
		}
		if !chosen {
			free = append(free, slot{len(out), vals})
			out = append(out, name)
		}
	}
	var res [][]string
	idx := make([]int, len(free))
	for {
		tr := slices.Clone(out)
		for j, f := range free {
			tr[f.at] = fmt.Sprintf("%s.%d", tr[f.at], f.vals[idx[j]])
		}
		res = append(res, tr)
		j := len(idx) - 1
		for j >= 0 {
			idx[j]++
			if idx[j] < len(free[j].vals) {
				break
			}
			idx[j] = 0
			j--
		}
		if j < 0 {
			return res, nil
		}
	}
}

// replayLate returns a shortest path of sys (tau steps included) that
// performs the trace of visible events (by name) and ends with its last
// event, as a refinement counterexample's path; an error if there is none.
func replayLate(ctx context.Context, sys *csp.Proc, trace []string) (*refine.Counterexample, error) {
	type node struct {
		s lts.State
		k int // events of the trace done
	}
	type visit struct {
		parent int // index in order; -1 for the start
		ev     lts.Event
	}
	tab := sys.Events()
	start := node{sys.Initial(), 0}
	seen := map[node]bool{start: true}
	order, from := []node{start}, []visit{{-1, lts.Tau}}
	var buf []lts.Transition
	for i := 0; i < len(order); i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		x := order[i]
		var err error
		if buf, err = sys.Successors(x.s, buf[:0]); err != nil {
			return nil, err
		}
		for _, tr := range buf {
			y := node{tr.Target, x.k}
			if tr.Event != lts.Tau {
				if x.k == len(trace) || tab.Name(tr.Event) != trace[x.k] {
					continue
				}
				y.k++
			}
			if seen[y] {
				continue
			}
			seen[y] = true
			order, from = append(order, y), append(from, visit{i, tr.Event})
			if y.k == len(trace) && tr.Event != lts.Tau {
				// The path back to the start.
				rc := &refine.Counterexample{Trace: trace, Event: trace[len(trace)-1], Initial: sys.Describe(start.s)}
				for j := len(order) - 1; j > 0; j = from[j].parent {
					st := refine.Step{Event: "tau", State: order[j].s, Vars: sys.Describe(order[j].s)}
					if e := from[j].ev; e != lts.Tau {
						st.Event, st.Visible = tab.Name(e), true
					}
					rc.Path = append(rc.Path, st)
				}
				slices.Reverse(rc.Path)
				return rc, nil
			}
		}
	}
	done := 0
	for _, x := range order {
		done = max(done, x.k)
	}
	return nil, fmt.Errorf("event %d (%s) is not possible", done+1, trace[min(done, len(trace)-1)])
}

// lateOffered maps events of the rewritten model to the model's: an open
// invocation OP_inv.T stands for OP_inv.T.A for each value A; choices go.
func lateOffered(offered []string, values map[string][]int, choose string) []string {
	var out []string
	for _, name := range offered {
		base, data := lts.SplitName(name)
		if base == choose {
			continue
		}
		if op, ok := strings.CutSuffix(base, "_inv"); ok && values[op] != nil && len(data) == 1 {
			for _, a := range values[op] {
				out = append(out, fmt.Sprintf("%s.%d.%d", base, data[0], a))
			}
			continue
		}
		out = append(out, name)
	}
	return out
}

// validateLate maps a counterexample of the rewritten model back
// (lateTraces), replays it on the original implementation (its steps are
// that path's) and re-checks it with the history engine, as every
// linearizes counterexample is. Of the traces an unchosen argument
// leaves, the first the history engine confirms is reported, with the
// events the specification offers after it on the model
// (offeredOnModel).
func validateLate(ctx context.Context, spec lts.Automaton, cfg *relax.Config, naming linearize.Naming, ce *Counterexample, lt *lateCtx) error {
	traces, err := lateTraces(ce.Trace, lt.values, lt.choose)
	if err != nil {
		return err
	}
	prog, err := lt.orig()
	if err != nil {
		return err
	}
	impl, err := prog.Process(lt.a.Left)
	if err != nil {
		return err
	}
	var why error
	for _, tr := range traces {
		rc, err := replayLate(ctx, impl, tr)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			why = fmt.Errorf("internal error: a counterexample of the late arguments is no trace of the implementation: %v", err)
			continue
		}
		lines, expl, err := validateLinearizes(ctx, spec, cfg, naming, tr)
		if err != nil {
			why = err
			continue
		}
		// What the specification offers after the prefix, as the check
		// without the option says it: on the model, not the rewritten
		// one (whose object offers an open invocation's every value).
		rc.Offered, err = offeredOnModel(prog, lt.a, cfg, naming, spec.Events(), lt, tr)
		if err != nil {
			rc.Offered = nil
			expl += fmt.Sprintf(" (the events the specification offers are not known: %v)", err)
		}
		*ce = *pathSteps(prog, impl, rc)
		ce.History, ce.Explanation = lines, expl
		return nil
	}
	return why
}

// offeredOnModel returns the events the specification of assertion lt.a,
// made an object of the model's program (linearize.Wrapper, no argument
// chosen late), offers after trace without its last event, by name,
// sorted: a counterexample's Offered as the check without the option
// gives it. The object offers invocations among the events interned;
// seen, the rewritten model's events (every one its search met), are
// interned first as the model's (an open invocation as one per value).
func offeredOnModel(prog *csp.Program, a *lang.AssertDecl, cfg *relax.Config, naming linearize.Naming, seen *lts.EventTable, lt *lateCtx, trace []string) ([]string, error) {
	specSys, err := prog.Process(a.Right)
	if err != nil {
		return nil, err
	}
	var spec lts.Automaton = lts.NewTauClosed(specSys)
	if cfg != nil {
		r, err := relax.New(spec, *cfg)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		spec = r
	}
	tab := prog.Events()
	for e := 1; e < seen.Len(); e++ {
		for _, n := range lateOffered([]string{seen.Name(lts.Event(e))}, lt.values, lt.choose) {
			tab.InternName(n)
		}
	}
	w := linearize.New(spec, naming)
	set := w.Start(nil)
	for _, name := range trace[:len(trace)-1] {
		e := tab.InternName(name)
		var next []lts.State
		for _, s := range set {
			if next, err = w.Step(s, e, next); err != nil {
				return nil, err
			}
		}
		slices.Sort(next)
		set = slices.Compact(next)
	}
	var offered []lts.Event
	for _, s := range set {
		if offered, err = w.Enabled(s, offered); err != nil {
			return nil, err
		}
	}
	slices.Sort(offered)
	out := make([]string, 0, len(offered))
	for _, e := range slices.Compact(offered) {
		out = append(out, tab.Name(e))
	}
	slices.Sort(out)
	return out, nil
}
