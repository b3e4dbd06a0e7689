package csp

import (
	"github.com/quasar-verify/quasar/internal/frontier"
	"github.com/quasar-verify/quasar/lts"
)

// rounds hands batches of states of another search (refinement) to the
// parallel rounds of store_par.go: the workers expand the states and
// intern their successors, and every new state gets the id that
// SuccessorsBatch on one goroutine, called on the same states in the same
// order, gives it. A search that walks the results in the batch's order
// makes the same calls on the same ids whatever the number of workers.
type rounds struct {
	p   *Proc
	r   *parSearch
	n   int     // states of the last batch with results
	off []int32 // off[k]: the first transition of state k in its worker's list
	own []int32 // own[k]: the worker that expanded state k (not int8: more than 127 workers)
}

// NewRounds returns an expander of batches of s's states with workers
// goroutines that intern the successors in parallel, or nil if s cannot
// (a hash-compacted store, or fewer than two workers).
func (s *Proc) NewRounds(workers int) frontier.Rounds {
	if workers < 2 || s.fp != nil {
		return nil
	}
	return &rounds{p: s, r: newParSearch(s, workers)}
}

// Size is the number of states per batch the rounds are made for.
func (rs *rounds) Size() int { return rs.r.W * parRound }

// Expand expands states and interns their successors. It returns the
// first state whose expansion failed, or -1, with its error; the results
// of the states before it can be read with Result until the next Expand.
func (rs *rounds) Expand(states []lts.State) (errAt int, err error) {
	r := rs.r
	r.growTree, r.onNew = nil, nil
	errAt, err = r.round(states)
	n := len(states)
	if errAt >= 0 {
		n = errAt
	}
	if cap(rs.off) < n {
		rs.off, rs.own = make([]int32, n, n+n/4), make([]int32, n, n+n/4)
	}
	rs.off, rs.own, rs.n = rs.off[:n], rs.own[:n], n
	k := 0
	for w := range r.W {
		o := int32(0)
		for _, c := range r.ws[w].counts {
			if k == n {
				break
			}
			rs.off[k], rs.own[k] = o, int32(w)
			o += int32(c)
			k++
		}
	}
	if rs.p.NumStates() >= hotStates {
		rs.p.p.heatBlocks()
	}
	return errAt, err
}

// Result returns the transitions of states[k] of the last Expand (k below
// its errAt). The slice is valid until the next Expand.
func (rs *rounds) Result(k int) []lts.Transition {
	w := rs.own[k]
	wk := &rs.r.ws[w]
	lo := rs.off[k]
	hi := lo + int32(wk.counts[k-rs.r.lo[w]])
	return wk.trans[lo:hi:hi]
}

// Close stops the workers.
func (rs *rounds) Close() { rs.r.close() }
