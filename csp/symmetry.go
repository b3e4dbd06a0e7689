package csp

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// Thread symmetry.
//
// The implementations of the library run N copies of one thread process,
// `Impl() = ||| t:{0..N-1} @ Thread(t)`, whose only use of its identity t is
// to name its own registers: entries t of global arrays of length N (`es[t]`).
// Renaming the threads by a permutation π (thread i becomes thread π(i), and
// entry i of every such "thread array" becomes entry π(i)) then maps every
// transition to a transition with the same event, so the renamed state has
// the same traces (it is an automorphism of the LTS). A search may therefore
// store one state per orbit, and for two threads it stores about half as
// many (Ip and Dill, "Better verification through symmetry", 1996; Emerson
// and Sistla, 1996).
//
// findSymmetry proves the renaming is an automorphism by a typing of the
// process's reachable definitions, conservative on everything it does not
// know. The thread id t may only
//   - index a thread array (a global one-dimensional array of length N),
//   - be compared with == or != to a thread id (only t itself exists),
//   - be passed on to a parameter of another definition of the thread family
//     (which then is a thread id, and must be one at every call);
//
// it may not be a value: no arithmetic, no event data, no assignment, no
// argument of a macro. Thread arrays may be indexed only by t, except in an
// event block's runs of "per-thread statements": statements that touch only
// entries c of thread arrays (constant c) and constants, and that occur for
// every c in 0..N-1 with the same text. Such statements touch disjoint
// variables, so a run of them is the same update in any order, and the
// renaming permutes its groups. The thread arrays' initial values must be
// equal. Channels, hiding, interrupts and nested parallel compositions in a
// thread reject the symmetry. The search keeps the canonical representative
// of each orbit (Proc.canon); counterexamples are mapped back to the
// unreduced process and re-validated there (Proc.Unreduce).
type symmetry struct {
	n      int
	events bool             // the thread id is the first datum of every event (SymmetricEventsProcess)
	arrays []int            // first global slot of each thread array; entry i is at +i
	tid    map[*procDef]int // the env slot of the thread id, per definition of the family
}

// symCheck is the typing of findSymmetry.
type symCheck struct {
	p      *Program
	info   *lang.Info
	n      int
	tid    map[*lang.ProcDecl]int // thread-id parameter (-1: none)
	work   []*lang.ProcDecl
	arrays map[*lang.Symbol]bool
	cur    *lang.ProcDecl
	why    string
	scan   bool // the first pass: find the thread arrays, report nothing
	events bool // SymmetricEventsProcess: every event's first datum is the thread id
}

// findSymmetry returns the thread symmetry of the process q, or nil and
// the reason it was not proved.
func (p *Program) findSymmetry(q lang.Proc, events bool) (*symmetry, string) {
	var body lang.Proc = q
	if r, ok := q.(*lang.RefProc); ok && len(r.Args) == 0 {
		if d := p.info.Procs[r.Name.Name]; d != nil && len(d.Params) == 0 {
			body = d.Body
		}
	}
	d, pos, n, why := p.threads(body)
	if d == nil {
		return nil, why
	}
	c := &symCheck{p: p, info: p.info, n: n, tid: map[*lang.ProcDecl]int{}, arrays: map[*lang.Symbol]bool{}, events: events}
	// Two passes: the first finds the thread arrays, the second types every
	// access with the complete set.
	for pass := 0; pass < 2; pass++ {
		c.tid = map[*lang.ProcDecl]int{d: pos}
		c.work = []*lang.ProcDecl{d}
		c.why = ""
		c.scan = pass == 0
		for len(c.work) > 0 && c.why == "" {
			c.cur = c.work[len(c.work)-1]
			c.work = c.work[:len(c.work)-1]
			c.proc(c.cur.Body)
		}
	}
	if c.why != "" {
		return nil, c.why
	}
	if len(c.arrays) == 0 && !events {
		return nil, "no thread array"
	}
	if events && c.n > lts.MaxPermThreads {
		return nil, fmt.Sprintf("more than %d threads", lts.MaxPermThreads)
	}
	sym := &symmetry{n: c.n, tid: map[*procDef]int{}, events: events}
	for a := range c.arrays {
		vi := p.info.Vars[a.Slot]
		if !allEqual(vi.Init) {
			return nil, fmt.Sprintf("the entries of thread array %s start different", a.Name)
		}
		sym.arrays = append(sym.arrays, p.varBase[a.Slot])
	}
	slices.Sort(sym.arrays)
	for decl, k := range c.tid {
		if k >= 0 {
			sym.tid[p.defs[decl.Name.Name]] = k
		}
	}
	return sym, ""
}

