package lang

import (
	"strconv"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Expressions are parsed by hand (precedence climbing) inside participle
// custom nodes: they are most of the tokens of a model, and participle's
// backtracking over a dozen precedence levels made parsing several times
// slower. The nodes build AST expressions directly.

// expression is a full expression.
type expression struct{ X Expr }

// dataExpr is event data: PAT allows an additive expression there (so that
// `e.i.j` reads as three parts and `e.x+1` as e.(x+1)).
type dataExpr struct{ X Expr }

// argument is a process argument: an expression or an array literal.
type argument struct{ X Expr }

// unary is a unary expression (the quasi factor, before `on`/`>`).
type unary struct{ X Expr }

func (e *expression) Parse(lex *lexer.PeekingLexer) error {
	x, err := parseExprTop(lex, 1)
	e.X = x
	return err
}

func (e *argument) Parse(lex *lexer.PeekingLexer) error {
	if !isPunct(lex.Peek(), "[") {
		x, err := parseExprTop(lex, 1)
		e.X = x
		return err
	}
	p := exprParser{lex: lex}
	x, err := p.arrayLit()
	e.X = x
	return err
}

func (e *dataExpr) Parse(lex *lexer.PeekingLexer) error {
	x, err := parseExprTop(lex, exprPrec["+"])
	e.X = x
	return err
}

func (e *unary) Parse(lex *lexer.PeekingLexer) error {
	if !startsExpr(lex.Peek()) {
		return participle.NextMatch
	}
	p := exprParser{lex: lex}
	x, err := p.unary()
	e.X = x
	return err
}

func parseExprTop(lex *lexer.PeekingLexer, min int) (Expr, error) {
	if !startsExpr(lex.Peek()) {
		return nil, participle.NextMatch
	}
	p := exprParser{lex: lex}
	return p.binary(min)
}

func startsExpr(t *lexer.Token) bool {
	switch t.Type {
	case tokInt, tokIdent:
		return true
	case tokKeyword:
		return t.Value == "true" || t.Value == "false" || t.Value == "call"
	case tokPunct:
		switch t.Value {
		case "(", "!", "-", "+", "&&", "||":
			return true
		}
	}
	return false
}

type exprParser struct {
	lex   *lexer.PeekingLexer
	depth int
	end   Pos // end of the last token consumed
}

// maxDepth bounds the nesting of expressions, so that hostile input cannot
// overflow the stack.
const maxDepth = 1000

func tokStart(t *lexer.Token) Pos { return posOf(t.Pos) }

func tokEnd(t *lexer.Token) Pos {
	p := posOf(t.Pos)
	p.Offset += len(t.Value)
	p.Col += utf8.RuneCountInString(t.Value)
	return p
}

func (p *exprParser) errExpected(what string) error {
	t := p.lex.Peek()
	return participle.Errorf(t.Pos, "expected %s, found %s", what, describeToken(*t))
}

func (p *exprParser) expect(v string) (*lexer.Token, error) {
	t := p.lex.Peek()
	if (t.Type == tokPunct || t.Type == tokKeyword) && t.Value == v {
		return p.next(), nil
	}
	return nil, p.errExpected(strconv.Quote(v))
}

func (p *exprParser) is(v string) bool {
	t := p.lex.Peek()
	return (t.Type == tokPunct || t.Type == tokKeyword) && t.Value == v
}

func binaryPrec(t *lexer.Token) int {
	if t.Type != tokPunct && t.Type != tokKeyword {
		return 0
	}
	return exprPrec[t.Value]
}

func (p *exprParser) binary(min int) (Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.errExpected("a less deeply nested expression")
	}
	start := tokStart(p.lex.Peek())
	lhs, err := p.unary()
	if err != nil {
		return lhs, err
	}
	for {
		t := p.lex.Peek()
		prec := binaryPrec(t)
		if prec == 0 || prec < min {
			return lhs, nil
		}
		op := p.next().Value
		rhs, err := p.binary(prec + 1)
		if err != nil {
			return lhs, err
		}
		lhs = &BinaryExpr{Span: Span{start, p.end}, Op: op, X: lhs, Y: rhs}
	}
}

