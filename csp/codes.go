package csp

import (
	"sync"
	"sync/atomic"
)

// Component codes. A state's bytes hold, for each component, not the
// global id of its term (the program's terms are numbered across every
// process and component: 60 to 87 at the philosophers' N = 14) but its
// code: the term's index among the terms that this component of this
// process has held, numbered on first encounter. A component holds a
// handful of terms, so its codes are small (0 to 2 for a philosopher),
// which is what lets the side set pack its records (store_side.go), and a
// model of more than 127 terms no longer gets two-byte varints as soon as
// some component reaches a term numbered 128 or more.
//
// The decoded form of a state (comps) keeps global term ids: only the
// bytes change. A code, once given, never changes, so the bytes of a
// state are a function of the state for as long as the process lives.
// Codes are given in the order the workers meet the terms, which varies
// from run to run with several workers (as the global term ids did);
// nothing compares or orders the codes of two components, and the
// representatives of the symmetry reduction compare views of global
// terms (symmetry.go), so ids, counts, verdicts and counterexamples do not
// depend on that order.
//
// Reads take no lock: the tables grow by copy and are published with
// atomic stores (a reader that sees an older table finds no code and
// takes the lock). A process and the systems that share its bytes (its
// compacted twin, the unreduced twin of a symmetry-reduced one) share
// one codes.
type codes struct {
	mu sync.Mutex
	n  int // components
	// own: term -> (comp+1)<<32 | code for a term met in one component
	// so far; sharedMark<<32 | k for a term met in several, whose codes
	// are shared[k][comp]+1 (0: none); 0: not met.
	own    atomic.Pointer[[]atomic.Uint64]
	shared atomic.Pointer[[]*[]atomic.Uint32]
	// dec: comp -> code -> term. A slice's elements below its length are
	// never written again; appends past it go into the same array when
	// it has room, which no reader of the shorter slice reads.
	dec []atomic.Pointer[[]uint32]
	// ident: codes are the global term ids (codesOff, the tests'
	// reference encoding).
	ident bool
	// id names this codes in the templates' code caches (Proc.fillCode);
	// 0: not cached.
	id uint32
}

const sharedMark = 1<<32 - 1

// codesOff makes new processes encode components by their global term
// ids, as before component codes: the tests compare the two.
var codesOff bool

// codesIDs numbers the codes for the edge caches.
var codesIDs atomic.Uint64

// An edge code cache (tmplSet.codes, one per template) remembers the code
// of the template's target in the first component, of the first codes,
// that asked for it: id<<32 | comp<<8 | code, 0 when empty. A code never
// changes once given, so the cached byte is right for as long as the key
// matches; a term shared by several components (or processes) keeps the
// first one's code, and the others look theirs up (Proc.fillCode).
const cacheComps = 1 << 24

// noCache is the key of a process that does not use the caches: no entry
// has it (no codes gets the id 1<<32-1), and with a component's index or'd
// in it is never 0, an empty entry.
const noCache = ^uint64(0) &^ 0xff

func newCodes(n int) *codes {
	c := &codes{n: n, dec: make([]atomic.Pointer[[]uint32], n), ident: codesOff}
	if id := codesIDs.Add(1); id < 1<<32-1 && !c.ident {
		c.id = uint32(id)
	}
	own := make([]atomic.Uint64, 0)
	c.own.Store(&own)
	var sh []*[]atomic.Uint32
	c.shared.Store(&sh)
	for i := range c.dec {
		d := make([]uint32, 0, 4)
		c.dec[i].Store(&d)
	}
	return c
}

// code returns the code of term t in component i, giving it the next
// code of i if it has none.
func (c *codes) code(i int, t uint32) uint32 {
	// The common case, inlined: a term met in this component only.
	if o := *c.own.Load(); int(t) < len(o) {
		if v := o[t].Load(); v>>32 == uint64(i)+1 {
			return uint32(v)
		}
	}
	return c.codeSlow(i, t)
}

// codeSlow is code for a term shared by components or not met yet here
// (and for ident codes).
func (c *codes) codeSlow(i int, t uint32) uint32 {
	if o := *c.own.Load(); int(t) < len(o) {
		if v := o[t].Load(); v>>32 == sharedMark {
			if u := (*(*c.shared.Load())[uint32(v)])[i].Load(); u != 0 {
				return u - 1
			}
		}
	}
	if c.ident {
		return t
	}
	return c.assign(i, t)
}

// term returns the term of code k in component i (k was given by code).
func (c *codes) term(i int, k uint32) uint32 {
	if c.ident {
		return k
	}
	return (*c.dec[i].Load())[k]
}

// terms returns the table code -> term of component i (nil: codes are
// term ids), for a loop over many codes.
func (c *codes) terms(i int) []uint32 {
	if c.ident {
		return nil
	}
	return *c.dec[i].Load()
}

// assign is code's slow path.
func (c *codes) assign(i int, t uint32) uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := *c.own.Load()
	if int(t) >= len(o) {
		n := max(2*len(o), int(t)+1, 64)
		g := make([]atomic.Uint64, n)
		for k := range o {
			g[k].Store(o[k].Load())
		}
		c.own.Store(&g)
		o = g
	}
	v := o[t].Load()
	switch {
	case v == 0:
	case v>>32 == uint64(i)+1:
		return uint32(v)
	case v>>32 == sharedMark:
		if u := (*(*c.shared.Load())[uint32(v)])[i].Load(); u != 0 {
			return u - 1
		}
	}
	k := c.push(i, t)
	switch {
	case v == 0:
		o[t].Store(uint64(i+1)<<32 | uint64(k))
	case v>>32 == sharedMark:
		(*(*c.shared.Load())[uint32(v)])[i].Store(k + 1)
	default:
		// Met in a second component: from now on its codes are in a
		// shared row.
		row := make([]atomic.Uint32, c.n)
		row[v>>32-1].Store(uint32(v) + 1)
		row[i].Store(k + 1)
		sh := *c.shared.Load()
		if len(sh) >= sharedMark-1 {
			panic("lts: too many terms shared by components")
		}
		ns := append(sh, &row) // readers of sh read below its length only
		c.shared.Store(&ns)
		o[t].Store(sharedMark<<32 | uint64(len(ns)-1))
	}
	return k
}

// push appends t to the codes of component i and returns its code.
func (c *codes) push(i int, t uint32) uint32 {
	d := *c.dec[i].Load()
	if len(d) >= 1<<32-1 {
		panic("lts: too many terms in one component")
	}
	k := uint32(len(d))
	if len(d) == cap(d) {
		g := make([]uint32, len(d), 2*cap(d)+4)
		copy(g, d)
		d = g
	}
	d = append(d, t)
	c.dec[i].Store(&d)
	return k
}
