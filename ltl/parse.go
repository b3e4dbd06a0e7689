package ltl

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SyntaxError is an error in a formula's text, at a position of the model
// file ("file:line:col").
type SyntaxError struct {
	Pos string
	Msg string
}

func (e *SyntaxError) Error() string {
	if e.Pos == "" {
		return e.Msg
	}
	return e.Pos + ": " + e.Msg
}

// maxDepth bounds the nesting of a formula (parentheses and unary
// operators), so that bad input cannot exhaust the stack.
const maxDepth = 200

type tokKind uint8

const (
	tEOF tokKind = iota
	tOp          // an operator or parenthesis; text in tok.text
	tIdent
	tInt
	tDot
)

type token struct {
	kind tokKind
	text string
	off  int
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "the end of the formula"
	case tInt:
		return "number " + t.text
	case tIdent:
		if isKeyword(t.text) {
			return "operator " + t.text
		}
		return "name " + t.text
	}
	return "'" + t.text + "'"
}

// keywords are identifiers that are operators or constants.
func isKeyword(s string) bool {
	switch s {
	case "X", "U", "R", "V", "G", "F", "true", "false":
		return true
	}
	return false
}

// symbols, longest first.
var symbols = []string{"<->", "[]", "<>", "&&", "||", "->", "/\\", "\\/", "!", "(", ")"}

// Parse parses a formula in PAT's syntax (docs/ltl.md). file, line and col
// give the position of the formula's first character in its model file;
// errors name the position of the offending token there.
func Parse(file string, line, col int, src string) (*Parsed, error) {
	p := &parser{file: file, line: line, col: col, src: src, atomIdx: map[string]int{}}
	if err := p.lex(); err != nil {
		return nil, err
	}
	f, err := p.formula(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errorf(t.off, "expected an operator or the end of the formula, found %s", t.describe())
	}
	return &Parsed{Root: f, Atoms: p.atoms, Source: src}, nil
}

type parser struct {
	file      string
	line, col int
	src       string
	toks      []token
	i         int
	depth     int
	atoms     []AtomRef
	atomIdx   map[string]int
}

// position renders the file position of a byte offset of the formula.
func (p *parser) position(off int) string { return Position(p.file, p.line, p.col, p.src, off) }

// Position renders "file:line:col" of byte offset off of a formula src
// whose first character is at line:col of file ("offset n" if line is 0).
func Position(file string, line, col int, src string, off int) string {
	if line == 0 {
		return fmt.Sprintf("offset %d", off)
	}
	for _, r := range src[:max(0, min(off, len(src)))] {
		if r == '\n' {
			line, col = line+1, 1
			continue
		}
		col++
	}
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}

func (p *parser) errorf(off int, format string, args ...any) error {
	return &SyntaxError{Pos: p.position(off), Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) lex() error {
	s := p.src
	i := 0
outer:
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		case isLetter(c):
			j := i + 1
			for j < len(s) && (isLetter(s[j]) || isDigit(s[j])) {
				j++
			}
			p.toks = append(p.toks, token{tIdent, s[i:j], i})
			i = j
			continue
		case isDigit(c):
			j := digitsEnd(s, i+1)
			p.toks = append(p.toks, token{tInt, s[i:j], i})
			i = j
			continue
		case c == '.':
			p.toks = append(p.toks, token{tDot, ".", i})
			i++
			continue
		}
		for _, sym := range symbols {
			if strings.HasPrefix(s[i:], sym) {
				p.toks = append(p.toks, token{tOp, sym, i})
				i += len(sym)
				continue outer
			}
		}
		if c == '-' && i+1 < len(s) && isDigit(s[i+1]) && len(p.toks) > 0 && p.toks[len(p.toks)-1].kind == tDot {
			j := digitsEnd(s, i+1)
			p.toks = append(p.toks, token{tInt, s[i:j], i})
			i = j
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i:])
		return p.errorf(i, "unexpected character %q in LTL formula", r)
	}
	p.toks = append(p.toks, token{tEOF, "", len(s)})
	return nil
}

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

