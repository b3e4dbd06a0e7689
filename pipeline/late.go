package pipeline

import (
	"context"
	"fmt"
	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/relax"
	"reflect"
	"slices"
	"strings"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// Arguments chosen late (Options.LateArgs, a prototype; docs/linearizes.md,
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
// event choose.T.a: a silent step (tau or a bare block) that reads v
// becomes `[] v:A @ [guard] choose.T.v{block} -> Q`; a visible step, which
// may only be split where it is the thread's only next step (not under a
// guard or a choice), is preceded by its own step `[] v:A @ choose.T.v ->`.
// A process P(.., v, ..) reached with v bare gets an open copy without
// that parameter; the definitions reachable from the assertion get closed
// copies in which the families are rewritten. A shape the rewrite does not
// know (if, case, sequences, parallel or atomic parts, channels, a value
// read in a process argument) while v is open leaves the model as it is
// (lateModel returns an error saying where).
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
	decls  []lang.Decl
	values map[string][]int // op -> the values of its family
	// mutant, when not 0, breaks the rewrite on purpose (tests): 2 the
	// split forgets a value.
	mutant int
}

// lateChoose is the base name of the choice events.
const lateChoose = "choose"

// lateSuffix ends the names of the rewritten definitions.
const lateSuffix = "__late"