// threads recognises N copies of one thread: `||| t:{0..N-1} @ P(.., t, ..)`
// or `P(.., 0, ..) ||| ... ||| P(.., N-1, ..)`, the other arguments
// constants (the same in every copy). It returns P, the position of the
// thread id among its parameters, and N; or nil and the reason.
func (p *Program) threads(body lang.Proc) (*lang.ProcDecl, int, int, string) {
	const notThreads = "not an interleaving ||| t:{0..N-1} @ P(t) or P(0) ||| ... ||| P(N-1)"
	var calls []*lang.RefProc
	var idx *lang.Symbol // the index variable of an indexed interleaving
	switch x := body.(type) {
	case *lang.IndexedProc:
		if !x.IsPar || x.ParOp != lang.Interleave || len(x.Index) != 1 || x.Index[0].Var == nil || x.Index[0].Set.Range == nil {
			return nil, 0, 0, notThreads
		}
		rg := x.Index[0].Set.Range
		lo, ok1 := p.info.Consts[rg.Lo]
		hi, ok2 := p.info.Consts[rg.Hi]
		call, ok3 := x.Body.(*lang.RefProc)
		if !ok1 || !ok2 || !ok3 || lo != 0 || hi < 1 || hi > 64 {
			return nil, 0, 0, "the threads are not numbered 0..N-1 with constant N >= 2"
		}
		idx = p.info.Defs[x.Index[0].Var]
		for range hi + 1 {
			calls = append(calls, call)
		}
	case *lang.ParProc:
		if x.Op != lang.Interleave || len(x.Procs) > 64 {
			return nil, 0, 0, notThreads
		}
		for _, k := range x.Procs {
			call, ok := k.(*lang.RefProc)
			if !ok {
				return nil, 0, 0, notThreads
			}
			calls = append(calls, call)
		}
	default:
		return nil, 0, 0, notThreads
	}
	d := p.info.Procs[calls[0].Name.Name]
	if d == nil {
		return nil, 0, 0, notThreads
	}
	// The position of the id: the index variable, or the one argument
	// whose constant is i in the i-th copy (the others equal throughout).
	pos := -1
	for k := range calls[0].Args {
		isID, same := true, true
		for i, call := range calls {
			if call.Name.Name != d.Name.Name || len(call.Args) != len(calls[0].Args) {
				return nil, 0, 0, "the threads are not copies of one process"
			}
			a := call.Args[k]
			if id, ok := a.(*lang.Ident); ok && idx != nil && p.info.Uses[id] == idx {
				same = false
				continue
			}
			v, ok := p.info.Consts[a]
			if !ok {
				return nil, 0, 0, "a thread argument is not a constant"
			}
			v0 := p.info.Consts[calls[0].Args[k]]
			isID = isID && idx == nil && v == int64(i)
			same = same && v == v0
		}
		if !same && (idx != nil || isID) {
			if pos >= 0 {
				return nil, 0, 0, "the thread id is passed twice"
			}
			pos = k
		} else if !same {
			return nil, 0, 0, "the threads differ in an argument other than their id"
		}
	}
	if pos < 0 {
		return nil, 0, 0, "the thread does not take its id"
	}
	return d, pos, len(calls), ""
}

func allEqual(vs []int64) bool {
	for _, v := range vs {
		if v != vs[0] {
			return false
		}
	}
	return true
}

func (c *symCheck) fail(n lang.Node, format string, args ...any) {
	if c.why == "" && !c.scan {
		c.why = fmt.Sprintf("%s: %s", n.Pos(), fmt.Sprintf(format, args...))
	}
}

// isTid reports whether e is the current definition's thread id.
func (c *symCheck) isTid(e lang.Expr) bool {
	id, ok := e.(*lang.Ident)
	if !ok {
		return false
	}
	sym := c.info.Uses[id]
	k, has := c.tid[c.cur]
	return has && k >= 0 && sym != nil && sym.Kind == lang.SymParam && sym.Decl == c.cur.Params[k]
}

// threadArray returns the symbol of a global array that can be a thread
// array (one dimension of length n), or nil.
func (c *symCheck) threadArray(e lang.Expr) *lang.Symbol {
	id, ok := e.(*lang.Ident)
	if !ok {
		return nil
	}
	sym := c.info.Uses[id]
	if sym == nil || sym.Kind != lang.SymVar {
		return nil
	}
	if vi := c.info.Vars[sym.Slot]; len(vi.Dims) != 1 || vi.Dims[0] != c.n {
		return nil
	}
	return sym
}

func (c *symCheck) proc(pr lang.Proc) {
	if c.why != "" || pr == nil {
		return
	}
	switch x := pr.(type) {
	case *lang.SkipProc, *lang.StopProc:
	case *lang.RefProc:
		d := c.info.Procs[x.Name.Name]
		if d == nil {
			c.fail(x, "unknown process %s", x.Name.Name)
			return
		}
		for _, prm := range d.Params {
			if c.info.ParamLens[prm] > 0 {
				// Thread ids are env slots by parameter position; an
				// array parameter shifts them. Not reduced (yet).
				c.fail(x, "%s has an array parameter", d.Name.Name)
				return
			}
		}
		k := -1
		for i, a := range x.Args {
			if c.isTid(a) {
				if k >= 0 {
					c.fail(x, "the thread id is passed twice")
				}
				k = i
				continue
			}
			c.expr(a, -1)
		}
		if old, seen := c.tid[d]; seen {
			if old != k {
				c.fail(x, "%s takes the thread id at one call and not at another", d.Name.Name)
			}
			return
		}
		c.tid[d] = k
		c.work = append(c.work, d)
	case *lang.PrefixProc:
		c.event(x.Event)
		c.block(x.Block)
		c.proc(x.Next)
	case *lang.MultiPrefixProc:
		for _, e := range x.Events {
			c.event(e)
		}
		c.proc(x.Next)
	case *lang.GuardProc:
		c.expr(x.Cond, -1)
		c.proc(x.Body)
	case *lang.IfProc:
		c.expr(x.Cond, -1)
		c.proc(x.Then)
		c.proc(x.Else)
	case *lang.CaseProc:
		for _, a := range x.Arms {
			c.expr(a.Cond, -1)
			c.proc(a.Body)
		}
		c.proc(x.Default)
	case *lang.SeqProc:
		c.proc(x.Left)
		c.proc(x.Right)
	case *lang.ChoiceProc:
		for _, k := range x.Procs {
			c.proc(k)
		}
	case *lang.IndexedProc:
		if x.IsPar {
			c.fail(x, "a parallel composition inside a thread")
			return
		}
		c.index(x.Index)
		c.proc(x.Body)
	case *lang.AtomicProc:
		c.proc(x.Body)
	default:
		c.fail(pr, "%T inside a thread", pr)
	}
}

