package lang

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// This file is the participle grammar of declarations. Processes,
// statement blocks, event sets, array initialisers and expressions are
// participle custom nodes parsed by hand (procparse.go, exprparse.go) that
// build AST nodes directly; lower.go turns the rest of the parse tree into
// the AST.
//
// Type names are the user's words: participle puts them into "expected ..."
// messages, which parse.go rewrites further.
//
// `;` both composes processes and ends a definition: the process parser
// takes `;` as an operator only when what follows does not start a
// declaration (`Name(params) =`, `Name =`, a directive, a declaration
// keyword, or the end of the file): a negative lookahead. TestSeqLookahead
// pins this.

type pos = lexer.Position

type model struct {
	Pos    pos
	EndPos pos
	Decls  []*declaration `parser:"@@*"`
}

type declaration struct {
	Proc     *definition   `parser:"  @@"`
	Define   *defineDecl   `parser:"| @@"`
	Var      *varDecl      `parser:"| @@"`
	Assert   *assertion    `parser:"| @@"`
	Enum     *enumDecl     `parser:"| @@"`
	Channel  *channelDecl  `parser:"| @@"`
	Alphabet *alphabetDecl `parser:"| @@"`
	Include  *includeDecl  `parser:"| @@"`
}

type defineDecl struct {
	Pos    pos
	EndPos pos
	Name   *name       `parser:"'#define' @@"`
	Params []*name     `parser:"( '(' @@ ( ',' @@ )* ')' )?"`
	Block  *block      `parser:"( @@"`
	Value  *expression `parser:"| @@ ) ';'"`
}

type name struct {
	Pos    pos
	EndPos pos
	Name   string `parser:"@Ident"`
}

type enumDecl struct {
	Pos    pos
	EndPos pos
	Names  []*name `parser:"'enum' '{' @@ ( ',' @@ )* '}' ';'"`
}

type varDecl struct {
	Pos    pos
	EndPos pos
	Kind   string        `parser:"@( 'var' | 'hvar' )"`
	Name   *name         `parser:"@@"`
	Dims   []*expression `parser:"( '[' @@ ']' )*"`
	Range  *rangeSet     `parser:"( ':' @@ )?"`
	Array  *arrayLit     `parser:"( '=' ( @@"`
	Init   *expression   `parser:"| @@ ) )? ';'"`
}

type rangeSet struct {
	Pos    pos
	EndPos pos
	Lo     *expression `parser:"'{' @@? '..'"`
	Hi     *expression `parser:"@@? '}'"`
}

type channelDecl struct {
	Pos    pos
	EndPos pos
	Name   *name         `parser:"'channel' @@"`
	Dims   []*expression `parser:"( '[' @@ ']' )*"`
	Size   *expression   `parser:"@@ ';'"`
}

type alphabetDecl struct {
	Pos    pos
	EndPos pos
	Proc   *name     `parser:"'#alphabet' @@"`
	Events *eventSet `parser:"@@ ';'"`
}

type includeDecl struct {
	Pos    pos
	EndPos pos
	Path   string `parser:"'#include' @String ';'"`
}

type assertion struct {
	Pos     pos
	EndPos  pos
	Left    *procRef    `parser:"'#assert' @@"`
	Simple  string      `parser:"( @( 'deadlockfree' | 'divergencefree' | 'nonterminating' | 'deterministic' )"`
	Goal    *name       `parser:"| 'reaches' @@"`
	Opt     string      `parser:"  ( 'with' @( 'min' | 'max' )"`
	OptExpr *expression `parser:"    '(' @@ ')' )?"`
	Refines bool        `parser:"| @'refines'"`
	Model   string      `parser:"  ( '<' ( @( 'FD' | 'F' )"`
	Quasi   *quasiSpec  `parser:"        | @@ ) '>' )?"`
	Right   *procRef    `parser:"  @@"`
	Lin     bool        `parser:"| @'linearizes'"`
	LinQ    *quasiSpec  `parser:"  ( '<' @@ '>' )?"`
	LinR    *procRef    `parser:"  @@"`
	LinMap  []*mapEntry `parser:"  ( 'map' '{' @@ ( ',' @@ )* '}' )?"`
	LTL     *ltlText    `parser:"| '|=' @@ ) ';'"`
}

type ltlText struct {
	Pos    pos
	EndPos pos
	Toks   []string `parser:"@( ~';' )+"`
}

type procRef struct {
	Pos    pos
	EndPos pos
	Name   *name       `parser:"@@"`
	Args   []*argument `parser:"( '(' ( @@ ( ',' @@ )* )? ')' )?"`
}

type quasiSpec struct {
	Pos      pos
	EndPos   pos
	Factor   *unary        `parser:"'quasi' ( @@"`
	Classes  []*quasiClass `parser:"| '{' @@ ( ',' @@ )* '}' )"`
	On       []*eventRef   `parser:"( 'on' '{' @@ ( ',' @@ )* '}' )?"`
	Barriers []*eventRef   `parser:"( 'barrier' '{' @@ ( ',' @@ )* '}' )?"`
	Window   bool          `parser:"@'window'?"`
}

// mapEntry is one `impl_event.x.y -> OP_inv.x.y` of a linearizes map.
type mapEntry struct {
	Pos    pos
	EndPos pos
	From   *eventRef `parser:"@@ '->'"`
	To     *eventRef `parser:"@@"`
}

type quasiClass struct {
	Pos      pos
	EndPos   pos
	Patterns []*eventRef `parser:"( '{' @@ ( ',' @@ )* '}'"`
	Pattern  *eventRef   `parser:"| @@ ) ':'"`
	Bound    *expression `parser:"@@"`
}

type definition struct {
	Pos    pos
	EndPos pos
	Name   *name    `parser:"@@"`
	Params []*name  `parser:"( '(' ( @@ ( ',' @@ )* )? ')' )? '='"`
	Body   *process `parser:"@@ ';'"`
}

// eventRef is an event pattern in a quasi specification.
type eventRef struct {
	Pos    pos
	EndPos pos
	Name   string      `parser:"@( Ident | 'tau' )"`
	Data   []*dataExpr `parser:"( '.' @@ )*"`
}

// grammar is built once; building takes about a millisecond.
var grammar = participle.MustBuild[model](
	participle.Lexer(lexDef{symbols: tokenSymbols}),
	participle.UseLookahead(64),
)

// Grammar returns the grammar in EBNF (pinned by a golden file).
func Grammar() string { return grammar.String() }
