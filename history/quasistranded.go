package history

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/quasar-verify/quasar/relax"
)

// strandedQueue refutes, without a search, a queue history checked with
// every event in one class of bound Q (--quasi Q: exact mode, no barrier)
// in which a value is stranded while later values keep flowing. It applies
// to queues with distinct values (each put at most once, each removed by
// at most one completed op), directly or through Localize's fixed-result
// model (locFixedModel): a pending removal with a fixed result x may take
// effect removing x, or not at all; one with no fixed result (it may
// remove any value) stops the rule. It returns the completed dequeue that
// cannot take effect (-1 if the rule does not fire) and why.
//
// Rule (proof). Let v be put by a completed op e_v and removed by no op,
// completed or pending with a fixed result, and w put by a completed op
// e_w and removed by a completed op d_w. Take any accepted linearization
// τ of N events (the completed ops and some pending ones, each with its
// fixed result) and its spec run σ with map f (relax/doc.go's
// characterisation (D); one class, so a position's rank is its index). If
// e_w is at least 2Q+1 places after e_v in τ, then σ puts w after v:
// rank_σ(f(e_w)) >= t_w - Q > t_v + Q >= rank_σ(f(e_v)). σ is a queue run,
// so it removes v before w; no event of τ removes v (a pending op in τ
// carries its fixed result, not v), so that removal is a pending position
// p of σ, and (D) asks rank_σ(p) + Q >= N. Then d_w, after p in σ, has
// rank_σ(f(d_w)) >= N - Q + 1, and (D) for d_w gives its place t >=
// rank_σ(f(d_w)) - Q >= N - 2Q + 1: at most 2Q - 2 events of τ follow
// d_w. Real time forces events between and after (completed ops are in
// every τ): if e_v returns before e_w is invoked and at least 2Q completed
// ops are invoked after e_v returns and return before e_w is invoked, e_w
// is 2Q+1 places after e_v or more; if at least 2Q - 1 completed ops are
// invoked after d_w returns, more than 2Q - 2 events follow d_w. Both
// together contradict every τ: the history is not quasi-linearizable at Q
// (open mode, and so complete mode).
//
// The earliest-returning stranded put leaves the most ops after it, so it
// is the only v tried; every w is tried, in O(n log n).
func strandedQueue(ops []Op, m Model, q *relax.Config) (int, string) {
	fixed := ops // ops with their fixed results (pending ones stay pending in ops)
	if f, ok := m.(*locFixedModel); ok {
		m, fixed = f.m, f.fixAll(ops)
	}
	cm, ok := m.(containerModel)
	if !ok || cm.kind != cQueue || q == nil || q.Mode != relax.Exact || len(q.Classes) > 0 || len(q.Barriers) > 0 || q.All > 1<<20 {
		return -1, ""
	}
	bound := q.All
	cops, err := cm.compileOps(fixed)
	if err != nil {
		return -1, ""
	}
	put := map[int64]int{}      // value -> its put
	taken := map[int64]int{}    // value -> its completed removal
	removed := map[int64]bool{} // values some op may remove
	for i := range cops {
		c := &cops[i]
		switch c.code {
		case coPut:
			if _, dup := put[c.arg]; dup {
				return -1, ""
			}
			put[c.arg] = i
		case coTake:
			if c.info {
				return -1, "" // a pending removal may take any value
			}
			if c.empty {
				continue
			}
			removed[c.res] = true
			if ops[i].Return == Pending {
				continue // fixed result: removes c.res or nothing
			}
			if _, dup := taken[c.res]; dup {
				return -1, ""
			}
			taken[c.res] = i
		}
	}
	// The stranded put that returns first.
	v := -1
	for x, i := range put {
		if !removed[x] && ops[i].Return != Pending && (v < 0 || ops[i].Return < ops[v].Return || ops[i].Return == ops[v].Return && i < v) {
			v = i
		}
	}
	if v < 0 {
		return -1, ""
	}
	// Completed ops invoked after e_v returns, by return time; and every
	// completed op's call, sorted, for the ops after d_w.
	var after, calls []int64
	for i := range ops {
		if ops[i].Return == Pending {
			continue
		}
		calls = append(calls, ops[i].Call)
		if ops[i].Call > ops[v].Return {
			after = append(after, ops[i].Return)
		}
	}
	slices.Sort(after)
	slices.Sort(calls)
	best := -1
	for x, ew := range put {
		dw, ok := taken[x]
		if !ok || ops[ew].Return == Pending {
			continue
		}
		between, _ := slices.BinarySearch(after, ops[ew].Call) // return < e_w's call
		k, _ := slices.BinarySearch(calls, ops[dw].Return+1)
		tail := 2*bound - 1
		if quasiMutant == 3 {
			tail-- // a deliberately wrong rule, for the tests
		}
		if ops[v].Return < ops[ew].Call && between >= 2*bound && len(calls)-k >= tail && (best < 0 || cmp.Compare(ops[dw].Call, ops[best].Call) < 0 || ops[dw].Call == ops[best].Call && dw < best) {
			best = dw
		}
	}
	if best < 0 {
		return -1, ""
	}
	w := &ops[best]
	return best, fmt.Sprintf("%s (%s) is never dequeued, yet %s, enqueued more than %d operations after it, is dequeued at least %d operations before the end: with every operation displaced by at most %d, a queue that dequeues %s must first dequeue %s, which then stays pending, and that puts this dequeue among the last %d operations",
		ops[v].String(), lineOf(&ops[v]), w.Output.String(), 2*bound, 2*bound-1, bound, w.Output.String(), ops[v].Input.String(), 2*bound-1)
}

