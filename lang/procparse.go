package lang

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Processes, statement blocks, event sets and array initialisers are also
// parsed by hand (participle custom nodes), for speed: participle's
// optional groups each cost a backtracking branch, and a process atom has
// eight of them. The rules are those of PAT's grammar, with process
// operators by precedence (loosest first):
//
//	|||   ||   []   <>   [*]   interrupt   P \ {..}   ;   atoms
//
// Atoms: `e -> P` (P an atom), `[cond] P`, Skip, Stop, references, channel
// input and output, if/ifa/ifb, case, atomic{..}, `{..} -> P`, `(P)`,
// `(a, b) -> P`, and the indexed forms `[] i:{..} @ P`, whose body extends
// as far as possible.

// process is a process expression.
type process struct{ P Proc }

// block is a statement block `{ ... }`.
type block struct{ B *Block }

// eventSet is `{a, b.1, i:{0..N}@e.i}`.
type eventSet struct{ S *EventSet }

// arrayLit is an array initialiser `[1, 2(N), 3..5]`.
type arrayLit struct{ A *ArrayLit }

func (x *process) Parse(lex *lexer.PeekingLexer) error {
	if !startsProc(lex.Peek()) {
		return participle.NextMatch
	}
	p := exprParser{lex: lex}
	var err error
	x.P, err = p.process(1)
	return err
}

func (x *block) Parse(lex *lexer.PeekingLexer) error {
	if !isPunct(lex.Peek(), "{") {
		return participle.NextMatch
	}
	p := exprParser{lex: lex}
	var err error
	x.B, err = p.block()
	return err
}

func (x *eventSet) Parse(lex *lexer.PeekingLexer) error {
	if !isPunct(lex.Peek(), "{") {
		return participle.NextMatch
	}
	p := exprParser{lex: lex}
	var err error
	x.S, err = p.eventSet()
	return err
}

func (x *arrayLit) Parse(lex *lexer.PeekingLexer) error {
	if !isPunct(lex.Peek(), "[") {
		return participle.NextMatch
	}
	p := exprParser{lex: lex}
	var err error
	x.A, err = p.arrayLit()
	return err
}

func isPunct(t *lexer.Token, v string) bool {
	return (t.Type == tokPunct || t.Type == tokKeyword) && t.Value == v
}

func startsProc(t *lexer.Token) bool {
	switch t.Type {
	case tokIdent:
		return true
	case tokKeyword:
		switch t.Value {
		case "tau", "Skip", "Stop", "atomic", "if", "ifa", "ifb", "case":
			return true
		}
	case tokPunct:
		switch t.Value {
		case "[", "(", "{", "|||", "||", "[]", "<>", "[*]":
			return true
		}
	}
	return false
}

// next consumes a token and remembers where it ends.
func (p *exprParser) next() *lexer.Token {
	t := p.lex.Next()
	p.end = tokEnd(t)
	return t
}

func (p *exprParser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errExpected("less deeply nested code")
	}
	return nil
}

func (p *exprParser) leave() { p.depth-- }

// process parses operators of precedence >= min.
func (p *exprParser) process(min int) (Proc, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	start := tokStart(p.lex.Peek())
	lhs, err := p.unit()
	if err != nil {
		return nil, err
	}
	fresh := false // lhs is an n-ary node built in this chain (not parenthesised)
	for {
		t := p.lex.Peek()
		if t.Type != tokPunct && !(t.Type == tokKeyword && t.Value == "interrupt") {
			return lhs, nil
		}
		if t.Value == "\\" {
			if procPrec["\\"] < min {
				return lhs, nil
			}
			p.next()
			set, err := p.eventSet()
			if err != nil {
				return nil, err
			}
			lhs, fresh = &HideProc{Span: Span{start, p.end}, Body: lhs, Events: set}, false
			continue
		}
		prec, ok := procPrec[t.Value]
		if !ok || prec < min || t.Value == ";" && p.declAfterSemicolon() {
			return lhs, nil
		}
		p.next()
		rhs, err := p.process(prec + 1)
		if err != nil {
			return nil, err
		}
		sp := Span{start, p.end}
		switch t.Value {
		case ";":
			lhs, fresh = &SeqProc{Span: sp, Left: lhs, Right: rhs}, false
		case "interrupt":
			lhs, fresh = &InterruptProc{Span: sp, Left: lhs, Right: rhs}, false
		case "[]", "<>", "[*]":
			o := choiceOps[t.Value]
			if ch, ok := lhs.(*ChoiceProc); ok && fresh && ch.Op == o {
				ch.Procs = append(ch.Procs, rhs)
				ch.EndPos = p.end
			} else {
				lhs = &ChoiceProc{Span: sp, Op: o, Procs: []Proc{lhs, rhs}}
			}
			fresh = true
		case "||", "|||":
			o := parOps[t.Value]
			if par, ok := lhs.(*ParProc); ok && fresh && par.Op == o {
				par.Procs = append(par.Procs, rhs)
				par.EndPos = p.end
			} else {
				lhs = &ParProc{Span: sp, Op: o, Procs: []Proc{lhs, rhs}}
			}
			fresh = true
		}
	}
}

