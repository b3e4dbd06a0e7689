// Package frontier expands a batch of states with several goroutines: the
// one parallel step of every breadth-first search (exploration in csp,
// refinement in refine).
//
// A search stays sequential in everything that decides its result: it
// hands a slice of queued states to an Expander, waits, and then walks the
// results in the slice's order, storing successors, building the parent
// tree and checking its property exactly as a one-worker search would. So
// the states visited, their order and the counterexamples do not depend on
// the number of workers; only the successor computation, which is pure
// (lts.System.Successors is safe for concurrent use), is shared out.
//
// Worker w takes a contiguous chunk of the batch and appends its
// transitions to its own buffer, reused from batch to batch, so results are
// read back in place without copying. A system that implements Batcher
// expands each chunk in runs of BatchSize states (csp.Proc interns the
// successors of a run together, overlapping their cache misses).
package frontier

import (
	"fmt"
	"sync"

	"github.com/quasar-verify/quasar/lts"
)

// Batcher is implemented by systems that expand several states at once.
// On a model error at states[k] it returns the results of states[:k]
// (len(counts) == k) with the error.
type Batcher interface {
	SuccessorsBatch(states []lts.State, buf []lts.Transition, counts []int) ([]lts.Transition, []int, error)
}

// BatchSize is the number of states handed to a Batcher at once.
const BatchSize = 256

// Expander computes the successors of a batch of states with Workers
// goroutines. Start it, Wait for it, then read Result; the states must not
// change meanwhile. Two Expanders used in turn let a search walk one batch
// while the next is expanded.
type Expander struct {
	Workers int
	bufs    [][]lts.Transition // per worker
	counts  [][]int            // per worker: a Batcher's counts
	owner   []int32            // per state: its worker
	lo, hi  []int32            // per state: its range in bufs[owner]
	errAt   []int              // per worker: the index of its error
	errs    []error            // per worker
	panics  []any              // per worker
	wg      sync.WaitGroup
}

// New returns an expander with workers goroutines (at least one).
func New(workers int) *Expander {
	workers = max(workers, 1)
	return &Expander{
		Workers: workers,
		bufs:    make([][]lts.Transition, workers),
		counts:  make([][]int, workers),
		errAt:   make([]int, workers),
		errs:    make([]error, workers),
		panics:  make([]any, workers),
	}
}

// Start begins expanding states in the background.
func (x *Expander) Start(sys lts.System, states []lts.State) {
	n := len(states)
	if cap(x.lo) < n {
		x.owner, x.lo, x.hi = make([]int32, n), make([]int32, n), make([]int32, n)
	}
	x.owner, x.lo, x.hi = x.owner[:n], x.lo[:n], x.hi[:n]
	chunk := (n + x.Workers - 1) / x.Workers
	for w := range x.Workers {
		x.errs[w] = nil
		a, b := w*chunk, min(n, (w+1)*chunk)
		if a >= b {
			continue
		}
		x.wg.Add(1)
		go x.expand(w, sys, states, a, b)
	}
}

// expand is worker w's part: states[a:b]. It stops at its first error.
func (x *Expander) expand(w int, sys lts.System, states []lts.State, a, b int) {
	defer x.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			x.panics[w] = r
		}
	}()
	buf := x.bufs[w][:0]
	bs, batched := sys.(Batcher)
	for k := a; k < b; {
		if batched {
			j := min(k+BatchSize, b)
			start := len(buf)
			out, counts, err := bs.SuccessorsBatch(states[k:j], buf, x.counts[w][:0])
			buf, x.counts[w] = out, counts
			for q, c := range counts {
				x.owner[k+q], x.lo[k+q], x.hi[k+q] = int32(w), int32(start), int32(start+c)
				start += c
			}
			if err != nil {
				x.errs[w], x.errAt[w] = err, k+len(counts)
				break
			}
			k = j
			continue
		}
		start := len(buf)
		out, err := sys.Successors(states[k], buf)
		if err != nil {
			x.errs[w], x.errAt[w] = err, k
			break
		}
		buf = out
		x.owner[k], x.lo[k], x.hi[k] = int32(w), int32(start), int32(len(buf))
		k++
	}
	x.bufs[w] = buf
}

// Wait waits for the expansion started last. It returns the first state
// (in the batch's order) whose expansion failed and its error, or -1: the
// error a sequential search would meet, since it visits the states before
// it first. Results are valid below that index. A worker's panic is raised
// again here, in the search's goroutine, where the search's own recovery
// turns it into an internal error.
func (x *Expander) Wait() (errAt int, err error) {
	x.wg.Wait()
	for w, p := range x.panics {
		if p != nil {
			x.panics[w] = nil
			panic(fmt.Sprintf("successors: %v", p))
		}
	}
	errAt = -1
	for w, e := range x.errs {
		if e != nil && (errAt < 0 || x.errAt[w] < errAt) {
			errAt, err = x.errAt[w], e
		}
	}
	return errAt, err
}

// Result returns the transitions of states[k] (k below Wait's errAt). The
// slice is valid until the next Start.
func (x *Expander) Result(k int) []lts.Transition {
	return x.bufs[x.owner[k]][x.lo[k]:x.hi[k]:x.hi[k]]
}

// Rounds expands batches of states with several workers that also store
// the successors, giving them the state ids a one-worker expansion of the
// same states in the same order gives (csp.Proc's parallel rounds). A
// search that walks the results in order is then the same for any number
// of workers, and the workers share the interning too, which an Expander
// leaves to one goroutine at a time.
type Rounds interface {
	// Size is the number of states per Expand the rounds are made for.
	Size() int
	// Expand expands states; it returns the first state whose
	// expansion failed (-1: none) and its error. Results are valid below
	// that index, until the next Expand.
	Expand(states []lts.State) (errAt int, err error)
	// Result returns the transitions of states[k] of the last Expand.
	Result(k int) []lts.Transition
	// Close stops the workers.
	Close()
}

// Rounder is implemented by systems that give Rounds (nil if they cannot
// for this system). The Rounds expand the system itself: a type that
// embeds one (a *csp.Proc) and changes its successors must not promote
// NewRounds.
type Rounder interface {
	NewRounds(workers int) Rounds
}

// Sharer is implemented by Rounds that hold a store other systems may use
// (csp.Proc's rounds hold the Proc's lock): Shares reports whether sys may
// use it, so that a walk (Walker) that uses sys must not run in a round.
type Sharer interface {
	Shares(sys lts.System) bool
}

// Walker is implemented by Rounds that let the caller walk the results of
// one batch while the other workers expand the next: walk runs on the
// calling goroutine, as its part of the round, and Result reads the
// previous batch's results in it; walk must not use the system. After the
// call, Result reads the new batch's.
type Walker interface {
	ExpandWalking(states []lts.State, walk func()) (errAt int, err error)
}
