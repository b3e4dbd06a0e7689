package zoo

import "github.com/quasar-verify/quasar/sched"

type node struct {
	v    int64
	next *node // written before the node is published, then immutable
}

// Treiber is Treiber's lock-free stack (push/pop; pop of empty gives nil).
// With Racy, Pop replaces its compare-and-swap by a store: two pops can
// return the same element.
type Treiber struct {
	top  sched.Pointer[node]
	Racy bool
}

// Push adds v on top.
func (s *Treiber) Push(v int64) {
	n := &node{v: v}
	for {
		t := s.top.Load()
		n.next = t
		if s.top.CompareAndSwap(t, n) {
			return
		}
	}
}

// Pop removes the top element; ok is false when the stack is empty.
func (s *Treiber) Pop() (v int64, ok bool) {
	for {
		t := s.top.Load()
		if t == nil {
			return 0, false
		}
		if s.Racy {
			s.top.Store(t.next) // the bug: not a CAS
			return t.v, true
		}
		if s.top.CompareAndSwap(t, t.next) {
			return t.v, true
		}
	}
}

// Do runs push(v) or pop().
func (s *Treiber) Do(f string, arg any) any {
	if f == "push" {
		s.Push(toInt(arg))
		return nil
	}
	if v, ok := s.Pop(); ok {
		return v
	}
	return nil
}