func (c *symCheck) index(ivs []*lang.IndexVar) {
	for _, iv := range ivs {
		if iv.Set.Range != nil {
			c.expr(iv.Set.Range.Lo, -1)
			c.expr(iv.Set.Range.Hi, -1)
		}
		for _, e := range iv.Set.Elems {
			c.expr(e, -1)
		}
	}
}

func (c *symCheck) event(e *lang.EventExpr) {
	if e == nil {
		return
	}
	data := e.Data
	if c.events && !(e.Name.Name == "tau" && len(data) == 0) {
		// The renaming renames the event's thread datum, as the check
		// that uses it does (linearize: OP_inv.T.ARGS).
		if len(data) == 0 || !c.isTid(data[0]) {
			c.fail(e, "event %s does not name the thread id as its first datum", e.Name.Name)
			return
		}
		data = data[1:]
	}
	for _, d := range data {
		c.expr(d, -1)
	}
}

// expr types a data expression: its value must not depend on the thread
// id except through the thread's own thread-array entries. konst >= 0 allows
// the thread arrays' constant entry konst (per-thread statements).
func (c *symCheck) expr(e lang.Expr, konst int64) {
	if c.why != "" || e == nil {
		return
	}
	switch x := e.(type) {
	case *lang.IntLit, *lang.BoolLit:
	case *lang.Ident:
		sym := c.info.Uses[x]
		switch {
		case c.isTid(x):
			c.fail(x, "the thread id %s is used as a value", x.Name)
		case sym != nil && sym.Kind == lang.SymVar && c.arrays[sym]:
			c.fail(x, "thread array %s is used whole", x.Name)
		}
	case *lang.IndexExpr:
		if a := c.threadArray(x.X); a != nil {
			if c.isTid(x.Index) {
				c.arrays[a] = true
				return
			}
			if c.arrays[a] {
				if v, ok := c.info.Consts[x.Index]; ok && v == konst {
					return
				}
				c.fail(x, "thread array %s is indexed by something other than the thread id", a.Name)
				return
			}
		} else if c.isTid(x.Index) {
			c.fail(x, "the thread id indexes an array that is not one entry per thread")
			return
		}
		c.expr(x.X, konst)
		c.expr(x.Index, konst)
	case *lang.BinaryExpr:
		if (x.Op == "==" || x.Op == "!=") && c.isTid(x.X) && c.isTid(x.Y) {
			return
		}
		c.expr(x.X, konst)
		c.expr(x.Y, konst)
	case *lang.UnaryExpr:
		c.expr(x.X, konst)
	case *lang.CondExpr:
		c.expr(x.Cond, konst)
		c.expr(x.X, konst)
		c.expr(x.Y, konst)
	case *lang.CallExpr:
		c.fail(x, "a macro call inside a thread (macros may read the thread arrays)")
	case *lang.IndexedBoolExpr:
		c.index(x.Index)
		c.expr(x.Body, konst)
	case *lang.ArrayLit:
		for _, el := range x.Elems {
			c.expr(el.Value, konst)
			c.expr(el.Count, konst)
			c.expr(el.To, konst)
		}
	default:
		c.fail(e, "unsupported expression %T", e)
	}
}

// block types an event block; see perThread for its runs of per-thread
// statements.
func (c *symCheck) block(b *lang.Block) {
	if b == nil || c.why != "" {
		return
	}
	var run []lang.Stmt
	flush := func() {
		if len(run) > 0 {
			c.run(run)
			run = run[:0]
		}
	}
	for _, s := range b.Stmts {
		if _, _, ok := c.perThread(s); ok {
			run = append(run, s)
			continue
		}
		flush()
		c.stmt(s)
	}
	flush()
}

// run checks a run of per-thread statements: for every thread c, the
// statements of c, with c written as #, are the same list.
func (c *symCheck) run(stmts []lang.Stmt) {
	by := make([][]string, c.n)
	for _, s := range stmts {
		k, shape, _ := c.perThread(s)
		if k < 0 || k >= int64(c.n) {
			c.fail(s, "thread-array entry %d does not exist", k)
			return
		}
		by[k] = append(by[k], shape)
	}
	for k := 1; k < c.n; k++ {
		if !slices.Equal(by[k], by[0]) {
			c.fail(stmts[0], "the statements on the thread arrays' constant entries differ between threads %d and %d", 0, k)
			return
		}
	}
}

// perThread reports whether s is a per-thread statement: it names thread
// arrays at one constant entry k, and otherwise only constants. shape is s
// with k written as #.
func (c *symCheck) perThread(s lang.Stmt) (k int64, shape string, ok bool) {
	k = -1
	var b strings.Builder
	ok = c.shapeStmt(s, &k, &b) && k >= 0
	return k, b.String(), ok
}

