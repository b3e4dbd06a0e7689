package sched

import (
	"fmt"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/stress"
)

// chooser picks the thread that performs the next step. depth counts the
// steps so far, enabled is the set of runnable threads (bit t), cur the
// thread that performed the previous step (-1 at the start) and acc the
// step each parked thread will perform; edge tells which of an
// operation's call (edgeCall) and return (edgeReturn) the previous step's
// quantum (the step and the local code after it, up to the thread's next
// step) stamped. It returns
// -1 to prune the execution (sleep-set blocked) or -2 if the run diverged
// from what the chooser replays (the object is not deterministic).
type chooser interface {
	choose(depth int, enabled uint64, cur int, acc []access, edge uint8) int
}

const (
	edgeCall uint8 = 1 << iota
	edgeReturn
)

type outcomeKind uint8

const (
	oComplete outcomeKind = iota
	oDeadlock
	oPanic
	oLivelock
	oPruned
	oDiverged
)

// outcome is what one execution produced.
type outcome struct {
	kind     outcomeKind
	choices  []int
	enabled  []uint64 // the runnable set at each choice
	preempts int
	stepless bool // some operation had no marked step
	hist     *history.History
	stuck    []int // threads blocked forever (deadlock)
	msg      string
}

// isPreemption reports whether switching from cur to t costs a preemption:
// cur could have continued.
func isPreemption(cur, t int, enabled uint64) bool {
	return cur >= 0 && t != cur && enabled&(1<<cur) != 0
}

// defaultChoice is the non-preempting choice replays continue with: the
// previous thread if it is runnable, else the lowest runnable one.
func defaultChoice(cur int, enabled uint64) int {
	if cur >= 0 && enabled&(1<<cur) != 0 {
		return cur
	}
	return lowest(enabled)
}

func lowest(set uint64) int {
	for t := 0; t < 64; t++ {
		if set&(1<<t) != 0 {
			return t
		}
	}
	return -1
}

// execute runs test once on a fresh object under ch.
func execute(newObj func() stress.Object, test stress.Test, ch chooser, maxSteps int) *outcome {
	obj := newObj() // built outside the run: its setup is not scheduled
	r := &run{msgs: make(chan int), cur: -1}
	for range test {
		r.threads = append(r.threads, &thread{wake: make(chan struct{}, 1), op: -1})
	}
	runMu.Lock()
	defer runMu.Unlock()
	active.Store(r)
	defer active.Store(nil)
	for t, calls := range test {
		go r.body(t, obj, calls)
	}
	// Each goroutine runs up to its first step; local code commutes with
	// everything, so the order of these prologues does not matter.
	for t := range test {
		r.resume(t)
	}
	out := &outcome{}
	acc := make([]access, len(test))
	cur := -1
	var edge uint8
	for depth := 0; ; depth++ {
		if r.panicMsg != "" {
			out.kind, out.msg = oPanic, r.panicMsg
			break
		}
		enabled := r.enabled()
		if enabled == 0 {
			if !r.allDone() {
				out.kind = oDeadlock
				for t, th := range r.threads {
					if th.state != tDone {
						out.stuck = append(out.stuck, t)
					}
				}
			}
			break
		}
		if depth >= maxSteps {
			out.kind, out.msg = oLivelock, fmt.Sprintf("the execution did not end within %d steps (a livelock, or an unbounded spin)", maxSteps)
			break
		}
		for t, th := range r.threads {
			acc[t] = th.acc
		}
		t := ch.choose(depth, enabled, cur, acc, edge)
		if t == -1 {
			out.kind = oPruned
			break
		}
		if t < 0 || t >= len(test) || enabled&(1<<t) == 0 {
			out.kind, out.msg = oDiverged, fmt.Sprintf("step %d: thread %d is not runnable (runnable: %s): the schedule does not fit this test, or the object is not deterministic (it must not use time, randomness, map order or its own goroutines)", depth, t, setString(enabled))
			break
		}
		if isPreemption(cur, t, enabled) {
			out.preempts++
		}
		out.choices = append(out.choices, t)
		out.enabled = append(out.enabled, enabled)
		cur = t
		calls, returns := r.calls, r.returns
		r.resume(t)
		edge = 0
		if r.calls != calls {
			edge |= edgeCall
		}
		if r.returns != returns {
			edge |= edgeReturn
		}
	}
	r.stop()
	active.Store(nil)
	out.hist = r.history()
	out.stepless = r.stepless
	return out
}

func setString(s uint64) string {
	out := "{"
	for t := 0; t < 64; t++ {
		if s&(1<<t) != 0 {
			if len(out) > 1 {
				out += ","
			}
			out += fmt.Sprint(t)
		}
	}
	return out + "}"
}