// strandedRigid is strandedQueue's rule for the papers' configuration,
// when quasiMachine applies to a queue: puts rigid, the non-empty
// dequeues one class of bound Q, the empty dequeue a barrier or rigid.
// Ranks now count the class's events (the non-empty dequeues) only.
//
// Rule (proof). Let v_1 .. v_s be put by completed ops and removed by no
// op (pending ones included: they carry their result here), and w put by
// an op invoked after those puts return and removed by a completed op d_w.
// The puts are rigid, performed by σ where τ has them, and real time puts
// the v_i first: σ puts w behind them, so it removes them before w, at s
// pending positions (no op removes them), each with rank_σ(p) + Q >= N
// (D), N the class events of τ; the first has rank at least N - Q, so
// rank_σ(f(d_w)) >= N - Q + s, and (D) for d_w gives it at least N - 2Q +
// s class events before it in τ: at most 2Q - s - 1 after it. At least
// 2Q - s completed non-empty dequeues invoked after d_w returns contradict
// every τ.
func strandedRigid(p *quasiMachine, ops []Op) (int, string) {
	qp := p.qp
	if !p.qc || len(p.freePuts) == 0 {
		return -1, ""
	}
	v := p.freePuts[0] // the free completed put that returns first
	// Completed non-empty dequeues by call time; the free puts' returns.
	var calls, frees []int64
	for _, d := range p.byRet {
		calls = append(calls, qp.call[d])
	}
	slices.Sort(calls)
	for _, f := range p.freePuts { // by return time
		frees = append(frees, qp.ret[f])
	}
	best, bestS := int32(-1), 0
	for x, dw := range qp.deqOf {
		ew, ok := p.putOfValue(x)
		if !ok || p.takes[dw>>6]&(1<<(uint(dw)&63)) == 0 || qp.call[ew] <= qp.ret[v] {
			continue
		}
		// s stranded values put before w: at most 2Q - s - 1 class
		// events after d_w.
		s, _ := slices.BinarySearch(frees, qp.call[ew])
		tail := 2*p.q - s
		if quasiMutant == 3 {
			tail-- // a deliberately wrong rule, for the tests
		}
		k, _ := slices.BinarySearch(calls, qp.ret[dw]+1)
		if len(calls)-k >= tail && (best < 0 || qp.call[dw] < qp.call[best] || qp.call[dw] == qp.call[best] && dw < best) {
			best, bestS = dw, s
		}
	}
	if best < 0 {
		return -1, ""
	}
	quasiStranded.Add(1)
	w := &ops[best]
	return int(best), fmt.Sprintf("%s (%s) and %d more values enqueued before %s are never dequeued, yet %s is dequeued before at least %d other dequeues: with dequeues displaced by at most %d, a queue that dequeues %s must first dequeue those, which then stay pending, and that puts this dequeue among the last %d",
		ops[v].String(), lineOf(&ops[v]), bestS-1, w.Output.String(), w.Output.String(), max(2*p.q-bestS, 0), p.q, w.Output.String(), max(2*p.q-bestS-1, 0))
}