func (c *symCheck) shapeStmt(s lang.Stmt, k *int64, b *strings.Builder) bool {
	switch x := s.(type) {
	case *lang.Block:
		b.WriteString("{")
		for _, t := range x.Stmts {
			if !c.shapeStmt(t, k, b) {
				return false
			}
		}
		b.WriteString("}")
		return true
	case *lang.AssignStmt:
		ok := c.shapeExpr(x.LHS, k, b)
		b.WriteString(x.Op)
		return ok && c.shapeExpr(x.RHS, k, b) && wr(b, ";")
	case *lang.IncDecStmt:
		ok := c.shapeExpr(x.LHS, k, b)
		if x.Inc {
			b.WriteString("++;")
		} else {
			b.WriteString("--;")
		}
		return ok
	case *lang.IfStmt:
		b.WriteString("if(")
		if !c.shapeExpr(x.Cond, k, b) || !c.shapeStmt(x.Then, k, b) {
			return false
		}
		if x.Else != nil {
			b.WriteString("else")
			return c.shapeStmt(x.Else, k, b)
		}
		return true
	}
	return false
}

func wr(b *strings.Builder, s string) bool {
	b.WriteString(s)
	return true
}

func (c *symCheck) shapeExpr(e lang.Expr, k *int64, b *strings.Builder) bool {
	if v, ok := c.info.Consts[e]; ok {
		b.WriteString(strconv.FormatInt(v, 10))
		return true
	}
	switch x := e.(type) {
	case *lang.IndexExpr:
		a := c.threadArray(x.X)
		if a == nil || !c.arrays[a] {
			return false
		}
		v, ok := c.info.Consts[x.Index]
		if !ok || (*k >= 0 && *k != v) {
			return false
		}
		*k = v
		b.WriteString(a.Name + "[#]")
		return true
	case *lang.UnaryExpr:
		b.WriteString(x.Op + "(")
		return c.shapeExpr(x.X, k, b) && wr(b, ")")
	case *lang.BinaryExpr:
		b.WriteString("(")
		ok := c.shapeExpr(x.X, k, b)
		b.WriteString(x.Op)
		return ok && c.shapeExpr(x.Y, k, b) && wr(b, ")")
	case *lang.CondExpr:
		b.WriteString("(")
		ok := c.shapeExpr(x.Cond, k, b) && wr(b, "?") && c.shapeExpr(x.X, k, b) && wr(b, ":")
		return ok && c.shapeExpr(x.Y, k, b) && wr(b, ")")
	}
	return false
}

// stmt types a statement that is not per-thread.
func (c *symCheck) stmt(s lang.Stmt) {
	if c.why != "" {
		return
	}
	switch x := s.(type) {
	case *lang.Block:
		c.block(x)
	case *lang.AssignStmt:
		c.expr(x.LHS, -1)
		c.expr(x.RHS, -1)
	case *lang.IncDecStmt:
		c.expr(x.LHS, -1)
	case *lang.LocalVarStmt:
		for _, d := range x.Dims {
			c.expr(d, -1)
		}
		c.expr(x.Init, -1)
	case *lang.IfStmt:
		c.expr(x.Cond, -1)
		c.block(x.Then)
		if x.Else != nil {
			c.stmt(x.Else)
		}
	case *lang.WhileStmt:
		c.expr(x.Cond, -1)
		c.block(x.Body)
	case *lang.ExprStmt:
		c.expr(x.X, -1)
	default:
		c.fail(s, "unsupported statement %T", s)
	}
}

// symState is a Proc's thread symmetry at run time.
type symState struct {
	*symmetry
	pos   [][]int // per thread array, the variable slot of entry i
	at    [][]int // per thread array, the offset of entry i among the stored variables (-1: not stored)
	plain *Proc   // the same process without the reduction (Unreduce)
}

// SymmetricProcess is Process with the thread symmetry of q, when
// findSymmetry proves one: the system stores one state per orbit of the
// thread renamings. It returns the plain process and the reason when there
// is none.
func (p *Program) SymmetricProcess(q lang.Proc) (sys *Proc, why string, err error) {
	return p.symmetricProcess(q, false)
}

// SymmetricEventsProcess is SymmetricProcess for models whose events name
// the thread: the thread id may (and must) be the first datum of every
// visible event, and the renaming renames that datum too, so it maps each
// transition to one with the renamed event (an automorphism up to event
// renaming). A check that uses it must rename its own side alike (refine
// does so for linearize's derived object); SuccessorsMoves reports the
// renaming of each target, and UnreduceRenamed maps a path back.
func (p *Program) SymmetricEventsProcess(q lang.Proc) (sys *Proc, why string, err error) {
	return p.symmetricProcess(q, true)
}

