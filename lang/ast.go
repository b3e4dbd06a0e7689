package lang

// This file is the AST: the contract between the parser, the checker, the
// printer and the lts compiler. The participle parse tree is lowered into
// these types; nothing outside the parser sees participle.
//
// Every node knows its span. Sums are sealed interfaces (Decl, Proc, Expr,
// Stmt). The checker does not mutate the AST: what it learns (resolved
// names, folded constants, types) goes to side tables in Info.

import "fmt"

// Pos is a position in a source file: 1-based line and column (columns in
// runes), and the byte offset.
type Pos struct {
	File   string
	Offset int
	Line   int
	Col    int
}

func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether p is a real position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Span is the extent of a node: Start is its first character, End just past
// its last.
type Span struct {
	Start, EndPos Pos
}

func (s Span) Pos() Pos { return s.Start }
func (s Span) End() Pos { return s.EndPos }

// Node is any AST node.
type Node interface {
	Pos() Pos
	End() Pos
}

// File is a parsed file with its includes resolved: Decls holds the
// declarations of every file in source order (an include's declarations
// replace the include, each keeping its own file in its positions).
type File struct {
	Span
	Path     string
	Decls    []Decl
	Comments []*Comment // added: comments of the main file in order, kept for Format
}

// Comment is a `// ...` or `/* ... */` comment (added for the printer).
type Comment struct {
	Span
	Text string
}

// Ident is a name, in declarations and in uses.
type Ident struct {
	Span
	Name string
}

// ---------------------------------------------------------------------------
// Declarations

// Decl is a top-level declaration.
type Decl interface {
	Node
	declNode()
}

// DefineDecl is `#define N 3;`, `#define goal x == 3;` (a proposition: an
// expression over variables) or a macro `#define f(i) i + 1;` used as
// `call(f, e)`. The checker decides which (Info.Symbols).
type DefineDecl struct {
	Span
	Name   *Ident
	Params []*Ident // macro parameters; nil if none
	Value  Expr     // nil when Block is set
	Block  *Block   // added: PAT's statement-block body `#define f(i) { ... };`
}

// EnumDecl is `enum {a, b, c};`: constants 0, 1, 2 in order.
type EnumDecl struct {
	Span
	Names []*Ident
}

// VarDecl is `var x = 0;`, `var a[N];`, `var m[2][3];`, `var b = [1, 2, 3];`,
// `var x : {0..5} = 0;`, `hvar h = 0;` (a hidden variable: not part of the
// state compared by refinement? no: PAT's hvar is excluded from state
// equality for some checks; the lts compiler documents its treatment).
type VarDecl struct {
	Span
	Hidden bool // hvar
	Name   *Ident
	Dims   []Expr // array dimensions, outermost first; nil for a scalar
	Range  *Range // declared range, or nil
	Init   Expr   // scalar initialiser or *ArrayLit; nil = zero(s)
}

// Range is `{lo..hi}` in declarations, index sets and channel inputs.
// A bound left out (`var x : {0..};`, `||| {..} @ P`) is nil.
type Range struct {
	Span
	Lo, Hi Expr
}

// ChannelDecl is `channel c 0;` (synchronous) or `channel c 3;` (buffered),
// and channel arrays `channel c[N] 1;`.
type ChannelDecl struct {
	Span
	Name *Ident
	Dims []Expr
	Size Expr
}

// AlphabetDecl is `#alphabet P {a, b.1, i:{0..N}@e.i};`.
type AlphabetDecl struct {
	Span
	Proc   *Ident
	Events *EventSet
}

// IncludeDecl is `#include "file.csp";`. The parser resolves it (the
// included file's declarations follow it in File.Decls, marked by their
// positions); the node is kept so the printer can reproduce the file.
type IncludeDecl struct {
	Span
	Path string
}

// ProcDecl is a process definition `P(i, j) = body;`.
type ProcDecl struct {
	Span
	Name   *Ident
	Params []*Ident
	Body   Proc
}

// AssertDecl is `#assert Left <kind> [Right|Goal|LTL];`.
type AssertDecl struct {
	Span
	Left  Proc
	Kind  AssertKind
	Right Proc // for the refines kinds and linearizes

	Goal    *Ident // reaches: the proposition's name
	Opt     OptKind
	OptExpr Expr // reaches ... with min(e) / max(e)

	Quasi *QuasiSpec // for KindQuasi, and KindLinearizes when relaxed
	// Map names the invocations and responses of a linearizes assertion
	// (`map {push_call.t.v -> enq_inv.t.v, ...}`); nil: the OP_inv/OP_res
	// convention.
	Map []*EventMapping
	LTL string // for KindLTL: the formula's source text, parsed later
	// LTLPos is the position of the formula's first character (KindLTL).
	LTLPos Pos
}