// putOfValue is the put of value x (values are put at most once here).
func (p *quasiMachine) putOfValue(x int64) (int32, bool) {
	if p.putIdx == nil {
		p.putIdx = map[int64]int32{}
		for i, e := range p.events {
			if op := p.a.ops[e]; op.code == coPut {
				p.putIdx[op.arg] = int32(i)
			}
		}
	}
	i, ok := p.putIdx[x]
	return i, ok
}

// barrierBlocked is rule C of quasiMachine applied to the whole history,
// before any search: when the empty dequeue is a barrier (the papers'
// configuration), a completed empty dequeue d0 needs, at its place in τ,
// an empty spec and no obligation, so every value whose put precedes d0 in
// real time (hence in τ, and in σ: puts are rigid) must be removed before
// d0 by an op matched before it: some op that removes the value (completed,
// or pending with the result it carries) and does not follow d0 in real
// time. A value with no such op makes every τ fail at d0. Returns d0 (the
// first by call) and why, or -1.
func barrierBlocked(p *quasiMachine, ops []Op) (int, string) {
	qp := p.qp
	if !p.cb {
		return -1, ""
	}
	// Completed empty dequeues by call, with the least return among those
	// called later (suffix minima).
	var es []int32
	for w, bitsw := range p.empties {
		for b := bitsw; b != 0; b &= b - 1 {
			es = append(es, int32(w<<6+bits.TrailingZeros64(b)))
		}
	}
	if len(es) == 0 {
		return -1, ""
	}
	slices.SortFunc(es, func(a, b int32) int { return cmp.Or(cmp.Compare(qp.call[a], qp.call[b]), cmp.Compare(a, b)) })
	minRet := make([]int32, len(es)) // index into es of the least return at or after k
	minRet[len(es)-1] = int32(len(es) - 1)
	for k := len(es) - 2; k >= 0; k-- {
		minRet[k] = minRet[k+1]
		if qp.ret[es[k]] < qp.ret[es[minRet[k]]] {
			minRet[k] = int32(k)
		}
	}
	best, bestPut := int32(-1), int32(-1)
	for i, e := range p.events {
		op := p.a.ops[e]
		if op.code != coPut || ops[i].Status != Ok {
			continue
		}
		// The empties invoked after the put returns.
		k, _ := slices.BinarySearchFunc(es, qp.ret[i]+1, func(d int32, t int64) int { return cmp.Compare(qp.call[d], t) })
		if k == len(es) {
			continue
		}
		d0 := es[minRet[k]]
		r, removed := qp.deqOf[op.arg]
		if removed && qp.call[r] <= qp.ret[d0] && (quasiMutant != 4 || qp.ret[r] < qp.call[d0]) {
			continue // r may come before d0 (mutant 4, for the tests: only if it must)
		}
		if best < 0 || qp.call[d0] < qp.call[best] {
			best, bestPut = d0, int32(i)
		}
	}
	if best < 0 {
		return -1, ""
	}
	quasiStranded.Add(1)
	v := &ops[bestPut]
	return int(best), fmt.Sprintf("%s (%s) precedes it, and no dequeue of %s can come before it: an empty dequeue is a barrier, which needs every value enqueued before it dequeued first",
		v.String(), lineOf(v), v.Input.String())
}