func (p *Program) symmetricProcess(q lang.Proc, events bool) (sys *Proc, why string, err error) {
	plain, err := p.Process(q)
	if err != nil {
		return nil, "", err
	}
	sym, why := p.findSymmetry(q, events)
	if sym == nil {
		return plain, why, nil
	}
	if plain.ncomp != sym.n || plain.op != lang.Interleave || len(plain.hides) > 0 {
		return plain, "the process does not flatten to one component per thread", nil
	}
	// The two share their codes: Unreduce and UnreduceRenamed pass bytes
	// from one to the other.
	red, err := p.process(q, plain.cd)
	if err != nil {
		return nil, "", err
	}
	st := &symState{symmetry: sym, plain: plain}
	for _, base := range sym.arrays {
		var ps, at []int
		for i := range sym.n {
			ps = append(ps, base+i)
			k := base + i
			if red.pos != nil {
				k = int(red.pos[base+i])
			}
			at = append(at, k)
		}
		st.pos = append(st.pos, ps)
		st.at = append(st.at, at)
	}
	red.sym = st
	// Component i must be thread i (its id slot holds i), and the initial
	// state must be its own representative.
	x := red.getScratch()
	defer red.pool.Put(x)
	raw := red.raw(red.init, nil)
	x.comps, x.vars = red.decode(raw, x.comps, x.vars)
	for i, t := range x.comps {
		if id, ok := red.threadID(t); ok && id != int64(i) {
			return plain, fmt.Sprintf("component %d is thread %d", i, id), nil
		}
	}
	x.enc, x.ends = append(x.enc[:0], raw...), append(x.ends[:0], len(raw))
	red.canonAll(x)
	if string(x.enc) != string(raw) {
		return plain, "the initial state is not symmetric", nil
	}
	return red, "", nil
}

// Symmetry is the number of threads whose renamings the system factors
// out, or 0.
func (s *Proc) Symmetry() int {
	if s.sym == nil {
		return 0
	}
	return s.sym.n
}

// Unreduced is the same process without the symmetry reduction (nil if s
// has none): counterexamples are described and re-validated on it.
func (s *Proc) Unreduced() *Proc {
	if s.sym == nil {
		return nil
	}
	return s.sym.plain
}

// Unreduce maps a path of s (events[i] leads into path[i], from the
// initial state) to a path of Unreduced() with the same events: at each
// step it takes the successor whose representative is the reduced path's
// state, which exists because the renamings are automorphisms.
func (s *Proc) Unreduce(events []lts.Event, path []lts.State) (lts.System, []lts.State, error) {
	if s.sym == nil {
		return s, path, nil
	}
	u := s.sym.plain
	cur := u.Initial()
	out := make([]lts.State, 0, len(path))
	x := s.getScratch()
	defer s.pool.Put(x)
	var ts []lts.Transition
	for i, want := range path {
		var err error
		ts, err = u.Successors(cur, ts[:0])
		if err != nil {
			return nil, nil, err
		}
		found := false
		for _, t := range ts {
			if t.Event != events[i] {
				continue
			}
			raw := u.raw(t.Target, nil)
			x.enc, x.ends = append(x.enc[:0], raw...), append(x.ends[:0], len(raw))
			s.canonAll(x)
			if s.idOf(x.enc) == want {
				cur, found = t.Target, true
				break
			}
		}
		if !found {
			return nil, nil, fmt.Errorf("lts: internal error: step %d of a symmetry-reduced path has no unreduced counterpart", i+1)
		}
		out = append(out, cur)
	}
	return u, out, nil
}

// threadID returns the thread id held by term t (false: t holds none).
func (s *Proc) threadID(t uint32) (int64, bool) {
	tm := s.p.term(t)
	if tm.kind == kNode {
		if k, ok := s.sym.tid[tm.node.def]; ok && k < len(tm.env) && readsSlot(tm.node, k) {
			return tm.env[k], true
		}
		return 0, false
	}
	for _, kid := range tm.kids {
		if id, ok := s.threadID(kid); ok {
			return id, true
		}
	}
	return 0, false
}

// readsSlot reports whether leaf terms of n keep env slot k (see leaf).
func readsSlot(n *pnode, k int) bool {
	return n.def.nslots > 64 || n.free&(1<<k) != 0
}

// renameTid returns term t with every thread id replaced by to.
func (p *Program) renameTid(sym *symmetry, t uint32, to int64) uint32 {
	tm := p.term(t)
	switch tm.kind {
	case kStop, kSkip:
		return t
	case kNode:
		k, ok := sym.tid[tm.node.def]
		if !ok || k >= len(tm.env) || !readsSlot(tm.node, k) || tm.env[k] == to {
			return t
		}
		env := slices.Clone(tm.env)
		env[k] = to
		return p.mk(&term{kind: kNode, node: tm.node, env: env})
	}
	kids := make([]uint32, len(tm.kids))
	same := true
	for i, k := range tm.kids {
		kids[i] = p.renameTid(sym, k, to)
		same = same && kids[i] == k
	}
	if same {
		return t
	}
	return p.mk(&term{kind: tm.kind, op: tm.op, kids: kids, set: tm.set, alphas: tm.alphas})
}

// termKey is a structural rendering of t that does not depend on the order
// in which terms were created, so that representatives (and therefore
// counterexamples) do not depend on the number of workers.
func (p *Program) termKey(t uint32, b []byte) []byte {
	tm := p.term(t)
	b = append(b, byte(tm.kind), tm.op)
	if n := tm.node; n != nil {
		// The source position, not n.id: nodes are numbered in an order
		// that depends on map iteration. Not the main file's name either:
		// the order of views decides which pairs a refinement check's
		// antichains keep, and a model's figures must not change when the
		// file is renamed (an included file keeps its name as written).
		b = append(b, byte(n.kind))
		b = append(b, n.def.name...)
		b = append(b, 0)
		if n.src != nil {
			pos := n.src.Pos()
			if pos.File != p.c.File.Path {
				b = append(b, pos.File...)
			}
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(pos.Offset), 10)
		}
		for _, v := range tm.env {
			b = append(b, ',')
			b = strconv.AppendInt(b, v, 10)
		}
	}
	b = append(b, '(')
	for _, k := range tm.kids {
		b = p.termKey(k, b)
		b = append(b, ' ')
	}
	return append(b, ')')
}