func (p *exprParser) unary() (Expr, error) {
	t := p.lex.Peek()
	if t.Type == tokPunct && (t.Value == "!" || t.Value == "-" || t.Value == "+") {
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			return nil, p.errExpected("a less deeply nested expression")
		}
		op := p.next()
		x, err := p.unary()
		if err != nil {
			return x, err
		}
		sp := Span{tokStart(op), p.end}
		switch {
		case op.Value == "+":
			return x, nil
		case op.Value == "-":
			// Fold `-3` into a literal so that `#define N -3;` is a plain constant.
			if lit, ok := x.(*IntLit); ok && lit.Value >= 0 {
				return &IntLit{Span: sp, Value: -lit.Value}, nil
			}
		}
		return &UnaryExpr{Span: sp, Op: op.Value, X: x}, nil
	}
	return p.primary()
}

func (p *exprParser) primary() (Expr, error) {
	t := p.lex.Peek()
	switch {
	case t.Type == tokInt:
		p.next()
		// PAT's integers are C# ints: a literal must fit 32 bits.
		v, err := strconv.ParseInt(t.Value, 10, 32)
		if err != nil {
			return nil, participle.Errorf(t.Pos, "integer %s out of range: PAT's integers are 32-bit (at most 2147483647)", t.Value)
		}
		return &IntLit{Span: Span{tokStart(t), tokEnd(t)}, Value: v}, nil
	case t.Type == tokKeyword && (t.Value == "true" || t.Value == "false"):
		p.next()
		return &BoolLit{Span: Span{tokStart(t), tokEnd(t)}, Value: t.Value == "true"}, nil
	case t.Type == tokKeyword && t.Value == "call":
		p.next()
		if _, err := p.expect("("); err != nil {
			return nil, err
		}
		fn, err := p.ident("macro name")
		if err != nil {
			return nil, err
		}
		call := &CallExpr{Func: fn}
		for p.is(",") {
			p.next()
			a, err := p.binary(1)
			if err != nil {
				return nil, err
			}
			call.Args = append(call.Args, a)
		}
		end, err := p.expect(")")
		if err != nil {
			return nil, err
		}
		call.Span = Span{tokStart(t), tokEnd(end)}
		return call, nil
	case t.Type == tokPunct && (t.Value == "&&" || t.Value == "||"):
		p.next()
		out := &IndexedBoolExpr{Op: t.Value}
		for {
			iv, err := p.indexVar()
			if err != nil {
				return nil, err
			}
			out.Index = append(out.Index, iv)
			if !p.is(";") {
				break
			}
			p.next()
		}
		if _, err := p.expect("@"); err != nil {
			return nil, err
		}
		body, err := p.binary(1)
		if err != nil {
			return nil, err
		}
		out.Body = body
		out.Span = Span{tokStart(t), p.end}
		return out, nil
	case t.Type == tokPunct && t.Value == "(":
		p.next()
		x, err := p.binary(1)
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(")"); err != nil {
			return nil, err
		}
		return x, nil
	case t.Type == tokIdent:
		id, _ := p.ident("name")
		var x Expr = id
		for p.is("[") {
			p.next()
			i, err := p.binary(1)
			if err != nil {
				return nil, err
			}
			end, err := p.expect("]")
			if err != nil {
				return nil, err
			}
			x = &IndexExpr{Span: Span{id.Pos(), tokEnd(end)}, X: x, Index: i}
		}
		return x, nil
	}
	return nil, p.errExpected("expression")
}

func (p *exprParser) ident(what string) (*Ident, error) {
	t := p.lex.Peek()
	if t.Type != tokIdent {
		return nil, p.errExpected(what)
	}
	p.next()
	return &Ident{Span: Span{tokStart(t), tokEnd(t)}, Name: t.Value}, nil
}

// indexVar parses `i:{lo..hi}` or `i:{e1, e2}`.
func (p *exprParser) indexVar() (*IndexVar, error) {
	id, err := p.ident("index variable")
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(":"); err != nil {
		return nil, err
	}
	open, err := p.expect("{")
	if err != nil {
		return nil, err
	}
	set := &IndexSet{}
	lo, err := p.binary(1)
	if err != nil {
		return nil, err
	}
	if p.is("..") {
		p.next()
		hi, err := p.binary(1)
		if err != nil {
			return nil, err
		}
		set.Range = &Range{Lo: lo, Hi: hi}
	} else {
		set.Elems = []Expr{lo}
		for p.is(",") {
			p.next()
			e, err := p.binary(1)
			if err != nil {
				return nil, err
			}
			set.Elems = append(set.Elems, e)
		}
	}
	end, err := p.expect("}")
	if err != nil {
		return nil, err
	}
	set.Span = Span{tokStart(open), tokEnd(end)}
	if set.Range != nil {
		set.Range.Span = set.Span
	}
	return &IndexVar{Span: Span{id.Pos(), set.End()}, Var: id, Set: set}, nil
}
