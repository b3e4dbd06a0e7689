package gang

import (
	"fmt"
	"testing"
)

// The park/wake protocol of waiter.wait and waiter.wake, with the gang's
// use of it (start, the workers' loop, the last worker's wake of the
// caller, Close), as a small model whose every interleaving of atomic
// steps is explored: an independent check of the protocol's design (not
// of the code: the model follows gang.go step by step by hand). A spin is
// any number of looks at the condition before parking.
//
// It checks that no execution stops with a party blocked for ever (a
// lost wake-up), that a wake never finds a token already in the channel
// (a send would block: a stale wake-up), and that each Run returns only
// after every worker ran its f exactly once for it.

const (
	mW = 3 // workers, 0 the caller
	mR = 3 // Runs before Close
)

// Thread program counters.
const (
	cStart = iota // caller: left = W-1
	cGen          // gen++
	cWake         // wake worker i (sub: the wake's step)
	cF            // f(0)
	cWait         // wait for left == 0 (sub: the wait's step)
	cStop         // Close: stop = true
	cCGen         // gen++
	cCWake        // wake worker i
	cJoin         // wait for the workers to exit
	cDone

	pWait = iota - cDone - 1 // worker: wait for gen != seen
	pSeen                    // seen = gen
	pStop                    // stop?
	pF                       // f(w)
	pLeft                    // left--
	pWake                    // wake the caller
	pExit
)

// wait's steps (thread.sub); 0: spin (look, or go park).
const (
	wSpin = iota
	wStore
	wLook
	wCAS
	wTake
	wRecv
	wLookAgain
)

type mthread struct{ pc, sub, i, seen int8 }

type mstate struct {
	gen, left int8
	stop      bool
	parked    [mW]int8
	ch        [mW]int8
	f         [mW]int8
	th        [mW]mthread
	runs      int8
}

type mutant int

const (
	none        mutant = iota
	noLookAgain        // park without looking again after the announcement
	noTake             // a failed CAS does not take the waker's token
	wakeNoCAS          // the waker sends without taking the announcement
)

type mresult struct {
	states int
	err    string
}

func (s *mstate) ready(t int) bool {
	if t == 0 {
		return s.left == 0
	}
	return s.gen != s.th[t].seen
}

// waitStep runs one step of thread t's wait; done: the wait returned.
// ok is false if the step is blocked.
func waitStep(s mstate, t int, m mutant, out func(mstate, bool)) {
	th := &s.th[t]
	switch th.sub {
	case wSpin:
		if s.ready(t) {
			th.sub = 0
			out(s, true)
		}
		s2 := s
		s2.th[t].sub = wStore
		out(s2, false)
	case wStore:
		s.parked[t] = 1
		th.sub = wLook
		if m == noLookAgain {
			th.sub = wRecv
		}
		out(s, false)
	case wLook:
		if s.ready(t) {
			th.sub = wCAS
		} else {
			th.sub = wRecv
		}
		out(s, false)
	case wCAS:
		if s.parked[t] == 1 {
			s.parked[t] = 0
			th.sub = 0
			out(s, true)
		} else if m == noTake {
			th.sub = 0
			out(s, true)
		} else {
			th.sub = wTake
			out(s, false)
		}
	case wTake, wRecv:
		if s.ch[t] == 0 {
			return // blocked
		}
		s.ch[t] = 0
		if th.sub == wTake {
			th.sub = 0
			out(s, true)
			return
		}
		th.sub = wLookAgain
		out(s, false)
	case wLookAgain:
		if s.ready(t) {
			th.sub = 0
			out(s, true)
		} else {
			th.sub = wStore
			out(s, false)
		}
	}
}

// wakeStep runs one step of thread t's wake of u (sub 0: look at parked,
// 1: CAS, 2: send); done: the wake returned.
func wakeStep(s mstate, t, u int, m mutant, out func(mstate, bool), fail func(string)) {
	th := &s.th[t]
	switch th.sub {
	case 0:
		if s.parked[u] != 1 {
			out(s, true)
			return
		}
		th.sub = 1
		if m == wakeNoCAS {
			th.sub = 2
		}
		out(s, false)
	case 1:
		if s.parked[u] != 1 {
			th.sub = 0
			out(s, true)
			return
		}
		s.parked[u] = 0
		th.sub = 2
		out(s, false)
	case 2:
		if s.ch[u] != 0 {
			fail(fmt.Sprintf("thread %d's wake of %d finds a token in the channel", t, u))
			return
		}
		s.ch[u] = 1
		th.sub = 0
		out(s, true)
	}
}