// symCache memoises, per scratch, a term's view (its thread id renamed to
// 0), a view's key, and a view renamed to thread j.
type symCache struct {
	view []uint32   // term -> view+1
	key  []viewKey  // view -> key (s == nil: not computed)
	from [][]uint32 // thread -> view -> term+1
	// pair: canonPair's comparison of the terms of threads 0 and 1 (by
	// their codes, one byte each): pair[t0][t1].
	pair  [][]pairMemo
	ord   []int
	views []uint32
	vals  []int64 // thread array a, thread i -> vals[a*n+i]
	// The renaming and ties of the state being canonicalised (canonAll
	// appends them to perms and tiesOf, for SuccessorsMoves).
	perm   lts.Perm
	tie    uint64
	perms  []lts.Perm
	tiesOf []uint64
}

// viewKey orders views: by a hash of their structural key, then by the
// key itself; both are deterministic (termKey).
type viewKey struct {
	h uint64
	s *string
}

func (s *Proc) view(x *scratch, t uint32) uint32 {
	if c := x.sym.view; int(t) < len(c) && c[t] != 0 {
		return c[t] - 1
	}
	return s.newView(x, t)
}

func (s *Proc) newView(x *scratch, t uint32) uint32 {
	c := &x.sym
	v := s.p.renameTid(s.sym.symmetry, t, 0)
	if int(t) >= len(c.view) {
		c.view = slices.Grow(c.view, int(t)+1-len(c.view))[:int(t)+1]
	}
	c.view[t] = v + 1
	return v
}

func (s *Proc) from(x *scratch, v uint32, j int) uint32 {
	c := &x.sym
	if c.from == nil {
		c.from = make([][]uint32, s.sym.n)
	}
	f := c.from[j]
	if int(v) < len(f) && f[v] != 0 {
		return f[v] - 1
	}
	t := s.p.renameTid(s.sym.symmetry, v, int64(j))
	if int(v) >= len(f) {
		f = slices.Grow(f, int(v)+1-len(f))[:int(v)+1]
		c.from[j] = f
	}
	f[v] = t + 1
	return t
}

// cmpViews compares two views by their keys.
func (s *Proc) cmpViews(x *scratch, a, b uint32) int {
	if a == b {
		return 0
	}
	ka, kb := s.viewKey(x, a), s.viewKey(x, b)
	if ka.h != kb.h {
		if ka.h < kb.h {
			return -1
		}
		return 1
	}
	return strings.Compare(*ka.s, *kb.s)
}

func (s *Proc) viewKey(x *scratch, v uint32) viewKey {
	c := &x.sym
	if int(v) < len(c.key) && c.key[v].s != nil {
		return c.key[v]
	}
	b := s.p.termKey(v, nil)
	h := fnv.New64a()
	h.Write(b)
	str := string(b)
	k := viewKey{h.Sum64(), &str}
	if int(v) >= len(c.key) {
		c.key = slices.Grow(c.key, int(v)+1-len(c.key))[:int(v)+1]
	}
	c.key[v] = k
	return k
}

// canonAll replaces each encoded state of x.enc/x.ends by the
// representative of its orbit: the threads ordered by their local state
// (their view, then their thread-array entries; a stable sort, so equal
// threads keep their order). States of one byte per value, nearly all of
// them, are permuted in place of their encoding (canonBytes).
//
// The representative is a function of the orbit alone, not of the state
// picked from it, the file's name, the term ids of this process or the
// run. Thread i's local state is L_i = (view of its term, entry i of each
// thread array); the rest of the state is shared. Renaming by π moves
// thread i to π(i) with its thread id renamed, and entry i of each thread
// array to entry π(i); the view erases the thread id and the typing of
// findSymmetry lets it occur nowhere else, so L_π(i)(π s) = L_i(s) and the
// shared part is unchanged: the multiset {L_i} and the shared part are the
// same for every state of the orbit. The representative lists the L_i in
// increasing order (thread j gets the j-th, its view renamed to j), with
// the shared part unchanged, so it depends on nothing else, provided that
//   - the order is a total order on local states that depends on their
//     content only: cmpViews compares termKey, which renders a view's
//     structure, definition names, source offsets and values, never a term
//     or node id (numbered in the order of creation: it varies with the
//     workers and map iteration) nor the main file's name; the fnv hash
//     put first is a function of that key;
//   - equal keys mean equal views, so that threads the order ties are
//     equal and their order does not show: termKey renders every field
//     of a term but its event sets (hiding, alphabets), which a thread
//     may not use, and a node by its kind, definition and source
//     position, of which prep makes one node.
//
// The order of a refinement check's walk, and so which pairs its
// antichains keep, follows from the representatives (refine's search is
// sequential in its decisions), which is why its figures are the same
// under any file name, worker count and run (paper's
// TestFiguresReproducible).
func (s *Proc) canonAll(x *scratch) {
	c := &x.sym
	c.perms, c.tiesOf = c.perms[:0], c.tiesOf[:0]
	k, start := 0, 0
	if s.sym.n == 2 {
		// Two threads, one byte per value: the representative has the
		// state's length and is made in place (canonPairInPlace), with no
		// copy to a second buffer, up to the first state that is not so.
		for ; k < len(x.ends); k++ {
			end := x.ends[k]
			c.perm, c.tie = 0, 0
			if !s.canonPairInPlace(x, x.enc[start:end]) {
				break
			}
			c.perms, c.tiesOf = append(c.perms, c.perm), append(c.tiesOf, c.tie)
			start = end
		}
		if k == len(x.ends) {
			return
		}
	}
	out := append(x.canon[:0], x.enc[:start]...)
	ends := append(x.cends[:0], x.ends[:k]...)
	for ; k < len(x.ends); k++ {
		end := x.ends[k]
		b := x.enc[start:end]
		start = end
		c.perm, c.tie = 0, 0
		if !s.canonBytes(x, b, &out) {
			out = s.canonVars(x, b, out)
		}
		ends = append(ends, len(out))
		c.perms, c.tiesOf = append(c.perms, c.perm), append(c.tiesOf, c.tie)
	}
	x.enc, x.canon = out, x.enc
	x.ends, x.cends = ends, x.ends
}