var (
	choiceOps = map[string]ChoiceOp{"[]": GeneralChoice, "<>": InternalChoice, "[*]": ExternalChoice}
	parOps    = map[string]ParOp{"||": Parallel, "|||": Interleave}
)

// declAfterSemicolon reports whether the `;` ahead ends a definition: what
// follows it starts a declaration (`P(i, j) =`, `P =`, a directive, a
// declaration keyword) or is the end of the file.
func (p *exprParser) declAfterSemicolon() bool {
	cp := p.lex.MakeCheckpoint()
	defer p.lex.LoadCheckpoint(cp)
	p.lex.Next() // ;
	t := p.lex.Next()
	switch t.Type {
	case lexer.EOF, tokDirective:
		return true
	case tokKeyword:
		switch t.Value {
		case "var", "hvar", "channel", "enum":
			return true
		}
		return false
	case tokIdent:
	default:
		return false
	}
	t = p.lex.Next()
	if isPunct(t, "=") {
		return true
	}
	if !isPunct(t, "(") {
		return false
	}
	t = p.lex.Next()
	if isPunct(t, ")") {
		return isPunct(p.lex.Next(), "=")
	}
	for {
		if t.Type != tokIdent {
			return false
		}
		t = p.lex.Next()
		if isPunct(t, ")") {
			return isPunct(p.lex.Next(), "=")
		}
		if !isPunct(t, ",") {
			return false
		}
		t = p.lex.Next()
	}
}

func (p *exprParser) expectP(v string) (*lexer.Token, error) {
	if !isPunct(p.lex.Peek(), v) {
		return nil, p.errExpected(`"` + v + `"`)
	}
	return p.next(), nil
}

func (p *exprParser) unit() (Proc, error) {
	t := p.lex.Peek()
	start := tokStart(t)
	switch {
	case t.Type == tokIdent || t.Type == tokKeyword && t.Value == "tau":
		return p.named()
	case t.Type == tokKeyword:
		switch t.Value {
		case "Skip", "Stop":
			p.next()
			if isPunct(p.lex.Peek(), "(") {
				p.next()
				if _, err := p.expectP(")"); err != nil {
					return nil, err
				}
			}
			if t.Value == "Skip" {
				return &SkipProc{Span: Span{start, p.end}}, nil
			}
			return &StopProc{Span: Span{start, p.end}}, nil
		case "atomic":
			p.next()
			body, err := p.braced()
			if err != nil {
				return nil, err
			}
			return &AtomicProc{Span: Span{start, p.end}, Body: body}, nil
		case "if", "ifa", "ifb":
			return p.ifProc()
		case "case":
			return p.caseProc()
		}
	case t.Type == tokPunct:
		switch t.Value {
		case "[":
			p.next()
			cond, err := p.binary(1)
			if err != nil {
				return nil, err
			}
			if _, err := p.expectP("]"); err != nil {
				return nil, err
			}
			body, err := p.unit()
			if err != nil {
				return nil, err
			}
			return &GuardProc{Span: Span{start, p.end}, Cond: cond, Body: body}, nil
		case "(":
			return p.paren()
		case "{":
			blk, err := p.block()
			if err != nil {
				return nil, err
			}
			if _, err := p.expectP("->"); err != nil {
				return nil, p.errExpected(`"->" after a block`)
			}
			next, err := p.unit()
			if err != nil {
				return nil, err
			}
			return &PrefixProc{Span: Span{start, p.end}, Block: blk, Next: next}, nil
		case "|||", "||", "[]", "<>", "[*]":
			return p.indexed()
		}
	}
	return nil, p.errExpected("process")
}