// EventMapping is `From -> To` in a linearizes map: the implementation's
// events matching From (its data fresh names, bound, or constants) are the
// invocation or response To (OP_inv.T.ARGS or OP_res.T.RESULTS, its data
// From's names or constants).
type EventMapping struct {
	Span
	From, To *EventExpr
}

// AssertKind is the kind of an assertion.
type AssertKind int

const (
	KindDeadlockFree AssertKind = iota
	KindDivergenceFree
	KindNonTerminating
	KindDeterministic
	KindReaches
	KindRefines    // refines (traces)
	KindRefinesF   // refines<F> (stable failures)
	KindRefinesFD  // refines<FD> (failures-divergences)
	KindQuasi      // refines<quasi ...>
	KindLTL        // |= formula
	KindLinearizes // linearizes[<quasi ...>] (invocation/response models)
)

var kindNames = [...]string{"deadlockfree", "divergencefree", "nonterminating", "deterministic",
	"reaches", "refines", "refines<F>", "refines<FD>", "refines<quasi>", "|=", "linearizes"}

func (k AssertKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// OptKind is the optimisation of a reaches assertion.
type OptKind int

const (
	OptNone OptKind = iota
	OptMin
	OptMax
)

// QuasiSpec is the text inside `refines<quasi ...>` (docs/verdicts.md §2):
//
//	quasi 2                          Factor=2
//	quasi 2 on {deq}                 Factor=2, On=[deq]
//	quasi 2 on {deq} barrier {deq.0} ... Barriers=[deq.0]
//	quasi {deq: 2, pop: 1}           Classes
//	quasi 2 window                   Window=true
type QuasiSpec struct {
	Span
	Factor   Expr          // nil when Classes are given
	On       []*EventExpr  // patterns of the single relaxed class
	Classes  []*QuasiClass // `{deq: 2, pop: 1}`
	Barriers []*EventExpr
	Window   bool
}

// QuasiClass is one `pattern: bound` entry; `{enq, deq}: 2` is allowed for a
// class of several patterns.
type QuasiClass struct {
	Span
	Patterns []*EventExpr
	Bound    Expr
}

func (*DefineDecl) declNode()   {}
func (*EnumDecl) declNode()     {}
func (*VarDecl) declNode()      {}
func (*ChannelDecl) declNode()  {}
func (*AlphabetDecl) declNode() {}
func (*IncludeDecl) declNode()  {}
func (*ProcDecl) declNode()     {}
func (*AssertDecl) declNode()   {}

// ---------------------------------------------------------------------------
// Events

// EventExpr is an event name with dotted data: `deq.i.(x+1)`. The name
// `tau` is the invisible event. In an event set or pattern the data may be
// shorter than in the events it matches.
type EventExpr struct {
	Span
	Name *Ident
	Data []Expr
}

// EventSet is `{a, b.1, i:{0..N}@e.i}` in hiding and #alphabet.
type EventSet struct {
	Span
	Items []*EventSetItem
}

// EventSetItem is one element of an EventSet: an event, possibly indexed.
type EventSetItem struct {
	Span
	Index []*IndexVar // `i:{0..N}@`; nil if none
	Event *EventExpr
}

// IndexVar is `i:{lo..hi}` (or `i:{1, 3, 5}`) binding i in an indexed
// construct. In `||| {N} @ P()` (N copies) Var is nil and Set.Count holds N.
type IndexVar struct {
	Span
	Var *Ident
	Set *IndexSet
}

// IndexSet is `{lo..hi}`, `{e1, e2, ...}` or, for replication, `{N}`.
type IndexSet struct {
	Span
	Range *Range // {lo..hi}
	Elems []Expr // {e1, e2}; a single element with Var == nil is a count
}

// ---------------------------------------------------------------------------
// Processes

// Proc is a process expression.
type Proc interface {
	Node
	procNode()
}

// SkipProc is `Skip`: terminates successfully.
type SkipProc struct{ Span }

// StopProc is `Stop`: deadlock.
type StopProc struct{ Span }

// RefProc is a reference to a defined process: `P`, `P()`, `P(i+1, x)`.
type RefProc struct {
	Span
	Name *Ident
	Args []Expr
}

// PrefixProc is `e -> P`, `e.i.(x+1) -> P`, `tau -> P`, `e{stmts} -> P`,
// and the unlabelled block `{stmts} -> P` (Event == nil: an invisible
// step). An event with a block never synchronises.
type PrefixProc struct {
	Span
	Event *EventExpr // nil for an unlabelled block
	Block *Block     // nil if the event has no block
	Next  Proc
}

// MultiPrefixProc is `(a, b) -> P`. The semantics (documented in
// docs/language.md) are decided by the lts compiler.
type MultiPrefixProc struct {
	Span
	Events []*EventExpr
	Next   Proc
}

// ChanOutProc is `c!e1.e2 -> P`, `c[i]!e -> P`, optionally with a block.
type ChanOutProc struct {
	Span
	Chan   *Ident
	Index  []Expr // channel-array indices
	Values []Expr
	Block  *Block
	Next   Proc
}

// ChanInProc is `c?x -> P`, `c?x.y -> P`, `c?[x > 0]x -> P` (a guard over
// the received values), `c?0 -> P` (a constant must match). The checker
// records an *Ident that binds a name in Info.Defs (SymInput, in scope in
// Guard, Block and Next); one that names a constant or enum member is a
// value to match, recorded in Info.Uses and Info.Consts.
type ChanInProc struct {
	Span
	Chan  *Ident
	Index []Expr
	Guard Expr   // nil if none
	Vars  []Expr // each an *Ident (binds a name) or a constant expression to match
	Block *Block
	Next  Proc
}

// GuardProc is `[cond] P`.
type GuardProc struct {
	Span
	Cond Expr
	Body Proc
}

// IfProc is `if (c) {P} else {Q}`, `ifa`, `ifb`; an `else if` chain nests
// an IfProc in Else. Else may be nil.
type IfProc struct {
	Span
	Kind IfKind
	Cond Expr
	Then Proc
	Else Proc
}

// IfKind distinguishes PAT's three conditionals.
type IfKind int

const (
	If  IfKind = iota // condition evaluated as a tau step
	IfA               // condition evaluated atomically with the first step of the branch
	IfB               // blocking: waits until the condition holds (no else)
)

// CaseProc is `case { c1 : P1  c2 : P2  default : Q }`.
type CaseProc struct {
	Span
	Arms    []*CaseArm
	Default Proc // nil if none
}

// CaseArm is one `cond : P` of a CaseProc.
type CaseArm struct {
	Span
	Cond Expr
	Body Proc
}

// SeqProc is `P; Q`.
type SeqProc struct {
	Span
	Left, Right Proc
}

// ChoiceOp is a choice operator.
type ChoiceOp int

const (
	GeneralChoice  ChoiceOp = iota // []
	ExternalChoice                 // [*]
	InternalChoice                 // <>
)

// ChoiceProc is `P [] Q`, `P [*] Q`, `P <> Q` (n-ary: one node for a chain
// of the same operator).
type ChoiceProc struct {
	Span
	Op    ChoiceOp
	Procs []Proc
}

// ParOp is a parallel operator.
type ParOp int

const (
	Parallel   ParOp = iota // ||
	Interleave              // |||
)

// ParProc is `P || Q` or `P ||| Q` (n-ary).
type ParProc struct {
	Span
	Op    ParOp
	Procs []Proc
}

// IndexedProc is an indexed choice or parallel composition:
// `[] i:{0..N-1} @ P(i)`, `||| i:{0..N-1} @ P(i)`, `|||{N} @ P()`.
// Exactly one of the two operators is meaningful: IsPar selects ParOp.
type IndexedProc struct {
	Span
	IsPar    bool
	ChoiceOp ChoiceOp
	ParOp    ParOp
	Index    []*IndexVar
	Body     Proc
}

// HideProc is `P \ {a, b.1, i:{0..N}@e.i}`.
type HideProc struct {
	Span
	Body   Proc
	Events *EventSet
}

// AtomicProc is `atomic{ P }`.
type AtomicProc struct {
	Span
	Body Proc
}

// InterruptProc is `P interrupt Q`.
type InterruptProc struct {
	Span
	Left, Right Proc
}

func (*SkipProc) procNode()        {}
func (*StopProc) procNode()        {}
func (*RefProc) procNode()         {}
func (*PrefixProc) procNode()      {}
func (*MultiPrefixProc) procNode() {}
func (*ChanOutProc) procNode()     {}
func (*ChanInProc) procNode()      {}
func (*GuardProc) procNode()       {}
func (*IfProc) procNode()          {}
func (*CaseProc) procNode()        {}
func (*SeqProc) procNode()         {}
func (*ChoiceProc) procNode()      {}
func (*ParProc) procNode()         {}
func (*IndexedProc) procNode()     {}
func (*HideProc) procNode()        {}
func (*AtomicProc) procNode()      {}
func (*InterruptProc) procNode()   {}

// ---------------------------------------------------------------------------
// Statements (inside event blocks)

// Stmt is a statement of an event block.
type Stmt interface {
	Node
	stmtNode()
}

// Block is `{ s1; s2; }`.
type Block struct {
	Span
	Stmts []Stmt
}

// AssignStmt is `x = e;`, `a[i] = e;`, `m[i][j] = e;` and the compound forms
// (`+=`, `-=`, ...) if the grammar accepts them. LHS is an *Ident or an
// *IndexExpr.
type AssignStmt struct {
	Span
	LHS Expr
	Op  string // "=", "+=", ...
	RHS Expr
}

// IncDecStmt is `x++;` or `x--;`.
type IncDecStmt struct {
	Span
	LHS Expr
	Inc bool
}

// LocalVarStmt is `var t = e;` or `var t[N];` inside a block.
type LocalVarStmt struct {
	Span
	Name *Ident
	Dims []Expr
	Init Expr
}

// IfStmt is `if (c) { ... } else { ... }`; Else is a *Block, an *IfStmt or nil.
type IfStmt struct {
	Span
	Cond Expr
	Then *Block
	Else Stmt
}

// WhileStmt is `while (c) { ... }`.
type WhileStmt struct {
	Span
	Cond Expr
	Body *Block
}

// ExprStmt is an expression used as a statement (e.g. `call(f, x);`).
type ExprStmt struct {
	Span
	X Expr
}

func (*Block) stmtNode()        {}
func (*AssignStmt) stmtNode()   {}
func (*IncDecStmt) stmtNode()   {}
func (*LocalVarStmt) stmtNode() {}
func (*IfStmt) stmtNode()       {}
func (*WhileStmt) stmtNode()    {}
func (*ExprStmt) stmtNode()     {}

// ---------------------------------------------------------------------------
// Expressions

// Expr is an expression.
type Expr interface {
	Node
	exprNode()
}

// IntLit is an integer literal.
type IntLit struct {
	Span
	Value int64
}

// BoolLit is `true` or `false`.
type BoolLit struct {
	Span
	Value bool
}

// IndexExpr is `a[i]`; multi-dimensional access nests: `m[i][j]` is
// IndexExpr{X: IndexExpr{X: m, Index: i}, Index: j}.
type IndexExpr struct {
	Span
	X     Expr
	Index Expr
}

// UnaryExpr is `!x` or `-x`.
type UnaryExpr struct {
	Span
	Op string
	X  Expr
}

// BinaryExpr is `x op y` with op one of
// `|| && == != < <= > >= + - * / % & | ^ xor`  (as the grammar accepts).
type BinaryExpr struct {
	Span
	Op   string
	X, Y Expr
}

// CondExpr is `c ? x : y`, if the grammar accepts it.
type CondExpr struct {
	Span
	Cond, X, Y Expr
}

// CallExpr is `call(f, a, b)`: f a macro defined by #define f(i, j) ...;
type CallExpr struct {
	Span
	Func *Ident
	Args []Expr
}

// IndexedBoolExpr is `&& i:{0..N-1} @ e` or `|| i:{0..N-1} @ e`.
type IndexedBoolExpr struct {
	Span
	Op    string // "&&" or "||"
	Index []*IndexVar
	Body  Expr
}

// ArrayLit is an array initialiser `[1, 2, 3]`, `[0(N)]` (N copies),
// `[1..5]`, or a mix.
type ArrayLit struct {
	Span
	Elems []*ArrayElem
}

// ArrayElem is one element of an ArrayLit: Value, `Value(Count)` or
// `Value..To`; nested ArrayLits for multi-dimensional initialisers.
type ArrayElem struct {
	Span
	Value Expr
	Count Expr // `v(n)`: n copies; nil if none
	To    Expr // `a..b`; nil if none
}

func (*Ident) exprNode()           {}
func (*IntLit) exprNode()          {}
func (*BoolLit) exprNode()         {}
func (*IndexExpr) exprNode()       {}
func (*UnaryExpr) exprNode()       {}
func (*BinaryExpr) exprNode()      {}
func (*CondExpr) exprNode()        {}
func (*CallExpr) exprNode()        {}
func (*IndexedBoolExpr) exprNode() {}
func (*ArrayLit) exprNode()        {}

// Compile-time checks that the sums are sealed as intended.
var (
	_ Decl = (*DefineDecl)(nil)
	_ Proc = (*InterruptProc)(nil)
	_ Stmt = (*ExprStmt)(nil)
	_ Expr = (*ArrayLit)(nil)
)