// order sorts x.sym.ord (the threads) by their local state: x.sym.views[i],
// then entry i of each thread array (x.sym.vals). It is an insertion sort,
// stable, for the few threads of a model. It reports whether the threads
// were in order already.
func (s *Proc) order(x *scratch) bool {
	n, na := s.sym.n, len(s.sym.pos)
	views, vals := x.sym.views, x.sym.vals
	less := func(i, j int) bool {
		if c := s.cmpViews(x, views[i], views[j]); c != 0 {
			return c < 0
		}
		for a := range na {
			if u, v := vals[a*n+i], vals[a*n+j]; u != v {
				return u < v
			}
		}
		return false
	}
	ord := x.sym.ord[:0]
	sorted := true
	for i := range n {
		k := len(ord)
		ord = append(ord, i)
		for k > 0 && less(i, ord[k-1]) {
			ord[k] = ord[k-1]
			k--
			sorted = false
		}
		ord[k] = i
	}
	x.sym.ord = ord
	// The representative's thread j is thread ord[j]; equal neighbours
	// are ties.
	var img [lts.MaxPermThreads]int
	var ties uint64
	for j, i := range ord {
		if i < len(img) {
			img[i] = j
		}
		if j+1 < n && !less(i, ord[j+1]) {
			ties |= 1 << j
		}
	}
	x.sym.tie = ties
	x.sym.perm = 0
	if !sorted && n <= lts.MaxPermThreads {
		x.sym.perm = lts.PermOf(img[:n])
	}
	return sorted
}

// canonBytes appends the representative of b to *out when b has one byte
// per value and so does the representative; otherwise it returns false.
func (s *Proc) canonBytes(x *scratch, b []byte, out *[]byte) bool {
	sym := s.sym
	if len(b) != s.ncomp+s.nvars || !oneByteEach(b) {
		return false
	}
	vb := b[s.ncomp:]
	at := sym.at // encoding offset of each thread array entry, -1: not stored
	if sym.n == 2 {
		return s.canonPair(x, b, vb, out)
	}
	views := x.sym.views[:0]
	for i := range sym.n {
		views = append(views, s.view(x, s.cd.term(i, uint32(b[i]))))
	}
	x.sym.views = views
	vals := x.sym.vals[:0]
	for a := range sym.pos {
		for i := range sym.n {
			var v int64 // not stored: every entry keeps its (equal) initial value
			if k := at[a][i]; k >= 0 {
				c := vb[k]
				v = int64(c>>1) ^ -int64(c&1)
			}
			vals = append(vals, v)
		}
	}
	x.sym.vals = vals
	if s.order(x) {
		*out = append(*out, b...)
		return true
	}
	n0 := len(*out)
	o := append(*out, b...)
	for j, i := range x.sym.ord {
		t := s.cd.code(j, s.from(x, views[i], j))
		if t >= 0x80 {
			return false
		}
		o[n0+j] = byte(t)
		for a := range sym.pos {
			if k := at[a][j]; k >= 0 {
				o[n0+s.ncomp+k] = vb[at[a][i]]
			}
		}
	}
	*out = o
	return true
}

// pairMemo is what canonPair computes from the codes t0 and t1 of the
// terms of the two threads: the order of their views (c: -1, 0, 1) and,
// once a swap has needed them, the codes of the terms of the swapped
// threads (swapped: computed; fits: both below 0x80, so one byte each).
type pairMemo struct {
	set, swapped, fits bool
	c                  int8
	s0, s1             byte
}

// pairOf returns the memo of codes t0, t1 (each below 0x80) of threads 0
// and 1, comparing their terms' views the first time. The views and
// their order are functions of the two terms, and a code is a function
// of its term (codes.go), so the memo gives what the comparison would.
func (s *Proc) pairOf(x *scratch, t0, t1 byte) *pairMemo {
	c := &x.sym
	if int(t0) < len(c.pair) {
		if r := c.pair[t0]; int(t1) < len(r) && r[t1].set {
			return &r[t1]
		}
	}
	if int(t0) >= len(c.pair) {
		c.pair = slices.Grow(c.pair, int(t0)+1-len(c.pair))[:int(t0)+1]
	}
	r := c.pair[t0]
	if int(t1) >= len(r) {
		r = slices.Grow(r, int(t1)+1-len(r))[:int(t1)+1]
		c.pair[t0] = r
	}
	pm := &r[t1]
	v0, v1 := s.view(x, s.cd.term(0, uint32(t0))), s.view(x, s.cd.term(1, uint32(t1)))
	cmp := 0
	if v0 != v1 {
		cmp = s.cmpViews(x, v0, v1)
	}
	pm.set, pm.c = true, int8(cmp)
	return pm
}

