package history

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/quasar-verify/quasar/relax"
)

// queueViolation refutes a FIFO queue history without a search when it
// contains one of three patterns, each a certain violation of
// linearizability (the bad patterns of Henzinger, Sezgin and Vafeiadis,
// CONCUR 2013, and Bouajjani, Emmi, Enea and Hamza, ICALP 2015, read as
// necessary conditions only: a history that shows none is still searched).
// It returns the completed op that cannot take effect (-1: no pattern) and
// why. It applies to the built-in queue, also through Localize's
// locFixedModel, for linearizability and for quasi-linearizability with
// every bound 0 in exact mode (the same condition: the relaxation at 0 is
// the spec, docs/verdicts.md §2.2). The search of a long history meets such
// a violation only after thousands of operations and then has to exhaust
// every linearization of the prefix before it: a swapped pair planted after
// operation 3,000 of 12,000 was undecided at 20 s.
//
// Notation: a linearization L is a total order of the completed ops and
// some pending ones that respects real time (o precedes p when o returns
// before p is invoked, o.ret < p.call; then o is before p in L) and is a
// run of the queue. A pending op has no return: it precedes nothing. In a
// run of the queue each dequeue of v removes the copy at the head, put by
// an enqueue of v before it, and each copy is removed at most once.
//
//   - P1 (more dequeues than enqueues): the completed dequeues of v in
//     return order r_1 <= r_2 <= ...; the k-th needs at least k enqueues of
//     v invoked no later than r_k. Proof: the first k by return are in
//     every L, each after the enqueue of the copy it removes, k distinct
//     enqueues; one invoked after r_k would follow, in real time, the
//     dequeue D_i (i <= k, ret(D_i) <= r_k) that comes after it in L. (A
//     value never enqueued is the case k = 1.)
//   - P2 (FIFO order): a and b enqueued once each, by E_a and E_b, with
//     E_a preceding E_b, and b removed by a completed D_b; if every op that
//     may remove a (a completed or pending dequeue returning a, or a pending
//     dequeue with an unknown result) is invoked after D_b returns (or
//     there is none), no L exists. Proof: in L, E_a comes before E_b, so
//     when D_b removes b from the head, a (put ahead of b) has been removed
//     already, by some op R before D_b in L; R is one that may remove a and
//     D_b precedes it in real time, so it cannot come before D_b in L.
//   - P3 (an empty dequeue with the queue surely non-empty): a completed
//     dequeue d that returned null, and values x_1 .. x_n, each enqueued
//     once (E_i, completed), with E_1 preceding d, E_(i+1) preceding every
//     op that may remove x_i, and d preceding every op that may remove x_n
//     (or none may). Proof: x_i is in the queue from E_i to its removal R_i
//     in L (or to the end); E_(i+1) is before R_i in L. Let i be the last
//     with E_i before d in L (i >= 1: E_1 precedes d). If i = n, R_n is
//     after d (real time), so x_n is in the queue at d; if i < n, E_(i+1)
//     is after d and R_i after E_(i+1), so x_i is. Either way d does not
//     find the queue empty. (HSV's chain of one value, "enqueued before d
//     and removed after it", is n = 1.)
//
// With dcall(x) the least call of the ops that may remove x (+inf if
// none) and M(t) the largest dcall(x) over the values whose enqueue
// returns before t, P2 is M(E_b.call) > D_b.ret, and P3 holds iff the
// fixpoint of t -> max(t, M(t)) from d.call exceeds d.ret (each step
// follows a chain one value further, taking the one whose removal comes
// latest). Cost: O(n log n), plus the chain steps, each to a removal
// invoked while d runs.
func queueViolation(ops []Op, m Model, q *relax.Config) (int, string) {
	if q != nil && (q.Mode != relax.Exact || !zeroBounds(q)) {
		return -1, ""
	}
	if f, ok := m.(*locFixedModel); ok {
		m, ops = f.m, f.fixAll(ops)
	}
	cm, ok := m.(containerModel)
	if !ok || cm.kind != cQueue {
		return -1, ""
	}
	cops, err := cm.compileOps(ops)
	if err != nil {
		return -1, "" // the compile that follows reports it
	}
	const inf = int64(1<<63 - 1)
	puts := map[int64][]int32{}  // value -> its enqueues
	takes := map[int64][]int32{} // value -> its completed dequeues
	dcall := map[int64]int64{}   // value -> least call of a dequeue returning it
	anyCall := inf               // least call of a pending dequeue with an unknown result
	var empties []int32
	for i := range cops {
		c, pending := &cops[i], ops[i].Return == Pending
		switch {
		case c.code == coPut:
			puts[c.arg] = append(puts[c.arg], int32(i))
		case c.info:
			anyCall = min(anyCall, ops[i].Call)
		case c.empty:
			if !pending {
				empties = append(empties, int32(i))
			}
		default:
			if d, ok := dcall[c.res]; !ok || ops[i].Call < d {
				dcall[c.res] = ops[i].Call
			}
			if !pending {
				takes[c.res] = append(takes[c.res], int32(i))
			}
		}
	}
	best, why := -1, ""
	found := func(d int, w string) {
		if best < 0 || ops[d].Call < ops[best].Call || ops[d].Call == ops[best].Call && d < best {
			best, why = d, w
		}
	}
	// P1.
	vals := make([]int64, 0, len(takes))
	for v := range takes {
		vals = append(vals, v)
	}
	slices.Sort(vals) // deterministic reports
	for _, v := range vals {
		ds, es := takes[v], slices.Clone(puts[v])
		slices.SortFunc(ds, func(a, b int32) int { return cmp.Or(cmp.Compare(ops[a].Return, ops[b].Return), cmp.Compare(a, b)) })
		slices.SortFunc(es, func(a, b int32) int { return cmp.Compare(ops[a].Call, ops[b].Call) })
		for k, d := range ds {
			n := 0 // enqueues invoked no later than d returns
			for n < len(es) && (ops[es[n]].Call <= ops[d].Return) != (queueMutant == 3 && ops[es[n]].Call == ops[d].Return) {
				n++
			}
			if n <= k {
				if len(es) == 0 {
					found(int(d), fmt.Sprintf("the history has no enq(%d)", v))
				} else {
					found(int(d), fmt.Sprintf("it is dequeue %d of %d, and only %d enqueue(s) of %d are invoked before it returns", k+1, v, n, v))
				}
				break
			}
		}
	}
	// The values enqueued once, by a completed op, by return time, with
	// prefix maxima of dcall (M).
	type ent struct {
		ret, dcall int64
		put        int32
	}
	var byRet []ent
	for v, es := range puts {
		if len(es) != 1 || ops[es[0]].Return == Pending {
			continue
		}
		d, ok := dcall[v]
		if !ok {
			d = inf
		}
		byRet = append(byRet, ent{ops[es[0]].Return, min(d, anyCall), es[0]})
	}
	slices.SortFunc(byRet, func(a, b ent) int { return cmp.Or(cmp.Compare(a.ret, b.ret), cmp.Compare(a.put, b.put)) })
	arg := make([]int32, len(byRet)) // index of the prefix maximum
	for i := range byRet {
		arg[i] = int32(i)
		if i > 0 && byRet[arg[i-1]].dcall >= byRet[i].dcall {
			arg[i] = arg[i-1]
		}
	}
	// M(t): the entry of the largest dcall among returns before t (-1: none).
	mOf := func(t int64) int {
		k, _ := slices.BinarySearchFunc(byRet, t, func(e ent, t int64) int { return cmp.Compare(e.ret, t) })
		if queueMutant == 1 { // returns at t too: concurrent ops taken for ordered
			for k < len(byRet) && byRet[k].ret == t {
				k++
			}
		}
		if k == 0 {
			return -1
		}
		return int(arg[k-1])
	}
	removal := func(e ent) string {
		if e.dcall == inf {
			return "no operation dequeues it"
		}
		return "no dequeue that may return it is invoked before this one returns"
	}
	// P2.
	for _, v := range vals {
		es := puts[v]
		if len(es) != 1 {
			continue
		}
		a := mOf(ops[es[0]].Call)
		if a < 0 {
			continue
		}
		for _, d := range takes[v] {
			if byRet[a].dcall > ops[d].Return {
				ea := &ops[byRet[a].put]
				found(int(d), fmt.Sprintf("%s (%s) precedes %s's enqueue, and %s, so a FIFO queue cannot dequeue %d first", ea.String(), lineOf(ea), Int(v), removal(byRet[a]), v))
			}
		}
	}
	// P3.
	for _, d := range empties {
		t, a := ops[d].Call, -1
		for {
			k := mOf(t)
			if k < 0 || byRet[k].dcall <= t {
				break
			}
			t, a = byRet[k].dcall, k
			if t > ops[d].Return || queueMutant == 2 && t == ops[d].Return {
				break
			}
		}
		if a >= 0 && (t > ops[d].Return || queueMutant == 2 && t == ops[d].Return) {
			x := &ops[byRet[a].put]
			found(int(d), fmt.Sprintf("the queue cannot be empty while it runs: from a value enqueued before it, each value enqueued before the previous one's dequeue can be invoked, up to %s (%s), and %s", x.String(), lineOf(x), removal(byRet[a])))
		}
	}
	return best, why
}

