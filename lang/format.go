package lang

import (
	"bytes"
	"strconv"
	"strings"
)

// Format prints a model in canonical form (the `quasar fmt` command): one
// declaration per line, a blank line between groups of different kinds,
// spaces around binary operators, minimal parentheses, and long process
// bodies broken before their top-level operators. Declarations that came
// from included files are not printed (their #include is). Comments of the
// main file (File.Comments) are kept: a comment is printed before the
// declaration it precedes or is inside, or after it when it ends the line.
//
// Parsing the output gives the same tree, positions aside:
// Dump(Parse(Format(m))) == Dump(m).
func Format(m *File) []byte {
	var p printer
	var prev Decl
	lastLine := 0 // source line of the last thing printed
	comments := m.Comments
	for _, d := range m.Decls {
		if d.Pos().File != m.Path {
			continue
		}
		first := d.Pos().Line
		if len(comments) > 0 && comments[0].Pos().Offset < d.Pos().Offset {
			first = comments[0].Pos().Line
		}
		// Keep the author's blank lines between declarations; without
		// positions, separate groups of different kinds.
		if prev != nil {
			if first > 0 && lastLine > 0 {
				if first > lastLine+1 {
					p.buf.WriteByte('\n')
				}
			} else if declGroup(prev) != declGroup(d) {
				p.buf.WriteByte('\n')
			}
		}
		// Leading comments: those before the end of d.
		for len(comments) > 0 && comments[0].Pos().Offset < d.End().Offset {
			p.buf.WriteString(comments[0].Text)
			p.buf.WriteByte('\n')
			comments = comments[1:]
		}
		p.decl(d)
		lastLine = d.End().Line
		// A trailing comment on the same line as the end of d.
		if len(comments) > 0 && comments[0].Pos().Line == d.End().Line && !strings.Contains(comments[0].Text, "\n") {
			p.buf.WriteString(" ")
			p.buf.WriteString(comments[0].Text)
			comments = comments[1:]
		}
		p.buf.WriteByte('\n')
		prev = d
	}
	if len(comments) > 0 && prev != nil && comments[0].Pos().Line > lastLine+1 {
		p.buf.WriteByte('\n')
	}
	for _, c := range comments {
		p.buf.WriteString(c.Text)
		p.buf.WriteByte('\n')
	}
	return p.buf.Bytes()
}

func declGroup(d Decl) string {
	switch d.(type) {
	case *DefineDecl, *EnumDecl:
		return "define"
	case *VarDecl, *ChannelDecl:
		return "var"
	case *ProcDecl:
		return "proc"
	case *AssertDecl:
		return "assert"
	case *IncludeDecl:
		return "include"
	}
	return "other"
}

type printer struct {
	buf bytes.Buffer
}

func (p *printer) w(s ...string) {
	for _, x := range s {
		p.buf.WriteString(x)
	}
}

func (p *printer) decl(d Decl) {
	switch x := d.(type) {
	case *DefineDecl:
		p.w("#define ", x.Name.Name)
		if x.Params != nil {
			p.w("(", identList(x.Params), ")")
		}
		p.w(" ")
		if x.Block != nil {
			p.w(blockAt(x.Block, 0))
		} else {
			p.w(exprString(x.Value))
		}
		p.w(";")
	case *EnumDecl:
		p.w("enum {", identList(x.Names), "};")
	case *VarDecl:
		if x.Hidden {
			p.w("hvar ")
		} else {
			p.w("var ")
		}
		p.w(x.Name.Name, dimsString(x.Dims))
		if x.Range != nil {
			p.w(" : ", rangeString(x.Range))
		}
		if x.Init != nil {
			p.w(" = ", exprString(x.Init))
		}
		p.w(";")
	case *ChannelDecl:
		p.w("channel ", x.Name.Name, dimsString(x.Dims), " ", exprString(x.Size), ";")
	case *AlphabetDecl:
		p.w("#alphabet ", x.Proc.Name, " ", eventSetString(x.Events), ";")
	case *IncludeDecl:
		p.w("#include \"", x.Path, "\";")
	case *ProcDecl:
		p.w(x.Name.Name, "(", identList(x.Params), ") = ")
		body := procString(x.Body, 0)
		if len(body)+len(x.Name.Name) > 90 {
			body = breakLines(x.Body)
		}
		p.w(body, ";")
	case *AssertDecl:
		p.w("#assert ", procString(x.Left, 9))
		switch x.Kind {
		case KindDeadlockFree, KindDivergenceFree, KindNonTerminating, KindDeterministic:
			p.w(" ", x.Kind.String())
		case KindReaches:
			p.w(" reaches ", x.Goal.Name)
			switch x.Opt {
			case OptMin:
				p.w(" with min(", exprString(x.OptExpr), ")")
			case OptMax:
				p.w(" with max(", exprString(x.OptExpr), ")")
			}
		case KindRefines, KindRefinesF, KindRefinesFD:
			p.w(" ", x.Kind.String(), " ", procString(x.Right, 9))
		case KindQuasi:
			p.w(" refines<", quasiString(x.Quasi), "> ", procString(x.Right, 9))
		case KindLinearizes:
			if x.Quasi != nil {
				p.w(" linearizes<", quasiString(x.Quasi), "> ", procString(x.Right, 9))
			} else {
				p.w(" linearizes ", procString(x.Right, 9))
			}
			if x.Map != nil {
				p.w(" map {")
				for i, m := range x.Map {
					if i > 0 {
						p.w(", ")
					}
					p.w(eventString(m.From), " -> ", eventString(m.To))
				}
				p.w("}")
			}
		case KindLTL:
			p.w(" |= ", x.LTL)
		}
		p.w(";")
	}
}