// lateModel returns the model m with the implementations of its linearizes
// assertions rewritten (m itself is not changed: the result is a new
// parse of the rewritten text) and, by op, the values of the invocation
// families it rewrote.
func lateModel(m *lang.File, mutant int) (*lang.File, map[string][]int, error) {
	// A private copy of the tree: print and parse again.
	cp, err := lang.Parse(m.Path, lang.Format(m))
	if err != nil {
		return nil, nil, fmt.Errorf("late arguments: %v", err)
	}
	cp.Comments = nil
	// The constants of the copy (the set of a family is constant).
	ch, err := lang.Check(cp)
	if err != nil {
		return nil, nil, fmt.Errorf("late arguments: %v", err)
	}
	rw := &lateRewrite{info: ch.Info, procs: map[string]*lang.ProcDecl{}, closed: map[string]string{}, open: map[string]string{}, values: map[string][]int{}, mutant: mutant}
	for _, d := range cp.Decls {
		if p, ok := d.(*lang.ProcDecl); ok {
			rw.procs[p.Name.Name] = p
		}
	}
	any := false
	for _, d := range cp.Decls {
		a, ok := d.(*lang.AssertDecl)
		if !ok || a.Kind != lang.KindLinearizes || a.Map != nil {
			continue
		}
		left, err := rw.closedProc(a.Left)
		if err != nil {
			return nil, nil, err
		}
		a.Left = left
		any = true
	}
	if !any || len(rw.values) == 0 {
		return nil, nil, fmt.Errorf("late arguments: no invocation family to rewrite")
	}
	cp.Decls = append(cp.Decls, rw.decls...)
	out, err := lang.Parse(m.Path, lang.Format(cp))
	if err != nil {
		return nil, nil, fmt.Errorf("late arguments: internal error: the rewritten model does not parse: %v\n%s", err, lang.Format(cp))
	}
	return out, rw.values, nil
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
	n := name + lateSuffix
	rw.closed[name] = n
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
		c := *x
		c.Procs = nil
		for _, q := range x.Procs {
			c.Procs = append(c.Procs, sub(q))
		}
		return &c, err
	case *lang.HideProc:
		c := *x
		c.Body = sub(x.Body)
		return &c, err
	case *lang.AtomicProc:
		c := *x
		c.Body = sub(x.Body)
		return &c, err
	case *lang.InterruptProc:
		c := *x
		c.Left, c.Right = sub(x.Left), sub(x.Right)
		return &c, err
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
	op := strings.TrimSuffix(pre.Event.Name.Name, "_inv")
	if old, ok := rw.values[op]; ok && !slices.Equal(old, vals) {
		return nil, false, fmt.Errorf("late arguments: %s: two families of %s over different values", x.Pos(), op)
	}
	rw.values[op] = vals
	lt := &late{v: v, set: x.Index[0].Set, thread: pre.Event.Data[0]}
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
// value is dead), its set and the thread's expression.
type late struct {
	v      string
	set    *lang.IndexSet
	thread lang.Expr
}

// openRef returns the name of the open copy of definition name with
// parameter k open (k < 0: no parameter holds the value).
func (rw *lateRewrite) openRef(name string, k int, lt *late, args []lang.Expr) (string, error) {
	// The thread, in the callee's names: it must be passed bare.
	tid, ok := lt.thread.(*lang.Ident)
	j := -1
	if ok {
		j = slices.IndexFunc(args, func(a lang.Expr) bool { id, ok := a.(*lang.Ident); return ok && id.Name == tid.Name })
	}
	if j < 0 || j == k {
		return "", fmt.Errorf("late arguments: %s: the thread must be passed bare to %s", lt.thread.Pos(), name)
	}
	key := fmt.Sprintf("%s#%d#%d", name, k, j)
	if n, ok := rw.open[key]; ok {
		return n, nil
	}
	p := rw.procs[name]
	if p == nil {
		return "", fmt.Errorf("late arguments: no definition %s", name)
	}
	n := fmt.Sprintf("%s__open%d_%d%s", name, k+1, j, lateSuffix)
	rw.open[key] = n
	params := slices.Clone(p.Params)
	inner := &late{v: "__none", set: lt.set, thread: &lang.Ident{Span: p.Params[j].Span, Name: p.Params[j].Name}}
	if k >= 0 {
		inner.v = p.Params[k].Name
		params = slices.Delete(params, k, k+1)
	}
	rw.decls = append(rw.decls, nil) // reserve the place (definitions print in order)
	at := len(rw.decls) - 1
	body, err := rw.openProc(p.Body, inner, true)
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
		n, err := rw.openRef(x.Name.Name, k, lt, x.Args)
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
		if x.IsPar || x.ChoiceOp != lang.GeneralChoice || reads(x.Index[0].Set) || slices.ContainsFunc(x.Index, func(iv *lang.IndexVar) bool { return iv.Var != nil && iv.Var.Name == lt.v }) {
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
	return &lang.EventExpr{Span: at.Span, Name: &lang.Ident{Span: at.Span, Name: lateChoose}, Data: []lang.Expr{th, &lang.Ident{Span: at.Span, Name: lt.v}}}
}

func (rw *lateRewrite) overValues(body lang.Proc, lt *late) lang.Proc {
	set := lt.set
	if rw.mutant == 2 && set.Range != nil {
		// Mutant: the split forgets the last value.
		s := *set
		r := *set.Range
		r.Hi = &lang.BinaryExpr{Span: r.Span, Op: "-", X: r.Hi, Y: &lang.IntLit{Span: r.Span, Value: 1}}
		s.Range = &r
		set = &s
	}
	return &lang.IndexedProc{ChoiceOp: lang.GeneralChoice,
		Index: []*lang.IndexVar{{Var: &lang.Ident{Name: lt.v}, Set: set}}, Body: body}
}

// mentions reports whether the name occurs in n (syntactically: a
// conservative "reads").
func mentions(n any, name string) bool {
	found := false
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if found || !v.IsValid() {
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return
			}
			if id, ok := v.Interface().(*lang.Ident); ok {
				found = found || id.Name == name
				return
			}
			walk(v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(n))
	return found
}

// lateCtx is what a check with arguments chosen late needs besides the
// rewritten model: the original model's program and assertion (a
// counterexample is replayed there) and the families' values.
type lateCtx struct {
	prog   *csp.Program
	a      *lang.AssertDecl
	values map[string][]int
	mutant int
}

// lateSetup rewrites m for Options.LateArgs: the rewritten model's checked
// form and program, and its assertions (in the order of m's).
func lateSetup(m *lang.File, mutant int) (c *lang.Checked, prog *csp.Program, vals map[string][]int, err error) {
	defer func() {
		// The option must not turn a model it does not know into a crash.
		if r := recover(); r != nil {
			c, prog, vals, err = nil, nil, nil, fmt.Errorf("late arguments: internal error: %v", r)
		}
	}()
	lm, vals, err := lateModel(m, mutant)
	if err != nil {
		return nil, nil, nil, err
	}
	c, prog, err = load(lm)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("late arguments: internal error: the rewritten model: %v", err)
	}
	return c, prog, vals, nil
}

// sameAsserts reports whether the rewritten model's assertions are the
// original's, one for one (a model whose included files the rewrite does
// not carry over is checked as without the option).
func sameAsserts(a, b []*lang.AssertDecl) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || (a[i].Map == nil) != (b[i].Map == nil) {
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
func lateTraces(trace []string, values map[string][]int) ([][]string, error) {
	type slot struct {
		at   int
		vals []int
	}
	out := make([]string, 0, len(trace))
	var free []slot
	for i, name := range trace {
		base, data := lts.SplitName(name)
		if base == lateChoose {
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
			if b == lateChoose && len(d) == 2 && d[0] == t {
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

// hasTrace reports whether sys has the trace of visible events (by name).
func hasTrace(sys lts.System, trace []string) error {
	tab := sys.Events()
	cur := []lts.State{sys.Initial()}
	var buf []lts.Transition
	closure := func(set []lts.State) ([]lts.State, error) {
		seen := map[lts.State]bool{}
		for _, s := range set {
			seen[s] = true
		}
		for i := 0; i < len(set); i++ {
			var err error
			if buf, err = sys.Successors(set[i], buf[:0]); err != nil {
				return nil, err
			}
			for _, tr := range buf {
				if tr.Event == lts.Tau && !seen[tr.Target] {
					seen[tr.Target] = true
					set = append(set, tr.Target)
				}
			}
		}
		return set, nil
	}
	var err error
	for i, name := range trace {
		if cur, err = closure(cur); err != nil {
			return err
		}
		var next []lts.State
		for _, s := range cur {
			if buf, err = sys.Successors(s, buf[:0]); err != nil {
				return err
			}
			for _, tr := range buf {
				if tr.Event != lts.Tau && tab.Name(tr.Event) == name && !slices.Contains(next, tr.Target) {
					next = append(next, tr.Target)
				}
			}
		}
		if len(next) == 0 {
			return fmt.Errorf("event %d (%s) is not possible", i+1, name)
		}
		cur = next
	}
	return nil
}

// validateLate maps a counterexample of the rewritten model back
// (lateTraces), replays it on the original implementation and re-checks
// it with the history engine, as every linearizes counterexample is. Of
// the traces an unchosen argument leaves, the first the history engine
// confirms is reported.
func validateLate(ctx context.Context, spec lts.Automaton, cfg *relax.Config, naming linearize.Naming, ce *Counterexample, lt *lateCtx) error {
	traces, err := lateTraces(ce.Trace, lt.values)
	if err != nil {
		return err
	}
	impl, err := lt.prog.Process(lt.a.Left)
	if err != nil {
		return err
	}
	var why error
	for _, tr := range traces {
		if err := hasTrace(impl, tr); err != nil {
			why = fmt.Errorf("internal error: a counterexample of the late arguments is no trace of the implementation: %v", err)
			continue
		}
		lines, expl, err := validateLinearizes(ctx, spec, cfg, naming, tr)
		if err != nil {
			why = err
			continue
		}
		ce.Trace, ce.Steps, ce.History, ce.Explanation = tr, nil, lines, expl
		return nil
	}
	ce.History = nil
	return why
}
