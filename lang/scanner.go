package lang

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// The scanner is hand-written (a regexp lexer is several times slower): it
// turns a source into participle tokens with rune columns, skipping a
// UTF-8 byte-order mark, comments and white space (CRLF line ends and tabs
// included). It also records where each token ends, so that spans end just
// past their last character.

// Token types. Keywords have their own type so that `@Ident` never accepts
// a reserved word; contextual words (min, max, quasi, on, barrier, window,
// with, F, FD) are plain identifiers matched by value.
const (
	tokIdent lexer.TokenType = iota + 1
	tokKeyword
	tokInt
	tokString
	tokDirective // #define, #assert, ...
	tokPunct
)

var tokenSymbols = map[string]lexer.TokenType{
	"EOF":       lexer.EOF,
	"Ident":     tokIdent,
	"Keyword":   tokKeyword,
	"Int":       tokInt,
	"String":    tokString,
	"Directive": tokDirective,
	"Punct":     tokPunct,
}

// keywords are the reserved words of the language.
var keywords = map[string]bool{
	"var": true, "hvar": true, "channel": true, "enum": true,
	"if": true, "ifa": true, "ifb": true, "else": true, "while": true,
	"case": true, "default": true, "atomic": true, "interrupt": true,
	"Skip": true, "Stop": true, "tau": true, "true": true, "false": true,
	"call": true, "new": true, "xor": true,
	"refines": true, "deadlockfree": true, "divergencefree": true,
	"nonterminating": true, "deterministic": true, "reaches": true,
	"linearizes": true,
}

// directives are the known `#word` tokens.
var directives = map[string]bool{
	"#define": true, "#assert": true, "#alphabet": true, "#include": true, "#import": true,
}

// puncts lists the operators, longest first within each leading byte.
var puncts = []string{
	"|||", "||", "|=", "|",
	"&&", "&",
	"[*]", "[]", "[", "]",
	"<>", "<=", "<", ">=", ">",
	"->", "--", "-", "++", "+",
	"==", "=", "!=", "!",
	"..", ".",
	"(", ")", "{", "}", ",", ";", ":", "?", "@", "\\", "*", "/", "%", "^",
}

// punctsByByte indexes puncts by their first byte.
var punctsByByte = func() [256][]string {
	var t [256][]string
	for _, p := range puncts {
		t[p[0]] = append(t[p[0]], p)
	}
	return t
}()

// scanner is an incremental participle lexer over one source.
type scanner struct {
	filename       string
	src            []byte
	off, line, col int
	comments       []*Comment
	idents         map[string]string // interned identifier values
	count          int               // tokens returned, EOF included
}

func newScanner(filename string, src []byte) *scanner {
	s := &scanner{filename: filename, src: src, line: 1, col: 1, idents: map[string]string{}}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off = 3
	}
	return s
}

func (s *scanner) pos() lexer.Position {
	return lexer.Position{Filename: s.filename, Offset: s.off, Line: s.line, Column: s.col}
}

// advance moves over n bytes that hold no newline, counting runes.
func (s *scanner) advance(n int) {
	for _, c := range s.src[s.off : s.off+n] {
		if c < utf8.RuneSelf || utf8.RuneStart(c) {
			s.col++
		}
	}
	s.off += n
}

func (s *scanner) errAt(p lexer.Position, msg string) error {
	return &Error{Pos: posOf(p), Msg: msg}
}