// pairOrder compares the two threads of the one-byte-per-value state b
// (variables vb): their local states (memoised per pair of terms), then
// their variables in order; c < 0 keeps the order, c > 0 swaps them.
func (s *Proc) pairOrder(x *scratch, b, vb []byte) (pm *pairMemo, c int) {
	pm = s.pairOf(x, b[0], b[1])
	c = int(pm.c)
	for a := 0; c == 0 && a < len(s.sym.at); a++ {
		k0, k1 := s.sym.at[a][0], s.sym.at[a][1]
		if k0 < 0 || vb[k0] == vb[k1] {
			continue
		}
		z0, z1 := vb[k0], vb[k1]
		if int64(z0>>1)^-int64(z0&1) < int64(z1>>1)^-int64(z1&1) {
			c = -1
		} else {
			c = 1
		}
	}
	return pm, c
}

// pairSwap fills pm with the two terms the swapped threads of b are in,
// once, and reports whether both fit one byte.
func (s *Proc) pairSwap(x *scratch, pm *pairMemo, b []byte) bool {
	if !pm.swapped {
		v0, v1 := s.view(x, s.cd.term(0, uint32(b[0]))), s.view(x, s.cd.term(1, uint32(b[1])))
		t0, t1 := s.cd.code(0, s.from(x, v1, 0)), s.cd.code(1, s.from(x, v0, 1))
		pm.swapped, pm.fits = true, t0 < 0x80 && t1 < 0x80
		pm.s0, pm.s1 = byte(t0), byte(t1)
	}
	return pm.fits
}

// canonPair is canonBytes for two threads, the common case: the threads
// swap when thread 1's local state orders before thread 0's.
func (s *Proc) canonPair(x *scratch, b, vb []byte, out *[]byte) bool {
	pm, c := s.pairOrder(x, b, vb)
	if c <= 0 {
		if c == 0 {
			x.sym.tie = 1
		}
		*out = append(*out, b...)
		return true
	}
	if !s.pairSwap(x, pm, b) {
		return false
	}
	x.sym.perm = swap01
	n0 := len(*out)
	o := append(*out, b...)
	o[n0], o[n0+1] = pm.s0, pm.s1
	ov := o[n0+s.ncomp:]
	for _, at := range s.sym.at {
		if k0, k1 := at[0], at[1]; k0 >= 0 {
			ov[k0], ov[k1] = vb[k1], vb[k0]
		}
	}
	*out = o
	return true
}

// canonPairInPlace is canonPair writing the representative over b, when
// b has one byte per value and so does its representative; otherwise it
// returns false having changed nothing.
func (s *Proc) canonPairInPlace(x *scratch, b []byte) bool {
	if len(b) != s.ncomp+s.nvars || !oneByteEach(b) {
		return false
	}
	vb := b[s.ncomp:]
	pm, c := s.pairOrder(x, b, vb)
	if c <= 0 {
		if c == 0 {
			x.sym.tie = 1
		}
		return true
	}
	if !s.pairSwap(x, pm, b) {
		return false
	}
	x.sym.perm = swap01
	b[0], b[1] = pm.s0, pm.s1
	for _, at := range s.sym.at {
		if k0, k1 := at[0], at[1]; k0 >= 0 {
			vb[k0], vb[k1] = vb[k1], vb[k0]
		}
	}
	return true
}

// swap01 renames thread 0 to 1 and 1 to 0.
var swap01 = lts.PermOf([]int{1, 0})

// canonVars appends the representative of b, decoded and re-encoded.
func (s *Proc) canonVars(x *scratch, b []byte, out []byte) []byte {
	sym := s.sym
	x.comps, x.vars = s.decode(b, x.comps, x.vars)
	views := x.sym.views[:0]
	for i := range sym.n {
		views = append(views, s.view(x, x.comps[i]))
	}
	x.sym.views = views
	vals := x.sym.vals[:0]
	for _, ps := range sym.pos {
		for _, slot := range ps {
			vals = append(vals, x.vars[slot])
		}
	}
	x.sym.vals = vals
	if s.order(x) {
		return append(out, b...)
	}
	x.ncomps = append(x.ncomps[:0], x.comps...)
	x.nv = append(x.nv[:0], x.vars...)
	for j, i := range x.sym.ord {
		x.ncomps[j] = s.from(x, views[i], j)
		for _, ps := range sym.pos {
			x.nv[ps[j]] = x.vars[ps[i]]
		}
	}
	return s.encode(out, x.ncomps, x.nv)
}

// idOf is the id of the representative enc: looked up in a compacted
// set (only the rebuilt path's states are known exactly there), interned
// in the exact store; under the lock.
func (s *Proc) idOf(enc []byte) lts.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fp != nil {
		id, _ := s.fp.Lookup(enc)
		return lts.State(id)
	}
	id, _ := s.store.Intern(enc)
	return lts.State(id)
}