// braced parses `{ P }`.
func (p *exprParser) braced() (Proc, error) {
	if _, err := p.expectP("{"); err != nil {
		return nil, err
	}
	body, err := p.process(1)
	if err != nil {
		return nil, err
	}
	if _, err := p.expectP("}"); err != nil {
		return nil, err
	}
	return body, nil
}

func (p *exprParser) ifProc() (Proc, error) {
	t := p.next()
	out := &IfProc{Span: Span{Start: tokStart(t)}}
	switch t.Value {
	case "ifa":
		out.Kind = IfA
	case "ifb":
		out.Kind = IfB
	}
	if _, err := p.expectP("("); err != nil {
		return nil, err
	}
	cond, err := p.binary(1)
	if err != nil {
		return nil, err
	}
	out.Cond = cond
	if _, err := p.expectP(")"); err != nil {
		return nil, err
	}
	if out.Then, err = p.braced(); err != nil {
		return nil, err
	}
	if isPunct(p.lex.Peek(), "else") {
		if out.Kind == IfB {
			return nil, participle.Errorf(p.lex.Peek().Pos, "ifb has no else branch")
		}
		p.next()
		if t := p.lex.Peek(); t.Type == tokKeyword && (t.Value == "if" || t.Value == "ifa" || t.Value == "ifb") {
			out.Else, err = p.ifProc()
		} else {
			out.Else, err = p.braced()
		}
		if err != nil {
			return nil, err
		}
	}
	out.EndPos = p.end
	return out, nil
}

func (p *exprParser) caseProc() (Proc, error) {
	t := p.next()
	out := &CaseProc{}
	if _, err := p.expectP("{"); err != nil {
		return nil, err
	}
	for {
		t := p.lex.Peek()
		if isPunct(t, "}") || isPunct(t, "default") {
			break
		}
		if !startsExpr(t) {
			return nil, p.errExpected("case condition")
		}
		armStart := tokStart(t)
		cond, err := p.binary(1)
		if err != nil {
			return nil, err
		}
		if _, err := p.expectP(":"); err != nil {
			return nil, err
		}
		body, err := p.process(1)
		if err != nil {
			return nil, err
		}
		out.Arms = append(out.Arms, &CaseArm{Span: Span{armStart, p.end}, Cond: cond, Body: body})
	}
	if len(out.Arms) == 0 {
		return nil, p.errExpected("case condition")
	}
	if isPunct(p.lex.Peek(), "default") {
		p.next()
		if _, err := p.expectP(":"); err != nil {
			return nil, err
		}
		d, err := p.process(1)
		if err != nil {
			return nil, err
		}
		out.Default = d
	}
	if _, err := p.expectP("}"); err != nil {
		return nil, err
	}
	out.Span = Span{tokStart(t), p.end}
	return out, nil
}

// indexed parses `[] i:{0..N-1} @ P`, `||| {N} @ P`, `||| {..} @ P`.
func (p *exprParser) indexed() (Proc, error) {
	t := p.next()
	out := &IndexedProc{}
	switch t.Value {
	case "|||", "||":
		out.IsPar, out.ParOp = true, parOps[t.Value]
	default:
		out.ChoiceOp = choiceOps[t.Value]
	}
	if isPunct(p.lex.Peek(), "{") {
		open := p.next()
		set := &IndexSet{}
		if isPunct(p.lex.Peek(), "..") {
			p.next()
			set.Range = &Range{}
		} else {
			n, err := p.binary(1)
			if err != nil {
				return nil, err
			}
			set.Elems = []Expr{n}
		}
		if _, err := p.expectP("}"); err != nil {
			return nil, err
		}
		set.Span = Span{tokStart(open), p.end}
		if set.Range != nil {
			set.Range.Span = set.Span
		}
		out.Index = []*IndexVar{{Span: set.Span, Set: set}}
	} else {
		ivs, err := p.indexVars()
		if err != nil {
			return nil, err
		}
		out.Index = ivs
	}
	if _, err := p.expectP("@"); err != nil {
		return nil, err
	}
	body, err := p.process(1)
	if err != nil {
		return nil, err
	}
	out.Body = body
	out.Span = Span{tokStart(t), p.end}
	return out, nil
}