// breakLines prints a long process body with each operand of its top-level
// chain on its own line.
func breakLines(body Proc) string {
	var parts []string
	var op string
	prec := procPrecOf(body)
	switch x := body.(type) {
	case *ChoiceProc:
		op = choiceNames[x.Op]
		for _, q := range x.Procs {
			parts = append(parts, procString(q, prec+1))
		}
	case *ParProc:
		op = parNames[x.Op]
		for _, q := range x.Procs {
			parts = append(parts, procString(q, prec+1))
		}
	default:
		return procString(body, 0)
	}
	return strings.Join(parts, "\n\t"+op+" ")
}

func identList(ids []*Ident) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = id.Name
	}
	return strings.Join(names, ", ")
}

func dimsString(dims []Expr) string {
	var sb strings.Builder
	for _, d := range dims {
		sb.WriteString("[" + exprString(d) + "]")
	}
	return sb.String()
}

func rangeString(r *Range) string {
	var lo, hi string
	if r.Lo != nil {
		lo = exprString(r.Lo)
	}
	if r.Hi != nil {
		hi = exprString(r.Hi)
	}
	return "{" + lo + ".." + hi + "}"
}

func quasiString(q *QuasiSpec) string {
	var sb strings.Builder
	sb.WriteString("quasi ")
	if q.Factor != nil {
		f := exprString(q.Factor)
		if !isPrimary(q.Factor) {
			f = "(" + f + ")"
		}
		sb.WriteString(f)
	} else {
		sb.WriteString("{")
		for i, c := range q.Classes {
			if i > 0 {
				sb.WriteString(", ")
			}
			if len(c.Patterns) == 1 {
				sb.WriteString(eventString(c.Patterns[0]))
			} else {
				sb.WriteString("{" + eventList(c.Patterns) + "}")
			}
			sb.WriteString(": " + exprString(c.Bound))
		}
		sb.WriteString("}")
	}
	if q.On != nil {
		sb.WriteString(" on {" + eventList(q.On) + "}")
	}
	if q.Barriers != nil {
		sb.WriteString(" barrier {" + eventList(q.Barriers) + "}")
	}
	if q.Window {
		sb.WriteString(" window")
	}
	return sb.String()
}

func eventList(es []*EventExpr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = eventString(e)
	}
	return strings.Join(s, ", ")
}

// ---------------------------------------------------------------------------
// Events

// eventString prints e.d1.d2, with non-atomic data in parentheses.
func eventString(e *EventExpr) string {
	var sb strings.Builder
	sb.WriteString(e.Name.Name)
	for _, d := range e.Data {
		sb.WriteString("." + dataString(d))
	}
	return sb.String()
}

// dataString prints event data and channel values: atoms bare, anything
// else in parentheses.
func dataString(d Expr) string {
	s := exprString(d)
	if isPrimary(d) {
		if lit, ok := d.(*IntLit); !ok || lit.Value >= 0 {
			return s
		}
	}
	return "(" + s + ")"
}

func isPrimary(e Expr) bool {
	switch x := e.(type) {
	case *Ident, *BoolLit, *IndexExpr, *CallExpr:
		return true
	case *IntLit:
		return x.Value >= 0
	}
	return false
}

func eventSetString(s *EventSet) string {
	items := make([]string, len(s.Items))
	for i, it := range s.Items {
		var sb strings.Builder
		if it.Index != nil {
			sb.WriteString(indexVarsString(it.Index) + "@")
		}
		sb.WriteString(eventString(it.Event))
		items[i] = sb.String()
	}
	return "{" + strings.Join(items, ", ") + "}"
}

func indexVarsString(ivs []*IndexVar) string {
	s := make([]string, len(ivs))
	for i, iv := range ivs {
		s[i] = indexVarString(iv)
	}
	return strings.Join(s, "; ")
}

