package csp

import (
	"sync/atomic"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// Plain templates as bytes. A state whose values all take one byte (the
// "short" form: one byte per component, then the zigzag byte of each
// stored variable) makes its successors by copying its bytes and patching
// a few. A template whose guards each compare a variable with a constant
// or with another variable, and whose event block only stores constants
// in fixed variables ({fork[i] = 1} once i is known), needs no closure
// for that: expandPlain tests its guards on the decoded variables and
// writes its stores as bytes (fastEdge). Such a guard or block cannot
// fail, so no error is lost; anything else takes the closures.

// slotVal is a store of a constant in a variable slot.
type slotVal struct {
	slot int32
	val  int64
}

// fastTest is a guard vars[a] == w (eq) or vars[a] != w (!eq), where w is
// vars[b] if b >= 0, else c.
type fastTest struct {
	a, b int32
	c    int64
	eq   bool
}

// fastEdge is a plain template as tests and byte stores.
type fastEdge struct {
	tests []fastTest
	sets  []slotVal
	zs    []byte // the values of sets as zigzag bytes (each below 0x80)
}

// constPatch returns the stores of block b compiled in scope sc if every
// statement stores a constant in a global with a fixed slot and no
// declared range (whose check could fail), else nil.
func (p *Program) constPatch(b *lang.Block, sc *scope) []slotVal {
	if shapesOff || b == nil || len(b.Stmts) == 0 {
		return nil
	}
	var out []slotVal
	for _, st := range b.Stmts {
		as, ok := st.(*lang.AssignStmt)
		if !ok || as.Op != "=" {
			return nil
		}
		rhs, err := p.expr(as.RHS, sc)
		if err != nil || !rhs.konst {
			return nil
		}
		lv, err := p.access(as.LHS, sc)
		if err != nil || lv.local || lv.dyn || p.info.Vars[lv.slot].Ranged || lv.offset != nil && !lv.fixed {
			return nil
		}
		out = append(out, slotVal{int32(lv.base), rhs.val})
	}
	return out
}

// fastOff disables fast edges: the tests compare with the closures.
var fastOff bool

// fastOf returns e as a fastEdge, or nil if some guard or its block is
// not of those shapes.
func fastOf(e *edge) *fastEdge {
	if fastOff || shapesOff || plainOff || e.kind == labDyn || e.block.f != nil && e.patch == nil {
		return nil
	}
	// Check first, allocate after: most templates of a model are not of
	// these shapes, and a short check builds each term's templates once.
	for _, cd := range e.conds {
		k := cd.key
		if k == nil || (k.op != "==" && k.op != "!=") || !plainVar(k.x) || k.y.kind != shNone && !plainVar(k.y) {
			return nil
		}
	}
	for _, sv := range e.patch {
		if zigzag(sv.val) >= 0x80 {
			return nil
		}
	}
	f := &fastEdge{tests: make([]fastTest, len(e.conds)), sets: e.patch, zs: make([]byte, len(e.patch))}
	for i, cd := range e.conds {
		k := cd.key
		f.tests[i] = fastTest{a: int32(k.x.slot), b: -1, c: k.c, eq: k.op == "=="}
		if plainVar(k.y) {
			f.tests[i].b = int32(k.y.slot)
		}
	}
	for i, sv := range e.patch {
		f.zs[i] = byte(zigzag(sv.val))
	}
	return f
}

// fastEdges returns fastOf of each edge of es, or nil if none has one.
func fastEdges(es []edge) []*fastEdge {
	var out []*fastEdge
	for j := range es {
		if f := fastOf(&es[j]); f != nil {
			if out == nil {
				out = make([]*fastEdge, len(es))
			}
			out[j] = f
		}
	}
	return out
}

// zigzag is the encoding of v whose low byte the short form stores.
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// plainVar reports whether a shape is a variable read as it is.
func plainVar(k shapeKey) bool { return k.kind == shLin && k.a == 1 && k.b == 0 }

// fastEdge outcomes.
const (
	fastSkip = iota // the guards do not hold, or nothing is to be made
	fastDone        // the successor is appended
	fastSlow        // the closures must make it
)

// fastEdge is expandPlain's step for template e of component i with
// fastEdge f, in a short state raw (after a failed block, blocked: no more
// successors are made).
func (s *Proc) fastEdge(raw []byte, x *scratch, i int, e *edge, f *fastEdge, cc *atomic.Uint64, blocked bool) int {
	vars := x.vars
	for k := range f.tests {
		t := &f.tests[k]
		w := t.c
		if t.b >= 0 {
			w = vars[t.b]
		}
		if (vars[t.a] == w) != t.eq {
			return fastSkip
		}
	}
	if blocked || x.only != 0 && int32(i) != x.only-1 {
		return fastSkip
	}
	var code uint32
	if v := cc.Load(); v&^0xff == s.ckey|uint64(i)<<8 {
		code = uint32(v) & 0xff // the template's cached code (fillCode)
	} else {
		code = s.fillCode(cc, i, e.target)
	}
	if code >= 0x80 {
		return fastSlow
	}
	n0, nc := len(x.enc), len(x.comps)
	x.enc = append(x.enc, raw...)
	enc := x.enc[n0:]
	enc[i] = byte(code)
	for k, sv := range f.sets {
		at := int(sv.slot)
		if s.pos != nil {
			if at = int(s.pos[at]); at < 0 {
				x.enc = x.enc[:n0]
				return fastSlow
			}
		}
		enc[nc+at] = f.zs[k]
	}
	ev := e.ev
	for _, h := range s.hides {
		if s.p.has(h, ev) {
			ev = lts.Tau
			break
		}
	}
	who := int32(-2 - 2*i)
	if s.indep && localEdge(e) {
		who-- // a local step (SuccessorsMoves)
	}
	x.ends = append(x.ends, len(x.enc))
	x.evs = append(x.evs, ev)
	x.who = append(x.who, who)
	return fastDone
}