func (p *exprParser) indexVars() ([]*IndexVar, error) {
	var out []*IndexVar
	for {
		iv, err := p.indexVar()
		if err != nil {
			return nil, err
		}
		out = append(out, iv)
		if !isPunct(p.lex.Peek(), ";") {
			return out, nil
		}
		p.next()
	}
}

// paren parses `(P)` and the multi-event prefix `(a, b.1) -> P`.
func (p *exprParser) paren() (Proc, error) {
	open := p.next()
	var events []*EventExpr // candidates, while every element is a bare event
	var procs []Proc
	allEvents := true
	for {
		if ev := p.tryBareEvent(); ev != nil {
			events = append(events, ev)
			procs = append(procs, nil)
		} else {
			q, err := p.process(1)
			if err != nil {
				return nil, err
			}
			allEvents = false
			procs = append(procs, q)
			events = append(events, nil)
		}
		if !isPunct(p.lex.Peek(), ",") {
			break
		}
		p.next()
	}
	if _, err := p.expectP(")"); err != nil {
		return nil, err
	}
	sp := Span{tokStart(open), p.end}
	if !isPunct(p.lex.Peek(), "->") {
		if len(procs) > 1 {
			return nil, p.errExpected(`"->" after (a, b)`)
		}
		if procs[0] != nil {
			return procs[0], nil
		}
		ev := events[0]
		if ev.Data != nil || ev.Name.Name == "tau" {
			return nil, p.errExpected(`"->" after event ` + ev.Name.Name)
		}
		return &RefProc{Span: ev.Span, Name: ev.Name}, nil
	}
	if !allEvents {
		for i, q := range procs {
			if q != nil {
				return nil, participle.Errorf(lexPos(procs[i].Pos()), "expected an event in a multi-event prefix (a, b) -> P")
			}
		}
	}
	p.next() // ->
	next, err := p.unit()
	if err != nil {
		return nil, err
	}
	sp.EndPos = p.end
	if len(events) == 1 {
		return &PrefixProc{Span: sp, Event: events[0], Next: next}, nil
	}
	return &MultiPrefixProc{Span: sp, Events: events, Next: next}, nil
}

func lexPos(p Pos) lexer.Position {
	return lexer.Position{Filename: p.File, Offset: p.Offset, Line: p.Line, Column: p.Col}
}

// tryBareEvent parses `e.d1.d2` if it is followed by `,` or `)`, and
// otherwise consumes nothing.
func (p *exprParser) tryBareEvent() *EventExpr {
	t := p.lex.Peek()
	if t.Type != tokIdent && !(t.Type == tokKeyword && t.Value == "tau") {
		return nil
	}
	cp := p.lex.MakeCheckpoint()
	end := p.end
	ev, err := p.event()
	if err == nil {
		if n := p.lex.Peek(); isPunct(n, ",") || isPunct(n, ")") {
			return ev
		}
	}
	p.lex.LoadCheckpoint(cp)
	p.end = end
	return nil
}

// event parses `e.d1.d2` (data are additive expressions).
func (p *exprParser) event() (*EventExpr, error) {
	t := p.lex.Peek()
	if t.Type != tokIdent && !(t.Type == tokKeyword && t.Value == "tau") {
		return nil, p.errExpected("event")
	}
	p.next()
	name := &Ident{Span: Span{tokStart(t), tokEnd(t)}, Name: t.Value}
	ev := &EventExpr{Span: name.Span, Name: name}
	for isPunct(p.lex.Peek(), ".") {
		p.next()
		if !startsExpr(p.lex.Peek()) {
			return nil, p.errExpected("event data")
		}
		d, err := p.binary(exprPrec["+"])
		if err != nil {
			return nil, err
		}
		ev.Data = append(ev.Data, d)
		ev.EndPos = p.end
	}
	return ev, nil
}

