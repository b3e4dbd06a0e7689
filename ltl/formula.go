package ltl

import (
	"strconv"
	"strings"
)

// Op is the operator of a formula node.
type Op uint8

// The operators. Implies, Iff, Finally and Globally are kept by the parser
// (so that a formula prints as written) and rewritten away by the
// translation (NNF).
const (
	OpTrue Op = iota
	OpFalse
	OpAtom
	OpNot
	OpAnd
	OpOr
	OpImplies
	OpIff
	OpNext
	OpUntil
	OpRelease
	OpFinally
	OpGlobally
)

var opNames = [...]string{"true", "false", "atom", "!", "&&", "||", "->", "<->", "X", "U", "R", "<>", "[]"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "op?"
}

// Formula is a node of an LTL formula. Atoms are numbered: Atom indexes
// the Atoms slice of the Parsed formula.
type Formula struct {
	Op   Op
	L, R *Formula // operands (R only for binary operators)
	Atom int      // OpAtom: index into Parsed.Atoms
	Off  int      // byte offset of the node in the formula's text
}

// AtomRef is an atom as written: a dotted name such as eat.0, put.i.2 or
// a proposition name such as c0. Parts are the dot-separated components;
// Parts[0] is an identifier, the others identifiers or (possibly
// negative) integers.
type AtomRef struct {
	Name  string   // the text, "eat.0"
	Parts []string // "eat", "0"
	Off   int      // byte offset in the formula's text
}

// Parsed is a parsed formula with its atoms (each distinct name once, in
// order of first appearance).
type Parsed struct {
	Root   *Formula
	Atoms  []AtomRef
	Source string // the text parsed
}

// String prints f fully parenthesised, with atoms named by names.
func (f *Formula) String(names []string) string {
	var sb strings.Builder
	f.write(&sb, names)
	return sb.String()
}

func (f *Formula) write(sb *strings.Builder, names []string) {
	switch f.Op {
	case OpTrue, OpFalse:
		sb.WriteString(f.Op.String())
	case OpAtom:
		if f.Atom < len(names) {
			sb.WriteString(names[f.Atom])
		} else {
			sb.WriteString("p")
			sb.WriteString(strconv.Itoa(f.Atom))
		}
	case OpNot, OpNext, OpFinally, OpGlobally:
		sb.WriteString(f.Op.String())
		if f.Op == OpNext {
			sb.WriteByte(' ')
		}
		f.L.write(sb, names)
	default:
		sb.WriteByte('(')
		f.L.write(sb, names)
		sb.WriteByte(' ')
		sb.WriteString(f.Op.String())
		sb.WriteByte(' ')
		f.R.write(sb, names)
		sb.WriteByte(')')
	}
}

// Names returns the atoms' names of p.
func (p *Parsed) Names() []string {
	out := make([]string, len(p.Atoms))
	for i, a := range p.Atoms {
		out[i] = a.Name
	}
	return out
}

// String prints the formula.
func (p *Parsed) String() string { return p.Root.String(p.Names()) }
