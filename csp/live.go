package csp

import (
	"fmt"
	"slices"

	"github.com/quasar-verify/quasar/lang"
)

// A system's state stores only the variable slots that some transition of
// the system can write. Every other slot keeps its initial value in every
// reachable state, so storing it would only widen the state: an
// implementation whose model also declares its specification's variables
// (the usual layout of a model with `Impl() refines Spec()`) would carry the
// specification's queue in every state, and the reverse. Decoding fills
// the unstored slots with their initial values, so guards, labels, blocks,
// Describe and reachability conditions see the full vector as before.
//
// The written slots are found statically: the global variables that are the
// target of an assignment or increment in an event block of any node
// reachable from the system's root (through references to definitions),
// and the buffers of the buffered channels that such a node sends on or
// receives from, and the globals that a macro with a statement block assigns
// (it may be called from any event block). Other expressions have no side
// effects, so there is no other way to write a variable. A write outside these slots would be
// a bug of this analysis: the successor functions check every write they
// log and report it as an internal error instead of dropping it.

// writtenSlots returns the sorted variable slots that a process rooted at
// root can write, or nil if that is every slot (then states store the
// whole vector).
func (p *Program) writtenSlots(root *pnode) []int {
	written := make([]bool, p.nslots)
	// A block macro may assign globals wherever an event block calls it:
	// its writes count for every system (a few slots, in models that
	// have such macros at all).
	for _, def := range p.info.Macros {
		p.blockWrites(def.Block, written)
	}
	seenDef := map[*procDef]bool{}
	var node func(n *pnode)
	node = func(n *pnode) {
		if n == nil {
			return
		}
		switch n.kind {
		case pPrefix:
			p.blockWrites(n.srcBlock, written)
		case pChanOut, pChanIn:
			if cd := n.ch; cd != nil && cd.size > 0 {
				k := cd.instSlots()
				for _, d := range cd.dims {
					k *= d
				}
				for i := cd.base; i < cd.base+k; i++ {
					written[i] = true
				}
			}
			switch q := n.src.(type) {
			case *lang.ChanOutProc:
				p.blockWrites(q.Block, written)
			case *lang.ChanInProc:
				p.blockWrites(q.Block, written)
			}
		case pRef:
			if d := n.ref; d != nil && !seenDef[d] {
				seenDef[d] = true
				node(d.body)
			}
		}
		for _, k := range n.kids {
			node(k)
		}
	}
	node(root)
	var out []int
	for i, w := range written {
		if w {
			out = append(out, i)
		}
	}
	if len(out) == p.nslots {
		return nil
	}
	return out
}

// blockWrites marks the global variable slots that block b assigns.
func (p *Program) blockWrites(b *lang.Block, written []bool) {
	if b == nil {
		return
	}
	var stmt func(s lang.Stmt)
	target := func(lhs lang.Expr) {
		for {
			ie, ok := lhs.(*lang.IndexExpr)
			if !ok {
				break
			}
			lhs = ie.X
		}
		id, ok := lhs.(*lang.Ident)
		if !ok {
			return // not an assignable expression: compilation rejects it
		}
		sym := p.symOf(id)
		if sym == nil || sym.Kind != lang.SymVar {
			return // a block local
		}
		n := 1
		for _, d := range p.info.Vars[sym.Slot].Dims {
			n *= d
		}
		base := p.varBase[sym.Slot]
		for i := base; i < base+n; i++ {
			written[i] = true
		}
	}
	stmt = func(s lang.Stmt) {
		switch s := s.(type) {
		case *lang.Block:
			for _, t := range s.Stmts {
				stmt(t)
			}
		case *lang.AssignStmt:
			target(s.LHS)
		case *lang.IncDecStmt:
			target(s.LHS)
		case *lang.IfStmt:
			stmt(s.Then)
			if s.Else != nil {
				stmt(s.Else)
			}
		case *lang.WhileStmt:
			stmt(s.Body)
		case *lang.LocalVarStmt, *lang.ExprStmt:
			// Locals live in the block; expressions have no effects.
		default:
			// A statement this analysis does not know: it may write
			// anything.
			for i := range written {
				written[i] = true
			}
		}
	}
	stmt(b)
}

// setLive records which slots the states of s store (nil: all of them).
func (s *Proc) setLive(live []int) {
	if live == nil || liveOff {
		s.nvars = s.p.nslots
		return
	}
	s.live = slices.Clip(live)
	s.nvars = len(live)
	s.pos = make([]int32, s.p.nslots)
	for i := range s.pos {
		s.pos[i] = -1
	}
	for k, slot := range live {
		s.pos[slot] = int32(k)
	}
}

// liveOff makes every state store every slot: the tests compare the two.
var liveOff bool

// unstoredWrite is the error of a write to a slot that the states of s do
// not store (a bug of writtenSlots).
func (s *Proc) unstoredWrite(slot int) error {
	return fmt.Errorf("lts: internal error: a transition of %s wrote variable slot %d, which its states do not store", s.name, slot)
}

// reachesAtomic reports whether an atomic block is reachable from root:
// its steps have priority over every other component's, so no step of a
// component is independent of the others (Proc.SuccessorsMoves).
func (p *Program) reachesAtomic(root *pnode) bool {
	seen := map[*procDef]bool{}
	var node func(n *pnode) bool
	node = func(n *pnode) bool {
		if n == nil {
			return false
		}
		if n.kind == pAtomic {
			return true
		}
		if d := n.ref; n.kind == pRef && d != nil && !seen[d] {
			seen[d] = true
			if node(d.body) {
				return true
			}
		}
		for _, k := range n.kids {
			if node(k) {
				return true
			}
		}
		return false
	}
	return node(root)
}