// named parses what starts with a name: `P`, `P(1)`, `e.1 -> Q`,
// `e{..} -> Q`, `c!v -> Q`, `c[i]?x -> Q`, `tau -> Q`.
func (p *exprParser) named() (Proc, error) {
	t := p.lex.Peek()
	start := tokStart(t)
	name := &Ident{Span: Span{start, tokEnd(t)}, Name: t.Value}
	isTau := t.Type == tokKeyword
	cp := p.lex.MakeCheckpoint()
	p.next()
	n := p.lex.Peek()
	switch {
	case isPunct(n, "("):
		if isTau {
			return nil, participle.Errorf(t.Pos, "tau is an event, not a process")
		}
		p.next()
		args := []Expr{}
		if !isPunct(p.lex.Peek(), ")") {
			for {
				a, err := p.initialiser() // an expression, or an array literal
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				if !isPunct(p.lex.Peek(), ",") {
					break
				}
				p.next()
			}
		}
		if _, err := p.expectP(")"); err != nil {
			return nil, err
		}
		if isPunct(p.lex.Peek(), "->") {
			return nil, participle.Errorf(t.Pos, "an event has no arguments: write e.x, not e(x)")
		}
		return &RefProc{Span: Span{start, p.end}, Name: name, Args: args}, nil
	case isPunct(n, "[") || isPunct(n, "!") || isPunct(n, "?"):
		if isTau {
			return nil, participle.Errorf(t.Pos, "tau is not a channel")
		}
		return p.channel(name)
	}
	p.lex.LoadCheckpoint(cp)
	ev, err := p.event()
	if err != nil {
		return nil, err
	}
	var blk *Block
	if isPunct(p.lex.Peek(), "{") {
		if blk, err = p.block(); err != nil {
			return nil, err
		}
	}
	if !isPunct(p.lex.Peek(), "->") {
		switch {
		case blk != nil:
			return nil, p.errExpected(`"->" after event block`)
		case ev.Data != nil || isTau:
			return nil, p.errExpected(`"->" after event ` + ev.Name.Name)
		}
		return &RefProc{Span: ev.Span, Name: name}, nil
	}
	p.next()
	next, err := p.unit()
	if err != nil {
		return nil, err
	}
	return &PrefixProc{Span: Span{start, p.end}, Event: ev, Block: blk, Next: next}, nil
}

// channel parses `c[i]!v1.v2{..} -> P` and `c[i]?[g]x.y{..} -> P`.
func (p *exprParser) channel(name *Ident) (Proc, error) {
	var index []Expr
	for isPunct(p.lex.Peek(), "[") {
		p.next()
		i, err := p.binary(1)
		if err != nil {
			return nil, err
		}
		index = append(index, i)
		if _, err := p.expectP("]"); err != nil {
			return nil, err
		}
	}
	op := p.lex.Peek()
	if !isPunct(op, "!") && !isPunct(op, "?") {
		return nil, p.errExpected(`"!" or "?" after channel ` + name.Name + "[..]")
	}
	p.next()
	var guard Expr
	if op.Value == "?" && isPunct(p.lex.Peek(), "[") {
		p.next()
		g, err := p.binary(1)
		if err != nil {
			return nil, err
		}
		guard = g
		if _, err := p.expectP("]"); err != nil {
			return nil, err
		}
	}
	var values []Expr
	for {
		if !startsExpr(p.lex.Peek()) {
			return nil, p.errExpected("expression")
		}
		v, err := p.binary(1)
		if err != nil {
			return nil, err
		}
		values = append(values, v)
		if !isPunct(p.lex.Peek(), ".") {
			break
		}
		p.next()
	}
	var blk *Block
	if isPunct(p.lex.Peek(), "{") {
		var err error
		if blk, err = p.block(); err != nil {
			return nil, err
		}
	}
	what := map[string]string{"!": "output", "?": "input"}[op.Value]
	if !isPunct(p.lex.Peek(), "->") {
		return nil, p.errExpected(`"->" after channel ` + what)
	}
	p.next()
	next, err := p.unit()
	if err != nil {
		return nil, err
	}
	sp := Span{name.Pos(), p.end}
	if op.Value == "!" {
		return &ChanOutProc{Span: sp, Chan: name, Index: index, Values: values, Block: blk, Next: next}, nil
	}
	return &ChanInProc{Span: sp, Chan: name, Index: index, Guard: guard, Vars: values, Block: blk, Next: next}, nil
}