// queueMutant, for tests only, replaces a pattern by a wrong one that the
// brute-force comparison must catch: 1 P2 and P3 taking an enqueue that
// returns when the other op is invoked for one that precedes it, 2 P3
// refuting when the chain's last removal may be invoked as d returns, 3
// P1 counting only the enqueues invoked strictly before the dequeue
// returns.
var queueMutant = 0

// queueUnusable finds the pending dequeues of a queue history (same
// setting as queueViolation) that take effect in no linearization: those
// with a known result v (Localize's prefix ops, locFixedModel) when the
// completed dequeues of v are at least as many as the enqueues of v.
// Proof: every completed op is in a linearization L, each dequeue of v in
// L removes a distinct copy of v put by an enqueue of v in L, so the
// completed ones already use as many copies as can exist. Dropping such
// ops leaves the same linearizations; it restores the distinct values
// that the pruning (queuePrune, quasiMachine) needs when a planted
// duplicate is pending at a prefix's cut (a 4,949-op prefix took 500,000
// states before).
func queueUnusable(ops []Op, m Model, q *relax.Config) []int {
	if q != nil && (q.Mode != relax.Exact || !zeroBounds(q)) {
		return nil
	}
	if f, ok := m.(*locFixedModel); ok {
		m, ops = f.m, f.fixAll(ops)
	}
	cm, ok := m.(containerModel)
	if !ok || cm.kind != cQueue {
		return nil
	}
	cops, err := cm.compileOps(ops)
	if err != nil {
		return nil
	}
	supply := map[int64]int{} // enqueues minus completed dequeues, by value
	var cand []int
	for i := range cops {
		c := &cops[i]
		switch {
		case c.code == coPut:
			supply[c.arg]++
		case c.code != coTake || c.info || c.empty:
		case ops[i].Return == Pending:
			cand = append(cand, i)
		default:
			supply[c.res]--
		}
	}
	var out []int
	for _, i := range cand {
		if supply[cops[i].res] <= 0 {
			out = append(out, i)
		}
	}
	return out
}
