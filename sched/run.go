package sched

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/record"
	"github.com/quasar-verify/quasar/history/stress"
)

// runMu serialises controlled runs: there is one active run per process.
var runMu sync.Mutex

type tstate uint8

const (
	tRunning tstate = iota
	tParked         // before a step (acc)
	tBlocked        // waiting on a Cond, not runnable until signalled
	tDone
)

type thread struct {
	wake  chan struct{}
	state tstate
	acc   access
	op    int // index in run.ops of the current operation, -1 between ops
}

// run is one controlled execution. Exactly one of the test goroutines and
// the scheduler runs at a time; every hand-off is a channel operation, so
// the fields below are ordered by happens-before and need no locks.
type run struct {
	threads  []*thread
	cur      int
	msgs     chan int
	abort    bool
	clock    int64
	calls    int  // calls stamped so far
	returns  int  // returns stamped so far
	stepless bool // an operation ran without a marked step
	ops      []history.Op
	panicMsg string
}

// step parks the running goroutine before access a and returns once the
// scheduler picked it; in an aborted run the goroutine exits.
func (r *run) step(a access) {
	if r.abort {
		runtime.Goexit()
	}
	th := r.threads[r.cur]
	a.first = th.op >= 0 && r.ops[th.op].Call < 0
	th.acc, th.state = a, tParked
	r.msgs <- r.cur
	<-th.wake
	r.resumed(th)
}

// resumed stamps the logical clock: an operation's invocation is placed
// just before its first step (the latest instant a real invocation could
// have), each step advances the clock.
func (r *run) resumed(th *thread) {
	if r.abort {
		runtime.Goexit()
	}
	th.state = tRunning
	if th.op >= 0 && r.ops[th.op].Call < 0 {
		r.ops[th.op].Call = r.clock
		r.clock++
		r.calls++
	}
	r.clock++
}

func (r *run) lock(m *Mutex) {
	r.step(access{v: uintptr(unsafe.Pointer(m)), k: kLock, m: m})
	m.held = true // the scheduler runs a Lock only when m is free
}

func (r *run) wait(c *Cond) {
	if c.L == nil {
		panic("sched: Cond.Wait with a nil L")
	}
	r.step(access{v: uintptr(unsafe.Pointer(c)), k: kWait})
	if !c.L.held {
		panic("sched: Cond.Wait without holding L")
	}
	c.L.held = false
	t := r.cur
	th := r.threads[t]
	c.waiters = append(c.waiters, t)
	th.acc = access{v: uintptr(unsafe.Pointer(c.L)), k: kLock, m: c.L}
	th.state = tBlocked // Signal makes it tParked before its re-Lock
	r.msgs <- t
	<-th.wake
	r.resumed(th)
	c.L.held = true
}

func (r *run) signal(c *Cond, all bool) {
	r.step(access{v: uintptr(unsafe.Pointer(c)), k: kSignal})
	for len(c.waiters) > 0 {
		w := c.waiters[0]
		c.waiters = c.waiters[1:]
		r.threads[w].state = tParked
		if !all {
			break
		}
	}
}

// enabled is the set of runnable threads: parked, and not waiting for a
// held mutex.
func (r *run) enabled() uint64 {
	var e uint64
	for t, th := range r.threads {
		if th.state == tParked && (th.acc.k != kLock || !th.acc.m.held) {
			e |= 1 << t
		}
	}
	return e
}

func (r *run) allDone() bool {
	for _, th := range r.threads {
		if th.state != tDone {
			return false
		}
	}
	return true
}

// body is test goroutine t: it performs its calls in order, recording each
// as an operation of the history.
func (r *run) body(t int, obj stress.Object, calls []stress.Call) {
	th := r.threads[t]
	defer func() {
		if p := recover(); p != nil && r.panicMsg == "" {
			what := "between operations"
			if th.op >= 0 {
				what = r.ops[th.op].String()
			}
			r.panicMsg = fmt.Sprintf("p%d %s: the object panicked: %v", t, what, p)
		}
		th.state = tDone
		r.msgs <- t
	}()
	<-th.wake
	if r.abort {
		return
	}
	for _, c := range calls {
		th.op = len(r.ops)
		r.ops = append(r.ops, history.Op{Process: t, F: c.F, Input: record.Value(c.Arg),
			Status: history.Info, Call: -1, Return: history.Pending})
		res := obj.Do(c.F, c.Arg)
		op := &r.ops[th.op]
		if op.Call < 0 {
			// No marked step: the call is stamped here, after the
			// previous operation's return, in the same quantum.
			op.Call = r.clock
			r.clock++
			r.calls++
			r.stepless = true
		}
		op.Return, op.Status, op.Output = r.clock, history.Ok, record.Value(res)
		r.clock++
		r.returns++
		th.op = -1
	}
}

// resume hands the processor to thread t and waits until it parks again,
// blocks or ends.
func (r *run) resume(t int) {
	r.cur = t
	r.threads[t].wake <- struct{}{}
	<-r.msgs
}

// stop aborts the run: each unfinished goroutine is woken in turn and
// exits (runtime.Goexit at its next marking call, running its deferred
// calls one goroutine at a time).
func (r *run) stop() {
	r.abort = true
	for t, th := range r.threads {
		if th.state != tDone {
			r.resume(t)
		}
	}
}

// history returns the recorded operations in invocation order; an
// operation that never returned (stuck, or cut by an abort) is pending.
func (r *run) history() *history.History {
	ops := slices.Clone(r.ops)
	for i := range ops {
		if ops[i].Call < 0 {
			ops[i].Call = r.clock
		}
	}
	slices.SortStableFunc(ops, func(a, b history.Op) int { return cmp.Compare(a.Call, b.Call) })
	for i := range ops {
		ops[i].ID = i
	}
	return &history.History{Ops: ops, Source: "sched"}
}
