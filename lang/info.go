package lang

// This file is the checker's output: side tables about a Model. The lts
// compiler reads the AST through these tables and never re-resolves names.

// SymKind is what a name denotes.
type SymKind int

const (
	SymConst   SymKind = iota // #define N 3;  (Value holds it)
	SymEnum                   // enum member    (Value holds it)
	SymProp                   // #define goal x == 3;  a proposition over variables
	SymMacro                  // #define f(i) ...;  used through call(f, ..)
	SymVar                    // global variable (Slot = index in Info.Vars)
	SymChannel                // channel (Slot = index in Info.Channels)
	SymProc                   // process definition
	SymParam                  // process or macro parameter (Slot = position)
	SymLocal                  // local variable of an event block
	SymIndex                  // index variable of an indexed construct or event set
	SymInput                  // variable bound by a channel input c?x
)

// Type is the simple type of an expression.
type Type int

const (
	TypeUnknown Type = iota
	TypeInt
	TypeBool
	TypeArray
)

// Symbol is a declared name.
type Symbol struct {
	Kind  SymKind
	Name  string
	Decl  Node // the declaring node
	Type  Type
	Value int64 // SymConst, SymEnum
	Slot  int   // SymVar, SymChannel, SymParam: index as documented on SymKind
}

// VarInfo is a global variable with its dimensions and initial value
// evaluated.
type VarInfo struct {
	Decl   *VarDecl
	Dims   []int   // nil for a scalar
	Init   []int64 // flattened row-major initial values (len = product of Dims, or 1)
	Bool   bool    // declared with a boolean initialiser
	Ranged bool    // declared with a range
	Lo, Hi int64   // the range, if Ranged
}

// ChannelInfo is a channel (or one channel array) with its sizes evaluated.
type ChannelInfo struct {
	Decl *ChannelDecl
	Dims []int // nil for a single channel
	Size int   // 0 = synchronous
}

// Info holds what the checker computed. Maps are keyed by AST node pointers.
type Info struct {
	Defs      map[*Ident]*Symbol // declaring identifiers
	Uses      map[*Ident]*Symbol // every resolved use (event names are not symbols)
	Consts    map[Expr]int64     // expressions with a constant value (bools as 0/1)
	Types     map[Expr]Type
	Vars      []*VarInfo // global variables in declaration order (Symbol.Slot)
	Channels  []*ChannelInfo
	Procs     map[string]*ProcDecl
	Macros    map[string]*DefineDecl // SymMacro and SymProp definitions
	Alphabets map[string]*AlphabetDecl
	Asserts   []*AssertDecl
	// ParamLens gives the length of each array parameter of a process,
	// keyed by the parameter's declaring identifier (absent: a scalar).
	ParamLens map[*Ident]int
}

// Checked is a parsed file that passed the checker, with what the checker
// learnt of it.
type Checked struct {
	File *File
	Info *Info
}
