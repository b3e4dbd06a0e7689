package refine

import (
	"fmt"
	"sync"

	"github.com/quasar-verify/quasar/lts"
)

// expander computes the impl successors of a batch of queued pairs with
// several goroutines (System.Successors is safe for concurrent use). Worker
// w handles a contiguous chunk of the batch into its own buffer, so the
// results can be read back in batch order without copying. The search uses
// two expanders in turn: one is read while the other expands the next
// batch.
type expander struct {
	workers int
	bufs    [][]lts.Transition // per worker
	owner   []int32            // per batch item: its worker
	lo, hi  []int32            // per batch item: its range in bufs[owner]
	errs    []error            // per batch item
	panics  []any              // per worker
	wg      sync.WaitGroup
}

func newExpander(workers int) *expander {
	return &expander{
		workers: workers,
		bufs:    make([][]lts.Transition, workers),
		panics:  make([]any, workers),
	}
}

// start begins expanding items in the background; after wait, result(k)
// gives the transitions of items[k]. items must not change meanwhile.
func (x *expander) start(sys lts.System, items []item) {
	n := len(items)
	if cap(x.lo) < n {
		x.owner, x.lo, x.hi, x.errs = make([]int32, n), make([]int32, n), make([]int32, n), make([]error, n)
	}
	x.owner, x.lo, x.hi, x.errs = x.owner[:n], x.lo[:n], x.hi[:n], x.errs[:n]
	chunk := (n + x.workers - 1) / x.workers
	for w := 0; w < x.workers; w++ {
		a, b := w*chunk, min(n, (w+1)*chunk)
		if a >= b {
			break
		}
		x.wg.Add(1)
		go func() {
			defer x.wg.Done()
			defer func() {
				if r := recover(); r != nil {
					x.panics[w] = r
				}
			}()
			buf := x.bufs[w][:0]
			for k := a; k < b; k++ {
				x.owner[k], x.lo[k] = int32(w), int32(len(buf))
				out, err := sys.Successors(items[k].s, buf)
				x.errs[k] = err
				if err == nil {
					buf = out
				}
				x.hi[k] = int32(len(buf))
			}
			x.bufs[w] = buf
		}()
	}
}

// wait waits for the expansion started last; a panic of a worker is
// raised again here, where Check turns it into an internal error.
func (x *expander) wait() {
	x.wg.Wait()
	for w, p := range x.panics {
		if p != nil {
			x.panics[w] = nil
			panic(fmt.Sprintf("implementation successors: %v", p))
		}
	}
}

func (x *expander) result(k int) ([]lts.Transition, error) {
	if x.errs[k] != nil {
		return nil, x.errs[k]
	}
	return x.bufs[x.owner[k]][x.lo[k]:x.hi[k]:x.hi[k]], nil
}
