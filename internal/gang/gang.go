// Package gang runs one function on a fixed set of workers, many times,
// with hand-offs that take microseconds rather than the tens of
// microseconds a goroutine start or a WaitGroup costs on a virtual
// machine.
//
// The parallel BFS of package csp runs four short parallel phases per
// round of a few thousand states. Started as new goroutines and joined
// with a sync.WaitGroup, each phase cost about 50 µs of hand-off on the
// 2-core machine the engine is measured on (a sleeping thread is woken
// through the kernel, and the Go scheduler spins before it sleeps), which
// was 6% of the wall time at 2,048 states per worker and round and
// forbade smaller rounds (docs/engine-log.md).
//
// A Gang keeps its workers: worker 0 is the caller of Run, workers 1 to
// W-1 are goroutines that live until Close. A waiting party (a worker
// waiting for the next Run, the caller waiting for the workers) first
// spins on an atomic counter, then parks on a channel. The spin is bounded
// in time and adapts to the machine's load (waiter.wait), so that an idle
// gang costs nothing and a loaded machine loses little; parking and waking follow the usual protocol (the waiter
// announces that it parks, then looks again; the waker takes the
// announcement and sends), so no wake-up is lost.
package gang

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Spin and MinSpin bound how long a waiting party spins before it parks
// (see waiter.wait).
var (
	Spin    = 200 * time.Microsecond
	MinSpin = 5 * time.Microsecond
)

// pad separates the fields that different threads write (two cache lines:
// adjacent-line prefetchers pair them).
const pad = 128

// A Gang runs a function on W workers. Its methods must be called from
// one goroutine.
type Gang struct {
	w    int
	f    func(w int)
	init func(w int) // run once by each worker goroutine, before its first f
	// gen counts the Runs: worker w runs f when gen passes the last
	// generation it ran.
	_    [pad]byte
	gen  atomic.Uint64
	_    [pad]byte
	left atomic.Int64 // workers 1..W-1 still in this Run's f
	_    [pad]byte
	stop atomic.Bool
	ws   []waiter // ws[0]: the caller waiting for the workers
	exit sync.WaitGroup
	// panics[w] is what worker w's f raised in this Run.
	panics []any
}

// A waiter is a party that may park: parked is 1 while it is (about to
// be) blocked on ch.
type waiter struct {
	_      [pad]byte
	parked atomic.Int32
	ch     chan struct{}
	budget time.Duration // how long to spin (only the waiter uses it)
	nospin bool
	_      [pad]byte
}

// New returns a gang of w workers (w ≥ 1). If init is not nil, each
// worker goroutine (1 to w-1) runs init(w) once before its first Run.
// Its workers spin while they wait only if there are no more workers than
// Ps (runtime.GOMAXPROCS): a spinning worker would otherwise hold the P
// that the one it waits for needs.
func New(w int, init func(w int)) *Gang {
	g := &Gang{w: w, init: init, ws: make([]waiter, w), panics: make([]any, w)}
	spin := w <= runtime.GOMAXPROCS(0)
	for i := range g.ws {
		g.ws[i].ch = make(chan struct{}, 1)
		g.ws[i].nospin = !spin
	}
	g.exit.Add(w - 1)
	for i := 1; i < w; i++ {
		go g.worker(i, 0)
	}
	return g
}

// Run runs f(w) on every worker, f(0) on the calling goroutine, and
// returns when all have returned. A panic of any f is raised again here
// (the lowest worker's), after all have returned; so is an f's call of
// runtime.Goexit on a worker other than 0 (as a panic: the worker's
// goroutine ends, and a new one takes its place). Run panics after Close.
func (g *Gang) Run(f func(w int)) {
	if g.stop.Load() {
		panic("gang: Run after Close")
	}
	g.start(f)
	g.call(0)
	g.wait()
}

// start starts f(w) on workers 1 to W-1.
func (g *Gang) start(f func(w int)) {
	g.f = f
	if g.w > 1 {
		g.left.Store(int64(g.w - 1))
		g.gen.Add(1)
		for i := 1; i < g.w; i++ {
			g.ws[i].wake()
		}
	}
}

// wait returns when the workers started last have returned; a panic of
// any worker is raised again here.
func (g *Gang) wait() {
	if g.w > 1 {
		g.ws[0].wait(func() bool { return g.left.Load() == 0 })
	}
	g.f = nil
	for _, e := range g.panics {
		if e != nil {
			clear(g.panics)
			panic(e)
		}
	}
}

// Close stops the workers and waits for them. The gang may not be used
// after.
func (g *Gang) Close() {
	if g.stop.Load() {
		return
	}
	g.stop.Store(true)
	g.gen.Add(1)
	for i := 1; i < g.w; i++ {
		g.ws[i].wake()
	}
	g.exit.Wait()
}

func (g *Gang) call(w int) {
	defer func() {
		if e := recover(); e != nil {
			g.panics[w] = e
		}
	}()
	g.f(w)
}

// done counts worker w > 0 out of this Run.
func (g *Gang) done() {
	if g.left.Add(-1) == 0 {
		g.ws[0].wake()
	}
}

// worker runs worker w's part of each Run after generation seen.
func (g *Gang) worker(w int, seen uint64) {
	inF := false
	defer func() {
		if inF {
			// f called runtime.Goexit (call recovers panics): this
			// goroutine ends whatever we do. A new one takes its
			// place for the next Runs, and this Run is told (as a
			// panic) rather than left waiting for it forever.
			g.panics[w] = "gang: worker " + strconv.Itoa(w) + "'s function called runtime.Goexit"
			g.exit.Add(1)
			go g.worker(w, seen)
			g.done()
		}
		g.exit.Done()
	}()
	if g.init != nil {
		g.init(w)
	}
	for {
		g.ws[w].wait(func() bool { return g.gen.Load() != seen })
		seen = g.gen.Load()
		if g.stop.Load() {
			return
		}
		inF = true
		g.call(w)
		inF = false
		g.done()
	}
}

// wait returns when ready() holds: it spins for up to its budget, then
// parks until a wake. ready must stay true once it holds (until the
// waiter acts on it).
//
// The budget adapts: it halves after a wait that had to park and doubles
// after one that ended while spinning, between MinSpin and Spin. On a
// machine whose other jobs take the cores, the party a waiter waits for
// is often not running at all, and a long spin would take the core from
// it; the budget then falls to MinSpin within a few waits.
func (wt *waiter) wait(ready func() bool) {
	if ready() {
		return
	}
	if wt.budget == 0 {
		wt.budget = Spin
	}
	var deadline time.Time
	if !wt.nospin {
		deadline = time.Now().Add(wt.budget)
	}
	for i := 1; !wt.nospin; i++ {
		if ready() {
			wt.budget = min(2*wt.budget, Spin)
			return
		}
		if i%64 == 0 {
			if time.Now().After(deadline) {
				break
			}
			// Let another goroutine of this P run (a progress display,
			// a GC worker): the workers own the other Ps.
			runtime.Gosched()
		}
	}
	wt.budget = max(wt.budget/2, MinSpin)
	for {
		wt.parked.Store(1)
		if ready() {
			if !wt.parked.CompareAndSwap(1, 0) {
				<-wt.ch // a waker took the announcement: take its token
			}
			return
		}
		<-wt.ch
		if ready() {
			return
		}
	}
}

// wake wakes the waiter if it has parked or is about to: the condition
// it waits for must already hold.
func (wt *waiter) wake() {
	if wt.parked.Load() == 1 && wt.parked.CompareAndSwap(1, 0) {
		wt.ch <- struct{}{}
	}
}