// binary operators by precedence level, loosest first. All are
// left-associative (PAT's documentation: "All binary operators are
// left-associative").
var levels = [][]string{
	{"<->"},
	{"->"},
	{"||", "\\/"},
	{"&&", "/\\"},
	{"U", "R", "V"},
}

func binOp(text string) Op {
	switch text {
	case "<->":
		return OpIff
	case "->":
		return OpImplies
	case "||", "\\/":
		return OpOr
	case "&&", "/\\":
		return OpAnd
	case "U":
		return OpUntil
	}
	return OpRelease // R, V
}

// isOpTok reports whether t is one of ops (symbols are tOp, letters tIdent).
func isOpTok(t token, ops []string) bool {
	if t.kind != tOp && t.kind != tIdent {
		return false
	}
	for _, o := range ops {
		if t.text == o {
			return true
		}
	}
	return false
}

// formula parses a formula whose binary operators are of level lvl or
// tighter (precedence climbing over levels).
func (p *parser) formula(lvl int) (*Formula, error) {
	if lvl == len(levels) {
		return p.unary()
	}
	left, err := p.formula(lvl + 1)
	if err != nil {
		return nil, err
	}
	for isOpTok(p.peek(), levels[lvl]) {
		t := p.next()
		right, err := p.formula(lvl + 1)
		if err != nil {
			return nil, err
		}
		left = &Formula{Op: binOp(t.text), L: left, R: right, Off: t.off}
	}
	return left, nil
}

func (p *parser) unary() (*Formula, error) {
	p.depth++
	defer func() { p.depth-- }()
	t := p.peek()
	if p.depth > maxDepth {
		return nil, p.errorf(t.off, "formula nested deeper than %d", maxDepth)
	}
	var op Op
	switch {
	case t.kind == tOp && t.text == "!":
		op = OpNot
	case t.kind == tOp && t.text == "[]", t.kind == tIdent && t.text == "G":
		op = OpGlobally
	case t.kind == tOp && t.text == "<>", t.kind == tIdent && t.text == "F":
		op = OpFinally
	case t.kind == tIdent && t.text == "X":
		op = OpNext
	default:
		return p.primary()
	}
	p.next()
	sub, err := p.unary()
	if err != nil {
		return nil, err
	}
	return &Formula{Op: op, L: sub, Off: t.off}, nil
}

func (p *parser) primary() (*Formula, error) {
	t := p.next()
	switch {
	case t.kind == tOp && t.text == "(":
		f, err := p.formula(0)
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tOp || c.text != ")" {
			return nil, p.errorf(c.off, "expected ')' to close the '(' at %s, found %s", p.position(t.off), c.describe())
		}
		return f, nil
	case t.kind == tIdent && t.text == "true":
		return &Formula{Op: OpTrue, Off: t.off}, nil
	case t.kind == tIdent && t.text == "false":
		return &Formula{Op: OpFalse, Off: t.off}, nil
	case t.kind == tIdent && !isKeyword(t.text):
		return p.atom(t)
	}
	return nil, p.errorf(t.off, "expected a formula (an event, a proposition, true, false, '(' or a unary operator), found %s", t.describe())
}

// atom parses name(.part)* where parts are names or integers.
func (p *parser) atom(first token) (*Formula, error) {
	parts := []string{first.text}
	for p.peek().kind == tDot {
		d := p.next()
		t := p.next()
		if t.kind != tInt && (t.kind != tIdent || isKeyword(t.text)) {
			return nil, p.errorf(t.off, "expected a number or a name after '.' at %s, found %s", p.position(d.off), t.describe())
		}
		if t.kind == tInt {
			if _, err := strconv.Atoi(t.text); err != nil {
				return nil, p.errorf(t.off, "number %s out of range", t.text)
			}
		}
		parts = append(parts, t.text)
	}
	name := strings.Join(parts, ".")
	i, ok := p.atomIdx[name]
	if !ok {
		i = len(p.atoms)
		p.atomIdx[name] = i
		p.atoms = append(p.atoms, AtomRef{Name: name, Parts: parts, Off: first.off})
	}
	return &Formula{Op: OpAtom, Atom: i, Off: first.off}, nil
}

// digitsEnd is the end of the run of digits of s from j.
func digitsEnd(s string, j int) int {
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j
}