// skip moves over white space and comments.
func (s *scanner) skip() error {
	src := s.src
	for s.off < len(src) {
		c := src[s.off]
		switch {
		case c == '\n':
			s.off++
			s.line++
			s.col = 1
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			s.off++
			s.col++
			continue
		case c == '/' && s.off+1 < len(src) && src[s.off+1] == '/':
			start := s.pos()
			n := 0
			for s.off+n < len(src) && src[s.off+n] != '\n' {
				n++
			}
			text := strings.TrimRight(string(src[s.off:s.off+n]), "\r")
			s.advance(n)
			s.comments = append(s.comments, &Comment{Span: Span{posOf(start), posOf(s.pos())}, Text: text})
			continue
		case c == '/' && s.off+1 < len(src) && src[s.off+1] == '*':
			start := s.pos()
			s.advance(2)
			closed := false
			for s.off < len(src) {
				if src[s.off] == '*' && s.off+1 < len(src) && src[s.off+1] == '/' {
					s.advance(2)
					closed = true
					break
				}
				if src[s.off] == '\n' {
					s.off++
					s.line++
					s.col = 1
					continue
				}
				s.advance(1)
			}
			if !closed {
				return s.errAt(start, "comment not terminated")
			}
			text := strings.ReplaceAll(string(src[start.Offset:s.off]), "\r\n", "\n")
			s.comments = append(s.comments, &Comment{Span: Span{posOf(start), posOf(s.pos())}, Text: text})
			continue
		}
		return nil
	}
	return nil
}

// Next returns the next token, or a positioned *Error.
func (s *scanner) Next() (lexer.Token, error) {
	if err := s.skip(); err != nil {
		return lexer.Token{}, err
	}
	src := s.src
	start := s.pos()
	if s.off >= len(src) {
		s.count++
		return lexer.EOFToken(start), nil
	}
	off := s.off
	c := src[off]
	var typ lexer.TokenType
	var value string
	n := 0
	switch {
	case isLetter(c):
		for off+n < len(src) && (isLetter(src[off+n]) || isDigit(src[off+n])) {
			n++
		}
		word := src[off : off+n]
		if kw, ok := keywordValues[string(word)]; ok {
			typ, value = tokKeyword, kw
		} else if v, ok := s.idents[string(word)]; ok {
			typ, value = tokIdent, v
		} else {
			typ, value = tokIdent, string(word)
			s.idents[value] = value
		}
	case isDigit(c):
		for off+n < len(src) && isDigit(src[off+n]) {
			n++
		}
		if off+n < len(src) && isLetter(src[off+n]) {
			return lexer.Token{}, s.errAt(start, "malformed number "+quote(string(src[off:off+n+1])))
		}
		typ, value = tokInt, string(src[off:off+n])
	case c == '"':
		n = 1
		for off+n < len(src) && src[off+n] != '"' && src[off+n] != '\n' {
			n++
		}
		if off+n >= len(src) || src[off+n] != '"' {
			return lexer.Token{}, s.errAt(start, "string not terminated")
		}
		n++
		typ, value = tokString, string(src[off:off+n])
	case c == '#':
		n = 1
		for off+n < len(src) && isLetter(src[off+n]) {
			n++
		}
		word := string(src[off : off+n])
		if !directives[word] {
			return lexer.Token{}, s.errAt(start, "unknown directive "+quote(word))
		}
		typ, value = tokDirective, word
	case c == '$':
		return lexer.Token{}, s.errAt(start, "C# object fields ($field) are not supported")
	default:
		for _, p := range punctsByByte[c] {
			if off+len(p) <= len(src) && string(src[off:off+len(p)]) == p {
				n, value = len(p), p
				break
			}
		}
		if n == 0 {
			r, _ := utf8.DecodeRune(src[off:])
			return lexer.Token{}, s.errAt(start, "unexpected character "+quoteRune(r))
		}
		typ = tokPunct
	}
	s.advance(n)
	s.count++
	return lexer.Token{Type: typ, Value: value, Pos: start}, nil
}

// keywordValues maps each keyword to itself, so that tokens share the
// string instead of allocating one.
var keywordValues = func() map[string]string {
	m := make(map[string]string, len(keywords))
	for k := range keywords {
		m[k] = k
	}
	return m
}()

func isLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

func posOf(p lexer.Position) Pos {
	return Pos{File: p.Filename, Offset: p.Offset, Line: p.Line, Col: p.Column}
}

// lexDef is the participle lexer definition (used to build the grammar; the
// parser is fed pre-scanned tokens).
type lexDef struct{ symbols map[string]lexer.TokenType }

func (d lexDef) Symbols() map[string]lexer.TokenType { return d.symbols }

func (lexDef) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return newScanner(filename, src), nil
}
