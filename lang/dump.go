package lang

import (
	"fmt"
	"strconv"
	"strings"
)

// Dump renders a node as compact text without positions, for tests and
// debugging: an S-expression per node, one line per declaration of a Model.
// Two trees that differ only in positions have the same dump.
func Dump(n Node) string {
	var d dumper
	d.node(n)
	return d.sb.String()
}

type dumper struct{ sb strings.Builder }

func (d *dumper) w(s ...string) {
	for _, x := range s {
		d.sb.WriteString(x)
	}
}

func (d *dumper) open(head string) { d.w("(", head) }
func (d *dumper) close()           { d.w(")") }

func (d *dumper) node(n Node) {
	switch x := n.(type) {
	case nil:
		d.w("nil")
	case *File:
		for i, decl := range x.Decls {
			if i > 0 {
				d.w("\n")
			}
			d.node(decl)
		}
	case Decl:
		d.decl(x)
	case Proc:
		d.proc(x)
	case Stmt:
		d.stmt(x)
	case Expr:
		d.expr(x)
	case *EventExpr:
		d.event(x)
	case *EventSet:
		d.eventSet(x)
	case *IndexVar:
		d.indexVar(x)
	case *QuasiSpec:
		d.quasi(x)
	default:
		d.w(fmt.Sprintf("<%T>", n))
	}
}

func (d *dumper) idents(ids []*Ident) {
	d.w("(")
	for i, id := range ids {
		if i > 0 {
			d.w(" ")
		}
		d.w(id.Name)
	}
	d.w(")")
}

func (d *dumper) exprs(es []Expr) {
	for _, e := range es {
		d.w(" ")
		d.expr(e)
	}
}

func (d *dumper) list(es []Expr) {
	d.w("[")
	for i, e := range es {
		if i > 0 {
			d.w(" ")
		}
		d.expr(e)
	}
	d.w("]")
}

func (d *dumper) optExpr(label string, e Expr) {
	if e != nil {
		d.w(" ", label, "=")
		d.expr(e)
	}
}

func (d *dumper) decl(n Decl) {
	switch x := n.(type) {
	case *DefineDecl:
		d.open("define " + x.Name.Name)
		if x.Params != nil {
			d.w(" ")
			d.idents(x.Params)
		}
		if x.Block != nil {
			d.w(" ")
			d.stmt(x.Block)
		} else {
			d.w(" ")
			d.expr(x.Value)
		}
		d.close()
	case *EnumDecl:
		d.open("enum ")
		d.idents(x.Names)
		d.close()
	case *VarDecl:
		if x.Hidden {
			d.open("hvar " + x.Name.Name)
		} else {
			d.open("var " + x.Name.Name)
		}
		if x.Dims != nil {
			d.w(" dims=[")
			for i, e := range x.Dims {
				if i > 0 {
					d.w(" ")
				}
				d.expr(e)
			}
			d.w("]")
		}
		if x.Range != nil {
			d.w(" range=")
			d.rng(x.Range)
		}
		d.optExpr("init", x.Init)
		d.close()
	case *ChannelDecl:
		d.open("channel " + x.Name.Name)
		if x.Dims != nil {
			d.w(" dims=[")
			for i, e := range x.Dims {
				if i > 0 {
					d.w(" ")
				}
				d.expr(e)
			}
			d.w("]")
		}
		d.w(" ")
		d.expr(x.Size)
		d.close()
	case *AlphabetDecl:
		d.open("alphabet " + x.Proc.Name + " ")
		d.eventSet(x.Events)
		d.close()
	case *IncludeDecl:
		d.open("include " + strconv.Quote(x.Path))
		d.close()
	case *ProcDecl:
		d.open("proc " + x.Name.Name + " ")
		d.idents(x.Params)
		d.w(" ")
		d.proc(x.Body)
		d.close()
	case *AssertDecl:
		d.open("assert ")
		d.proc(x.Left)
		d.w(" ", x.Kind.String())
		switch x.Kind {
		case KindReaches:
			d.w(" ", x.Goal.Name)
			switch x.Opt {
			case OptMin:
				d.optExpr("min", x.OptExpr)
			case OptMax:
				d.optExpr("max", x.OptExpr)
			}
		case KindRefines, KindRefinesF, KindRefinesFD:
			d.w(" ")
			d.proc(x.Right)
		case KindQuasi:
			d.w(" ")
			d.quasi(x.Quasi)
			d.w(" ")
			d.proc(x.Right)
		case KindLinearizes:
			if x.Quasi != nil {
				d.w(" ")
				d.quasi(x.Quasi)
			}
			d.w(" ")
			d.proc(x.Right)
			if x.Map != nil {
				d.w(" (map")
				for _, m := range x.Map {
					d.w(" ")
					d.event(m.From)
					d.w(" -> ")
					d.event(m.To)
				}
				d.w(")")
			}
		case KindLTL:
			d.w(" ", strconv.Quote(x.LTL))
		}
		d.close()
	default:
		d.w(fmt.Sprintf("<%T>", n))
	}
}