// ---------------------------------------------------------------------------
// Event sets, blocks, array initialisers

func (p *exprParser) eventSet() (*EventSet, error) {
	open, err := p.expectP("{")
	if err != nil {
		return nil, err
	}
	out := &EventSet{}
	if !isPunct(p.lex.Peek(), "}") {
		for {
			item := &EventSetItem{}
			// `i:{..}@e.i`: a name followed by ':' starts index variables.
			cp := p.lex.MakeCheckpoint()
			if t := p.lex.Next(); t.Type == tokIdent && isPunct(p.lex.Peek(), ":") {
				p.lex.LoadCheckpoint(cp)
				if item.Index, err = p.indexVars(); err != nil {
					return nil, err
				}
				if _, err := p.expectP("@"); err != nil {
					return nil, err
				}
			} else {
				p.lex.LoadCheckpoint(cp)
			}
			ev, err := p.event()
			if err != nil {
				return nil, err
			}
			item.Event = ev
			item.Span = Span{ev.Pos(), ev.End()}
			if item.Index != nil {
				item.Start = item.Index[0].Pos()
			}
			out.Items = append(out.Items, item)
			if !isPunct(p.lex.Peek(), ",") {
				break
			}
			p.next()
		}
	}
	if _, err := p.expectP("}"); err != nil {
		return nil, err
	}
	out.Span = Span{tokStart(open), p.end}
	return out, nil
}

func (p *exprParser) block() (*Block, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	open, err := p.expectP("{")
	if err != nil {
		return nil, err
	}
	out := &Block{}
	for !isPunct(p.lex.Peek(), "}") {
		s, err := p.stmt(true)
		if err != nil {
			return nil, err
		}
		if s != nil {
			out.Stmts = append(out.Stmts, s)
		}
	}
	p.next()
	out.Span = Span{tokStart(open), p.end}
	return out, nil
}

// asBlock parses the body of if/while: a block, or one statement wrapped
// into a block.
func (p *exprParser) asBlock() (*Block, error) {
	if isPunct(p.lex.Peek(), "{") {
		return p.block()
	}
	start := tokStart(p.lex.Peek())
	s, err := p.stmt(false)
	if err != nil {
		return nil, err
	}
	out := &Block{Span: Span{start, p.end}}
	if s != nil {
		out.Stmts = []Stmt{s}
	}
	return out, nil
}