// step calls out with each successor of s by a step of thread t.
func step(s mstate, t int, m mutant, out func(mstate), fail func(string)) {
	th := &s.th[t]
	if t == 0 {
		switch th.pc {
		case cStart:
			if s.runs == mR {
				th.pc = cStop
			} else {
				s.left = mW - 1
				th.pc = cGen
			}
			out(s)
		case cGen, cCGen:
			s.gen++
			th.i = 1
			th.pc++
			out(s)
		case cWake, cCWake:
			wakeStep(s, 0, int(th.i), m, func(s mstate, done bool) {
				if done {
					s.th[0].i++
					if int(s.th[0].i) == mW {
						s.th[0].pc++
					}
				}
				out(s)
			}, fail)
		case cF:
			s.f[0]++
			th.pc = cWait
			out(s)
		case cWait:
			waitStep(s, 0, m, func(s mstate, done bool) {
				if done {
					s.runs++
					for w := range mW {
						if s.f[w] != s.runs {
							fail(fmt.Sprintf("Run %d returned with worker %d's f run %d times", s.runs, w, s.f[w]))
						}
					}
					s.th[0].pc = cStart
				}
				out(s)
			})
		case cStop:
			s.stop = true
			th.pc = cCGen
			out(s)
		case cJoin:
			for w := 1; w < mW; w++ {
				if s.th[w].pc != pExit {
					return
				}
			}
			th.pc = cDone
			out(s)
		}
		return
	}
	switch th.pc {
	case pWait:
		waitStep(s, t, m, func(s mstate, done bool) {
			if done {
				s.th[t].pc = pSeen
			}
			out(s)
		})
	case pSeen:
		th.seen = s.gen
		th.pc = pStop
		out(s)
	case pStop:
		if s.stop {
			th.pc = pExit
		} else {
			th.pc = pF
		}
		out(s)
	case pF:
		s.f[t]++
		th.pc = pLeft
		out(s)
	case pLeft:
		s.left--
		if s.left == 0 {
			th.pc = pWake
		} else {
			th.pc = pWait
		}
		out(s)
	case pWake:
		wakeStep(s, t, 0, m, func(s mstate, done bool) {
			if done {
				s.th[t].pc = pWait
			}
			out(s)
		}, fail)
	}
}

func explore(m mutant) mresult {
	var init mstate
	for w := 1; w < mW; w++ {
		init.th[w].pc = pWait
	}
	seen := map[mstate]bool{init: true}
	stack := []mstate{init}
	var res mresult
	fail := func(e string) {
		if res.err == "" {
			res.err = e
		}
	}
	for len(stack) > 0 && res.err == "" {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		moved := false
		for t := range mW {
			step(s, t, m, func(n mstate) {
				moved = true
				if !seen[n] {
					seen[n] = true
					stack = append(stack, n)
				}
			}, fail)
		}
		if !moved && s.th[0].pc != cDone {
			fail(fmt.Sprintf("stuck: %+v", s))
		}
	}
	res.states = len(seen)
	return res
}

// TestProtocolModel explores every interleaving of the model, and checks
// that the model catches hand-made faults of the protocol.
func TestProtocolModel(t *testing.T) {
	r := explore(none)
	if r.err != "" {
		t.Fatalf("the protocol fails: %s", r.err)
	}
	t.Logf("%d states, no lost or stale wake-up", r.states)
	for _, m := range []mutant{noLookAgain, noTake, wakeNoCAS} {
		if r := explore(m); r.err == "" {
			t.Errorf("mutant %d: not caught (%d states)", m, r.states)
		} else {
			t.Logf("mutant %d caught: %.200s", m, r.err)
		}
	}
}