func (d *dumper) quasi(q *QuasiSpec) {
	d.open("quasi")
	d.optExpr("factor", q.Factor)
	for _, c := range q.Classes {
		d.w(" (class")
		d.events(c.Patterns)
		d.w(" ")
		d.expr(c.Bound)
		d.w(")")
	}
	if q.On != nil {
		d.w(" (on")
		d.events(q.On)
		d.w(")")
	}
	if q.Barriers != nil {
		d.w(" (barrier")
		d.events(q.Barriers)
		d.w(")")
	}
	if q.Window {
		d.w(" window")
	}
	d.close()
}

func (d *dumper) events(es []*EventExpr) {
	for _, e := range es {
		d.w(" ")
		d.event(e)
	}
}

func (d *dumper) event(e *EventExpr) {
	if e == nil {
		d.w("nil")
		return
	}
	d.w(e.Name.Name)
	for _, x := range e.Data {
		d.w(".")
		d.expr(x)
	}
}

func (d *dumper) eventSet(s *EventSet) {
	d.w("{")
	for i, it := range s.Items {
		if i > 0 {
			d.w(" ")
		}
		for _, iv := range it.Index {
			d.indexVar(iv)
			d.w("@")
		}
		d.event(it.Event)
	}
	d.w("}")
}

func (d *dumper) rng(r *Range) {
	d.w("{")
	if r.Lo != nil {
		d.expr(r.Lo)
	}
	d.w("..")
	if r.Hi != nil {
		d.expr(r.Hi)
	}
	d.w("}")
}

func (d *dumper) indexVar(iv *IndexVar) {
	if iv.Var != nil {
		d.w(iv.Var.Name, ":")
	}
	s := iv.Set
	if s.Range != nil {
		d.rng(s.Range)
		return
	}
	d.w("{")
	for i, e := range s.Elems {
		if i > 0 {
			d.w(" ")
		}
		d.expr(e)
	}
	d.w("}")
}

var choiceNames = [...]string{"[]", "[*]", "<>"}
var parNames = [...]string{"||", "|||"}
var ifNames = [...]string{"if", "ifa", "ifb"}

func (d *dumper) procs(ps []Proc) {
	for _, p := range ps {
		d.w(" ")
		d.proc(p)
	}
}

func (d *dumper) block(b *Block) {
	if b != nil {
		d.w(" ")
		d.stmt(b)
	}
}

func (d *dumper) proc(p Proc) {
	switch x := p.(type) {
	case nil:
		d.w("nil")
	case *SkipProc:
		d.w("Skip")
	case *StopProc:
		d.w("Stop")
	case *RefProc:
		d.open("ref " + x.Name.Name)
		d.exprs(x.Args)
		d.close()
	case *PrefixProc, *MultiPrefixProc, *ChanOutProc, *ChanInProc:
		d.comm(p)
	case *GuardProc:
		d.open("guard ")
		d.expr(x.Cond)
		d.w(" ")
		d.proc(x.Body)
		d.close()
	case *IfProc:
		d.open(ifNames[x.Kind] + " ")
		d.expr(x.Cond)
		d.w(" ")
		d.proc(x.Then)
		if x.Else != nil {
			d.w(" ")
			d.proc(x.Else)
		}
		d.close()
	case *CaseProc:
		d.open("case")
		for _, a := range x.Arms {
			d.w(" (")
			d.expr(a.Cond)
			d.w(" ")
			d.proc(a.Body)
			d.w(")")
		}
		if x.Default != nil {
			d.w(" (default ")
			d.proc(x.Default)
			d.w(")")
		}
		d.close()
	case *SeqProc:
		d.open(";")
		d.procs([]Proc{x.Left, x.Right})
		d.close()
	case *ChoiceProc:
		d.open(choiceNames[x.Op])
		d.procs(x.Procs)
		d.close()
	case *ParProc:
		d.open(parNames[x.Op])
		d.procs(x.Procs)
		d.close()
	case *IndexedProc:
		if x.IsPar {
			d.open(parNames[x.ParOp])
		} else {
			d.open(choiceNames[x.ChoiceOp])
		}
		for _, iv := range x.Index {
			d.w(" ")
			d.indexVar(iv)
		}
		d.w(" @ ")
		d.proc(x.Body)
		d.close()
	case *HideProc:
		d.open("hide ")
		d.proc(x.Body)
		d.w(" ")
		d.eventSet(x.Events)
		d.close()
	case *AtomicProc:
		d.open("atomic ")
		d.proc(x.Body)
		d.close()
	case *InterruptProc:
		d.open("interrupt")
		d.procs([]Proc{x.Left, x.Right})
		d.close()
	default:
		d.w(fmt.Sprintf("<%T>", p))
	}
}