func indexVarString(iv *IndexVar) string {
	var set string
	if iv.Set.Range != nil {
		set = rangeString(iv.Set.Range)
	} else {
		el := make([]string, len(iv.Set.Elems))
		for i, e := range iv.Set.Elems {
			el[i] = exprString(e)
		}
		set = "{" + strings.Join(el, ", ") + "}"
	}
	if iv.Var == nil {
		return set
	}
	return iv.Var.Name + ":" + set
}

// ---------------------------------------------------------------------------
// Processes

// procPrecOf is the binding level of p (see procPrec); atoms are 9 and the
// open-ended indexed forms 0.
func procPrecOf(p Proc) int {
	switch x := p.(type) {
	case *ParProc:
		return procPrec[parNames[x.Op]]
	case *ChoiceProc:
		return procPrec[choiceNames[x.Op]]
	case *InterruptProc:
		return procPrec["interrupt"]
	case *HideProc:
		return procPrec["\\"]
	case *SeqProc:
		return procPrec[";"]
	case *IndexedProc:
		return 0
	}
	return 9
}

// procString prints p, in parentheses if it binds looser than min.
func procString(p Proc, min int) string {
	s := procText(p)
	if procPrecOf(p) < min {
		return "(" + s + ")"
	}
	return s
}

func procText(p Proc) string {
	switch x := p.(type) {
	case nil:
		return "Stop"
	case *SkipProc:
		return "Skip"
	case *StopProc:
		return "Stop"
	case *RefProc:
		return x.Name.Name + "(" + exprList(x.Args) + ")"
	case *PrefixProc:
		var s string
		if x.Event != nil {
			s = eventString(x.Event)
		}
		if x.Block != nil {
			s += blockString(x.Block)
		}
		return s + " -> " + procString(x.Next, 9)
	case *MultiPrefixProc:
		return "(" + eventList(x.Events) + ") -> " + procString(x.Next, 9)
	case *ChanOutProc:
		s := x.Chan.Name + dimsString(x.Index) + "!" + dataList(x.Values)
		if x.Block != nil {
			s += blockString(x.Block)
		}
		return s + " -> " + procString(x.Next, 9)
	case *ChanInProc:
		s := x.Chan.Name + dimsString(x.Index) + "?"
		if x.Guard != nil {
			s += "[" + exprString(x.Guard) + "]"
		}
		s += dataList(x.Vars)
		if x.Block != nil {
			s += blockString(x.Block)
		}
		return s + " -> " + procString(x.Next, 9)
	case *GuardProc:
		return "[" + exprString(x.Cond) + "] " + procString(x.Body, 9)
	case *IfProc:
		s := ifNames[x.Kind] + " (" + exprString(x.Cond) + ") { " + procString(x.Then, 0) + " }"
		switch e := x.Else.(type) {
		case nil:
		case *IfProc:
			s += " else " + procText(e)
		default:
			s += " else { " + procString(e, 0) + " }"
		}
		return s
	case *CaseProc:
		var sb strings.Builder
		sb.WriteString("case {")
		for _, a := range x.Arms {
			// A condition starting with `||` would continue the previous arm.
			var cond strings.Builder
			writeExpr(&cond, a.Cond, 1)
			sb.WriteString(" " + cond.String() + ": " + procString(a.Body, 0))
		}
		if x.Default != nil {
			sb.WriteString(" default: " + procString(x.Default, 0))
		}
		sb.WriteString(" }")
		return sb.String()
	case *SeqProc:
		return procString(x.Left, 8) + "; " + procString(x.Right, 9)
	case *InterruptProc:
		return procString(x.Left, 6) + " interrupt " + procString(x.Right, 7)
	case *ChoiceProc:
		return naryString(choiceNames[x.Op], x.Procs)
	case *ParProc:
		return naryString(parNames[x.Op], x.Procs)
	case *IndexedProc:
		op := choiceNames[x.ChoiceOp]
		if x.IsPar {
			op = parNames[x.ParOp]
		}
		return op + " " + indexVarsString(x.Index) + " @ " + procString(x.Body, 0)
	case *HideProc:
		return procString(x.Body, 7) + " \\ " + eventSetString(x.Events)
	case *AtomicProc:
		return "atomic { " + procString(x.Body, 0) + " }"
	}
	return "Stop"
}

func naryString(op string, ps []Proc) string {
	prec := procPrec[op]
	s := make([]string, len(ps))
	for i, q := range ps {
		s[i] = procString(q, prec+1)
	}
	return strings.Join(s, " "+op+" ")
}

func dataList(es []Expr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = dataString(e)
	}
	return strings.Join(s, ".")
}

func exprList(es []Expr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = exprString(e)
	}
	return strings.Join(s, ", ")
}

// ---------------------------------------------------------------------------
// Statements

