package examples

import (
	"runtime"
	"sync/atomic"
)

type node struct {
	v    int64
	next *node
}

// TreiberStack is Treiber's lock-free stack. It is safe for concurrent use
// and linearizable: a push or pop takes effect at its successful CAS on the
// top pointer, a pop of an empty stack at its load of a nil top. Nodes are
// never reused, so the CAS cannot suffer ABA.
type TreiberStack struct {
	top   atomic.Pointer[node]
	racy  bool
	quiet bool
}

// Quiet turns off the yields inside the race windows (see the package
// doc); call it before the stack is shared. It returns s.
func (s *TreiberStack) Quiet() *TreiberStack { s.quiet = true; return s }

func (s *TreiberStack) yield() {
	if !s.quiet {
		runtime.Gosched()
	}
}

// NewTreiberStack returns an empty correct stack.
func NewTreiberStack() *TreiberStack { return &TreiberStack{} }

// NewRacyTreiberStack returns an empty stack whose Pop replaces the
// compare-and-swap by a load and a store: two concurrent pops may return the
// same element, and a push between the load and the store is lost.
func NewRacyTreiberStack() *TreiberStack { return &TreiberStack{racy: true} }

// Push adds v on top.
func (s *TreiberStack) Push(v int64) {
	n := &node{v: v}
	for {
		t := s.top.Load()
		n.next = t
		s.yield() // race window, as in Pop
		if s.top.CompareAndSwap(t, n) {
			return
		}
	}
}

// Pop removes and returns the top element, or ok == false when empty.
func (s *TreiberStack) Pop() (v int64, ok bool) {
	for {
		t := s.top.Load()
		if t == nil {
			return 0, false
		}
		next := t.next
		s.yield() // race window: another pop or push may intervene
		if s.racy {
			s.top.Store(next) // the bug: not a CAS
			return t.v, true
		}
		if s.top.CompareAndSwap(t, next) {
			return t.v, true
		}
	}
}