// comm dumps the prefixes: an event, several events, a channel output or
// input, each followed by its continuation.
func (d *dumper) comm(p Proc) {
	switch x := p.(type) {
	case *PrefixProc:
		d.open("prefix ")
		if x.Event == nil {
			d.w("_")
		} else {
			d.event(x.Event)
		}
		d.block(x.Block)
		d.w(" ")
		d.proc(x.Next)
		d.close()
	case *MultiPrefixProc:
		d.open("multi")
		d.events(x.Events)
		d.w(" ")
		d.proc(x.Next)
		d.close()
	case *ChanOutProc:
		d.open("out " + x.Chan.Name)
		if x.Index != nil {
			d.w(" index=")
			d.list(x.Index)
		}
		d.exprs(x.Values)
		d.block(x.Block)
		d.w(" ")
		d.proc(x.Next)
		d.close()
	case *ChanInProc:
		d.open("in " + x.Chan.Name)
		if x.Index != nil {
			d.w(" index=")
			d.list(x.Index)
		}
		d.optExpr("guard", x.Guard)
		d.exprs(x.Vars)
		d.block(x.Block)
		d.w(" ")
		d.proc(x.Next)
		d.close()
	}
}

func (d *dumper) stmt(s Stmt) {
	switch x := s.(type) {
	case nil:
		d.w("nil")
	case *Block:
		d.w("{")
		for i, st := range x.Stmts {
			if i > 0 {
				d.w(" ")
			}
			d.stmt(st)
		}
		d.w("}")
	case *AssignStmt:
		d.open(x.Op + " ")
		d.expr(x.LHS)
		d.w(" ")
		d.expr(x.RHS)
		d.close()
	case *IncDecStmt:
		if x.Inc {
			d.open("++ ")
		} else {
			d.open("-- ")
		}
		d.expr(x.LHS)
		d.close()
	case *LocalVarStmt:
		d.open("local " + x.Name.Name)
		if x.Dims != nil {
			d.w(" dims=[")
			for i, e := range x.Dims {
				if i > 0 {
					d.w(" ")
				}
				d.expr(e)
			}
			d.w("]")
		}
		d.optExpr("init", x.Init)
		d.close()
	case *IfStmt:
		d.open("if ")
		d.expr(x.Cond)
		d.w(" ")
		d.stmt(x.Then)
		if x.Else != nil {
			d.w(" ")
			d.stmt(x.Else)
		}
		d.close()
	case *WhileStmt:
		d.open("while ")
		d.expr(x.Cond)
		d.w(" ")
		d.stmt(x.Body)
		d.close()
	case *ExprStmt:
		d.open("expr ")
		d.expr(x.X)
		d.close()
	default:
		d.w(fmt.Sprintf("<%T>", s))
	}
}

func (d *dumper) expr(e Expr) {
	switch x := e.(type) {
	case nil:
		d.w("nil")
	case *Ident, *IntLit, *BoolLit:
		d.w(exprString(x))
	case *IndexExpr:
		d.open("index ")
		d.expr(x.X)
		d.w(" ")
		d.expr(x.Index)
		d.close()
	case *UnaryExpr:
		d.open(x.Op + " ")
		d.expr(x.X)
		d.close()
	case *BinaryExpr:
		d.open(x.Op + " ")
		d.expr(x.X)
		d.w(" ")
		d.expr(x.Y)
		d.close()
	case *CondExpr:
		d.open("? ")
		d.expr(x.Cond)
		d.w(" ")
		d.expr(x.X)
		d.w(" ")
		d.expr(x.Y)
		d.close()
	case *CallExpr:
		d.open("call " + x.Func.Name)
		d.exprs(x.Args)
		d.close()
	case *IndexedBoolExpr:
		d.open(x.Op)
		for _, iv := range x.Index {
			d.w(" ")
			d.indexVar(iv)
		}
		d.w(" @ ")
		d.expr(x.Body)
		d.close()
	case *ArrayLit:
		d.w("[")
		for i, el := range x.Elems {
			if i > 0 {
				d.w(" ")
			}
			d.expr(el.Value)
			if el.Count != nil {
				d.w("(")
				d.expr(el.Count)
				d.w(")")
			}
			if el.To != nil {
				d.w("..")
				d.expr(el.To)
			}
		}
		d.w("]")
	default:
		d.w(fmt.Sprintf("<%T>", e))
	}
}
