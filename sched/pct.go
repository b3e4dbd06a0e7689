package sched

import "math/rand/v2"

// pct is one execution of PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte,
// ASPLOS 2010): random distinct initial priorities d..d+n-1, d-1 priority
// change points among the first k steps; the highest-priority runnable
// thread always runs, and at the i-th change point the running thread's
// priority drops to i (below every initial one). A bug of depth d is found
// by one execution with probability at least 1/(n·k^(d-1)).
type pct struct {
	prio []int
	at   map[int]int
}

func newPCT(rng *rand.Rand, n, d, k int) *pct {
	p := &pct{prio: make([]int, n), at: map[int]int{}}
	for i, t := range rng.Perm(n) {
		p.prio[t] = d + i
	}
	for i := 1; i < d; i++ {
		p.at[rng.IntN(max(k, 1))] = i
	}
	return p
}

func (p *pct) choose(depth int, enabled uint64, cur int, _ []access, _ uint8) int {
	if i, ok := p.at[depth]; ok && cur >= 0 {
		p.prio[cur] = i
	}
	best := -1
	for t := range p.prio {
		if enabled&(1<<t) != 0 && (best < 0 || p.prio[t] > p.prio[best]) {
			best = t
		}
	}
	return best
}
