package lang

import (
	"sort"
	"strconv"

	"github.com/alecthomas/participle/v2/lexer"
)

// lowerer turns the participle parse tree of the declarations of one file
// into the AST (processes, blocks, event sets and expressions are already
// AST nodes, built by the hand-written custom nodes).
type lowerer struct {
	file     string
	src      []byte
	toks     []lexer.Token
	comments []*Comment
}

// span returns the span from p to just past the last token before e (e is
// the position of the first token after the node, as participle records it).
func (l *lowerer) span(p, e pos) Span {
	start := posOf(p)
	i := sort.Search(len(l.toks), func(i int) bool { return l.toks[i].Pos.Offset >= e.Offset })
	if i == 0 || e.Offset <= p.Offset {
		return Span{start, start}
	}
	return Span{start, tokEnd(&l.toks[i-1])}
}

func (l *lowerer) ident(n *name) *Ident {
	if n == nil {
		return nil
	}
	return &Ident{Span: l.span(n.Pos, n.EndPos), Name: n.Name}
}

func (l *lowerer) idents(ns []*name) []*Ident {
	if ns == nil {
		return nil
	}
	out := make([]*Ident, len(ns))
	for i, n := range ns {
		out[i] = l.ident(n)
	}
	return out
}

// ---------------------------------------------------------------------------
// Declarations

func (l *lowerer) model(m *model) *File {
	out := &File{Span: l.span(m.Pos, m.EndPos), Path: l.file, Comments: l.comments}
	for _, d := range m.Decls {
		if x := l.decl(d); x != nil {
			out.Decls = append(out.Decls, x)
		}
	}
	return out
}

func (l *lowerer) decl(d *declaration) Decl {
	switch {
	case d.Define != nil:
		x := d.Define
		out := &DefineDecl{Span: l.span(x.Pos, x.EndPos), Name: l.ident(x.Name), Params: l.idents(x.Params)}
		if x.Block != nil {
			out.Block = x.Block.B
		} else {
			out.Value = l.expr(x.Value)
		}
		return out
	case d.Enum != nil:
		return &EnumDecl{Span: l.span(d.Enum.Pos, d.Enum.EndPos), Names: l.idents(d.Enum.Names)}
	case d.Var != nil:
		x := d.Var
		out := &VarDecl{Span: l.span(x.Pos, x.EndPos), Hidden: x.Kind == "hvar", Name: l.ident(x.Name),
			Dims: l.exprs(x.Dims)}
		if x.Range != nil {
			out.Range = &Range{Span: l.span(x.Range.Pos, x.Range.EndPos), Lo: l.optExpr(x.Range.Lo), Hi: l.optExpr(x.Range.Hi)}
		}
		if x.Array != nil {
			out.Init = x.Array.A
		} else {
			out.Init = l.optExpr(x.Init)
		}
		return out
	case d.Channel != nil:
		x := d.Channel
		return &ChannelDecl{Span: l.span(x.Pos, x.EndPos), Name: l.ident(x.Name), Dims: l.exprs(x.Dims), Size: l.expr(x.Size)}
	case d.Alphabet != nil:
		x := d.Alphabet
		return &AlphabetDecl{Span: l.span(x.Pos, x.EndPos), Proc: l.ident(x.Proc), Events: x.Events.S}
	case d.Include != nil:
		x := d.Include
		path, err := strconv.Unquote(x.Path)
		if err != nil {
			path = x.Path[1 : len(x.Path)-1]
		}
		return &IncludeDecl{Span: l.span(x.Pos, x.EndPos), Path: path}
	case d.Assert != nil:
		return l.assertion(d.Assert)
	case d.Proc != nil:
		x := d.Proc
		params := l.idents(x.Params)
		if params == nil {
			params = []*Ident{}
		}
		return &ProcDecl{Span: l.span(x.Pos, x.EndPos), Name: l.ident(x.Name), Params: params, Body: x.Body.P}
	}
	return nil
}

func (l *lowerer) procRef(r *procRef) *RefProc {
	return &RefProc{Span: l.span(r.Pos, r.EndPos), Name: l.ident(r.Name), Args: l.args(r.Args)}
}