// stmt parses a statement; inBlock allows the last statement of a block to
// omit its `;` (PAT's `{ x = 1 }`).
func (p *exprParser) stmt(inBlock bool) (Stmt, error) {
	t := p.lex.Peek()
	start := tokStart(t)
	switch {
	case isPunct(t, "{"):
		return p.block()
	case isPunct(t, ";"):
		p.next()
		return nil, nil
	case t.Type == tokKeyword && t.Value == "var":
		p.next()
		name, err := p.ident("name")
		if err != nil {
			return nil, err
		}
		p.end = name.End()
		out := &LocalVarStmt{Name: name}
		if out.Dims, err = p.dims(); err != nil {
			return nil, err
		}
		if isPunct(p.lex.Peek(), "=") {
			p.next()
			if out.Init, err = p.initialiser(); err != nil {
				return nil, err
			}
		}
		if _, err := p.expectP(";"); err != nil {
			return nil, err
		}
		out.Span = Span{start, p.end}
		return out, nil
	case t.Type == tokKeyword && (t.Value == "if" || t.Value == "while"):
		p.next()
		if _, err := p.expectP("("); err != nil {
			return nil, err
		}
		cond, err := p.binary(1)
		if err != nil {
			return nil, err
		}
		if _, err := p.expectP(")"); err != nil {
			return nil, err
		}
		body, err := p.asBlock()
		if err != nil {
			return nil, err
		}
		if t.Value == "while" {
			return &WhileStmt{Span: Span{start, p.end}, Cond: cond, Body: body}, nil
		}
		out := &IfStmt{Cond: cond, Then: body}
		if isPunct(p.lex.Peek(), "else") {
			p.next()
			if n := p.lex.Peek(); n.Type == tokKeyword && n.Value == "if" {
				if out.Else, err = p.stmt(false); err != nil {
					return nil, err
				}
			} else if out.Else, err = p.asBlock(); err != nil {
				return nil, err
			}
		}
		out.Span = Span{start, p.end}
		return out, nil
	}
	if !startsExpr(t) {
		return nil, p.errExpected("statement")
	}
	lhs, err := p.binary(1)
	if err != nil {
		return nil, err
	}
	p.end = lhs.End()
	var out Stmt
	switch n := p.lex.Peek(); {
	case isPunct(n, "="):
		p.next()
		rhs, err := p.binary(1)
		if err != nil {
			return nil, err
		}
		if err := assignable(lhs); err != nil {
			return nil, err
		}
		out = &AssignStmt{LHS: lhs, Op: "=", RHS: rhs}
	case isPunct(n, "++") || isPunct(n, "--"):
		p.next()
		if err := assignable(lhs); err != nil {
			return nil, err
		}
		out = &IncDecStmt{LHS: lhs, Inc: n.Value == "++"}
	default:
		out = &ExprStmt{X: lhs}
	}
	end := p.end
	if isPunct(p.lex.Peek(), ";") {
		p.next()
		end = p.end
	} else if !inBlock || !isPunct(p.lex.Peek(), "}") {
		return nil, p.errExpected(`";"`)
	}
	sp := Span{start, end}
	switch x := out.(type) {
	case *AssignStmt:
		x.Span = sp
	case *IncDecStmt:
		x.Span = sp
	case *ExprStmt:
		x.Span = sp
	}
	return out, nil
}

func assignable(e Expr) error {
	root := e
	for {
		ix, ok := root.(*IndexExpr)
		if !ok {
			break
		}
		root = ix.X
	}
	if _, ok := root.(*Ident); ok {
		return nil
	}
	return participle.Errorf(lexPos(e.Pos()), "cannot assign to %s", exprString(e))
}

func (p *exprParser) dims() ([]Expr, error) {
	var out []Expr
	for isPunct(p.lex.Peek(), "[") {
		p.next()
		d, err := p.binary(1)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
		if _, err := p.expectP("]"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (p *exprParser) initialiser() (Expr, error) {
	if isPunct(p.lex.Peek(), "[") {
		return p.arrayLit()
	}
	e, err := p.binary(1)
	if err == nil {
		p.end = e.End()
	}
	return e, err
}

func (p *exprParser) arrayLit() (*ArrayLit, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	open, err := p.expectP("[")
	if err != nil {
		return nil, err
	}
	out := &ArrayLit{}
	for {
		el := &ArrayElem{}
		if isPunct(p.lex.Peek(), "[") {
			if el.Value, err = p.arrayLit(); err != nil {
				return nil, err
			}
		} else {
			if !startsExpr(p.lex.Peek()) {
				return nil, p.errExpected("array element")
			}
			if el.Value, err = p.binary(1); err != nil {
				return nil, err
			}
			p.end = el.Value.End()
		}
		switch {
		case isPunct(p.lex.Peek(), "("):
			p.next()
			if el.Count, err = p.binary(1); err != nil {
				return nil, err
			}
			if _, err := p.expectP(")"); err != nil {
				return nil, err
			}
		case isPunct(p.lex.Peek(), ".."):
			p.next()
			if el.To, err = p.binary(1); err != nil {
				return nil, err
			}
			p.end = el.To.End()
		}
		el.Span = Span{el.Value.Pos(), p.end}
		out.Elems = append(out.Elems, el)
		if !isPunct(p.lex.Peek(), ",") {
			break
		}
		p.next()
	}
	if _, err := p.expectP("]"); err != nil {
		return nil, err
	}
	out.Span = Span{tokStart(open), p.end}
	return out, nil
}

// procPrec is the binding level of the process operators, loosest first
// (PAT's grammar); `\` is the postfix hiding operator.
var procPrec = map[string]int{
	"|||": 1, "||": 2, "[]": 3, "<>": 4, "[*]": 5, "interrupt": 6, "\\": 7, ";": 8,
}
