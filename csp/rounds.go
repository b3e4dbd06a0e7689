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
//
// The results of a batch are kept until the end of the next Expand (two
// sets of buffers, swapped with the workers'), so that a search can walk
// one batch while the workers expand the next (ExpandWalking).
type rounds struct {
	p    *Proc
	r    *parSearch
	sets [2]resultSet
	cur  int // the set Result reads
	// share is the fraction of a walking round's states that worker 0
	// expands after its walk (ExpandWalking).
	share float64
}

// resultSet is the results of one batch.
type resultSet struct {
	trans  [][]lts.Transition // per worker
	counts [][]int            // per worker
	lo     []int              // worker w expanded states [lo[w], lo[w+1])
	n      int                // states with results
	off    []int32            // off[k]: the first transition of state k in its worker's list
	own    []int32            // own[k]: the worker that expanded state k (not int8: more than 127 workers)
}

// NewRounds returns an expander of batches of s's states with workers
// goroutines that intern the successors in parallel, or nil if s cannot
// (a hash-compacted store, or fewer than two workers).
func (s *Proc) NewRounds(workers int) frontier.Rounds {
	if workers < 2 || s.fp != nil {
		return nil
	}
	rs := &rounds{p: s, r: newParSearch(s, workers), share: 1 / float64(2*workers)}
	for i := range rs.sets {
		rs.sets[i].trans = make([][]lts.Transition, workers)
		rs.sets[i].counts = make([][]int, workers)
	}
	return rs
}

// Size is the number of states per batch the rounds are made for.
func (rs *rounds) Size() int { return rs.r.W * parRound }

// Expand expands states and interns their successors. It returns the
// first state whose expansion failed, or -1, with its error; the results
// of the states before it can be read with Result until the end of the
// next Expand.
func (rs *rounds) Expand(states []lts.State) (errAt int, err error) {
	return rs.ExpandWalking(states, nil)
}

// ExpandWalking is Expand, the calling goroutine running walk first (in
// which Result reads the previous batch's results) while the other
// workers start on the states; walk must not use the Proc. Worker 0's
// share of the states is set so that it would have ended with the others
// in the last walking round (the ids do not depend on it).
func (rs *rounds) ExpandWalking(states []lts.State, walk func()) (errAt int, err error) {
	r := rs.r
	r.growTree, r.onNew = nil, nil
	r.pre, r.preNs = walk, 0
	if walk != nil {
		r.share0 = int(rs.share * float64(len(states)))
	}
	errAt, err = r.round(states)
	if n := len(states); walk != nil && n > 0 && errAt < 0 {
		// Worker 0's share for the next walk: the one that would have
		// made it end with the others this time (it walked, then
		// expanded; each other worker expanded its part), half-way
		// from the last one (the walks vary with the batches).
		var exp int64
		for w := range r.W {
			exp += r.ws[w].expNs
		}
		if exp > 0 {
			per := float64(exp) / float64(n) // ns per state expanded
			even := float64(exp+r.preNs) / float64(r.W)
			n0 := float64(r.lo[1]-r.lo[0]) + (even-float64(r.preNs+r.ws[0].expNs))/per
			rs.share = (rs.share + min(max(n0/float64(n), 0), 1)) / 2
		}
	}
	r.pre = nil
	// The results move to the other set; the workers take its old
	// buffers for the next round.
	rs.cur = 1 - rs.cur
	set := &rs.sets[rs.cur]
	for w := range r.W {
		wk := &r.ws[w]
		set.trans[w], wk.trans = wk.trans, set.trans[w][:0]
		set.counts[w], wk.counts = wk.counts, set.counts[w][:0]
	}
	set.lo = append(set.lo[:0], r.lo[:r.W+1]...)
	n := len(states)
	if errAt >= 0 {
		n = errAt
	}
	if cap(set.off) < n {
		set.off, set.own = make([]int32, n, n+n/4), make([]int32, n, n+n/4)
	}
	set.off, set.own, set.n = set.off[:n], set.own[:n], n
	k := 0
	for w := range r.W {
		o := int32(0)
		for _, c := range set.counts[w] {
			if k == n {
				break
			}
			set.off[k], set.own[k] = o, int32(w)
			o += int32(c)
			k++
		}
	}
	if rs.p.p.hot(rs.p.NumStates()) {
		rs.p.p.heatBlocks()
	}
	return errAt, err
}

// Result returns the transitions of states[k] of the last Expand (k below
// its errAt), or, in the walk of ExpandWalking, of the one before. The
// slice is valid until the end of the next Expand.
func (rs *rounds) Result(k int) []lts.Transition {
	set := &rs.sets[rs.cur]
	w := set.own[k]
	lo := set.off[k]
	hi := lo + int32(set.counts[w][k-set.lo[w]])
	return set.trans[w][lo:hi:hi]
}

// Shares reports whether sys may use the Proc whose store the rounds hold
// (its lock, during a round): unless sys is another Proc or an
// lts.Explicit, it may.
func (rs *rounds) Shares(sys lts.System) bool {
	switch x := sys.(type) {
	case *Proc:
		return x == rs.p
	case *lts.Explicit:
		return false
	}
	return true
}

// Close stops the workers.
func (rs *rounds) Close() { rs.r.close() }