func (l *lowerer) assertion(a *assertion) *AssertDecl {
	out := &AssertDecl{Span: l.span(a.Pos, a.EndPos), Left: l.procRef(a.Left)}
	switch {
	case a.Simple != "":
		out.Kind = map[string]AssertKind{"deadlockfree": KindDeadlockFree, "divergencefree": KindDivergenceFree,
			"nonterminating": KindNonTerminating, "deterministic": KindDeterministic}[a.Simple]
	case a.Goal != nil:
		out.Kind = KindReaches
		out.Goal = l.ident(a.Goal)
		switch a.Opt {
		case "min":
			out.Opt = OptMin
		case "max":
			out.Opt = OptMax
		}
		out.OptExpr = l.optExpr(a.OptExpr)
	case a.Refines:
		out.Kind = KindRefines
		switch a.Model {
		case "F":
			out.Kind = KindRefinesF
		case "FD":
			out.Kind = KindRefinesFD
		}
		if a.Quasi != nil {
			out.Kind = KindQuasi
			out.Quasi = l.quasi(a.Quasi)
		}
		out.Right = l.procRef(a.Right)
	case a.Lin:
		out.Kind = KindLinearizes
		if a.LinQ != nil {
			out.Quasi = l.quasi(a.LinQ)
		}
		out.Right = l.procRef(a.LinR)
		for _, m := range a.LinMap {
			out.Map = append(out.Map, &EventMapping{Span: l.span(m.Pos, m.EndPos), From: l.event(m.From), To: l.event(m.To)})
		}
	case a.LTL != nil:
		out.Kind = KindLTL
		sp := l.span(a.LTL.Pos, a.LTL.EndPos)
		out.LTL = string(l.src[sp.Start.Offset:sp.EndPos.Offset])
		out.LTLPos = sp.Start
	}
	return out
}

func (l *lowerer) quasi(q *quasiSpec) *QuasiSpec {
	out := &QuasiSpec{Span: l.span(q.Pos, q.EndPos), Window: q.Window}
	if q.Factor != nil {
		out.Factor = l.unary(q.Factor)
	}
	for _, c := range q.Classes {
		qc := &QuasiClass{Span: l.span(c.Pos, c.EndPos), Bound: l.expr(c.Bound)}
		if c.Pattern != nil {
			qc.Patterns = []*EventExpr{l.event(c.Pattern)}
		} else {
			qc.Patterns = l.events(c.Patterns)
		}
		out.Classes = append(out.Classes, qc)
	}
	out.On = l.events(q.On)
	out.Barriers = l.events(q.Barriers)
	return out
}

// ---------------------------------------------------------------------------
// Events

func (l *lowerer) event(e *eventRef) *EventExpr {
	name := &Ident{Span: Span{posOf(e.Pos), l.nameEnd(e.Pos, e.Name)}, Name: e.Name}
	out := &EventExpr{Span: l.span(e.Pos, e.EndPos), Name: name}
	for _, d := range e.Data {
		out.Data = append(out.Data, d.X)
	}
	return out
}

// nameEnd is the end of a name token starting at p (names are ASCII).
func (l *lowerer) nameEnd(p pos, name string) Pos {
	e := posOf(p)
	e.Offset += len(name)
	e.Col += len(name)
	return e
}

func (l *lowerer) events(es []*eventRef) []*EventExpr {
	if es == nil {
		return nil
	}
	out := make([]*EventExpr, len(es))
	for i, e := range es {
		out[i] = l.event(e)
	}
	return out
}

// ---------------------------------------------------------------------------
// Expressions

// Expression operator precedence, loosest first (PAT's grammar).
var exprPrec = map[string]int{
	"||": 1, "&&": 2, "xor": 3, "&": 4, "|": 4, "^": 4, "==": 5, "!=": 5,
	"<": 6, "<=": 6, ">": 6, ">=": 6, "+": 7, "-": 7, "*": 8, "/": 8, "%": 8,
}

func (l *lowerer) optExpr(e *expression) Expr {
	if e == nil {
		return nil
	}
	return l.expr(e)
}

func (l *lowerer) exprs(es []*expression) []Expr {
	if es == nil {
		return nil
	}
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = l.expr(e)
	}
	return out
}

func (l *lowerer) expr(e *expression) Expr { return e.X }

func (l *lowerer) args(as []*argument) []Expr {
	if as == nil {
		return nil
	}
	out := make([]Expr, len(as))
	for i, a := range as {
		out[i] = a.X
	}
	return out
}

func (l *lowerer) unary(u *unary) Expr { return u.X }