// blockString prints a block on one line, or, when that line would be
// long, one statement per line indented by depth+1 tabs.
func blockString(b *Block) string { return blockAt(b, 1) }

func blockAt(b *Block, depth int) string {
	if len(b.Stmts) == 0 {
		return "{}"
	}
	s := make([]string, len(b.Stmts))
	n := 0
	for i, st := range b.Stmts {
		s[i] = stmtAt(st, depth+1)
		n += len(s[i]) + 1
	}
	if n <= 60 && !strings.Contains(strings.Join(s, ""), "\n") {
		return "{ " + strings.Join(s, " ") + " }"
	}
	in := strings.Repeat("\t", depth+1)
	return "{\n" + in + strings.Join(s, "\n"+in) + "\n" + strings.Repeat("\t", depth) + "}"
}

func stmtAt(s Stmt, depth int) string {
	switch x := s.(type) {
	case *Block:
		return blockAt(x, depth)
	case *AssignStmt:
		return exprString(x.LHS) + " " + x.Op + " " + exprString(x.RHS) + ";"
	case *IncDecStmt:
		if x.Inc {
			return exprString(x.LHS) + "++;"
		}
		return exprString(x.LHS) + "--;"
	case *LocalVarStmt:
		out := "var " + x.Name.Name + dimsString(x.Dims)
		if x.Init != nil {
			out += " = " + exprString(x.Init)
		}
		return out + ";"
	case *IfStmt:
		out := "if (" + exprString(x.Cond) + ") " + blockAt(x.Then, depth)
		switch e := x.Else.(type) {
		case nil:
		case *Block:
			out += " else " + blockAt(e, depth)
		default:
			out += " else " + stmtAt(e, depth)
		}
		return out
	case *WhileStmt:
		return "while (" + exprString(x.Cond) + ") " + blockAt(x.Body, depth)
	case *ExprStmt:
		return exprString(x.X) + ";"
	}
	return ";"
}

// ---------------------------------------------------------------------------
// Expressions

// exprString prints e with minimal parentheses.
func exprString(e Expr) string {
	var sb strings.Builder
	writeExpr(&sb, e, 0)
	return sb.String()
}

func exprPrecOf(e Expr) int {
	switch x := e.(type) {
	case *BinaryExpr:
		return exprPrec[x.Op]
	case *IndexedBoolExpr, *CondExpr:
		return 0
	case *UnaryExpr:
		return 9
	case *IntLit:
		if x.Value < 0 {
			return 9
		}
	}
	return 10
}

func writeExpr(sb *strings.Builder, e Expr, min int) {
	if exprPrecOf(e) < min {
		sb.WriteByte('(')
		writeExpr(sb, e, 0)
		sb.WriteByte(')')
		return
	}
	switch x := e.(type) {
	case nil:
		sb.WriteString("0")
	case *Ident:
		sb.WriteString(x.Name)
	case *IntLit:
		sb.WriteString(strconv.FormatInt(x.Value, 10))
	case *BoolLit:
		sb.WriteString(strconv.FormatBool(x.Value))
	case *IndexExpr:
		writeExpr(sb, x.X, 10)
		sb.WriteByte('[')
		writeExpr(sb, x.Index, 0)
		sb.WriteByte(']')
	case *UnaryExpr:
		sb.WriteString(x.Op)
		writeExpr(sb, x.X, 10) // `-(-3)`, `!(a && b)`: never `--3`
	case *BinaryExpr:
		prec := exprPrec[x.Op]
		writeExpr(sb, x.X, prec)
		sb.WriteString(" " + x.Op + " ")
		writeExpr(sb, x.Y, prec+1)
	case *CondExpr:
		writeExpr(sb, x.Cond, 1)
		sb.WriteString(" ? ")
		writeExpr(sb, x.X, 1)
		sb.WriteString(" : ")
		writeExpr(sb, x.Y, 0)
	case *CallExpr:
		sb.WriteString("call(" + x.Func.Name)
		for _, a := range x.Args {
			sb.WriteString(", ")
			writeExpr(sb, a, 0)
		}
		sb.WriteByte(')')
	case *IndexedBoolExpr:
		sb.WriteString(x.Op + " " + indexVarsString(x.Index) + " @ ")
		writeExpr(sb, x.Body, 0)
	case *ArrayLit:
		sb.WriteByte('[')
		for i, el := range x.Elems {
			if i > 0 {
				sb.WriteString(", ")
			}
			writeExpr(sb, el.Value, 0)
			if el.Count != nil {
				sb.WriteByte('(')
				writeExpr(sb, el.Count, 0)
				sb.WriteByte(')')
			}
			if el.To != nil {
				sb.WriteString("..")
				writeExpr(sb, el.To, 0)
			}
		}
		sb.WriteByte(']')
	}
}
