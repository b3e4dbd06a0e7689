package history

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/quasar-verify/quasar/relax"
)

// strandedQueue refutes, without a search, a queue history checked with
// every event in one class of bound Q (--quasi Q: exact mode, no barrier)
// in which a value is stranded while later values keep flowing. It applies
// to queues with distinct values (each put at most once, each removed by
// at most one completed op, no pending removal) and returns the completed
// dequeue that cannot take effect (-1 if the rule does not fire) and why.
//
// Rule (proof). Let v be put by a completed op e_v and removed by none,
// and w put by a completed op e_w and removed by a completed op d_w. Take
// any accepted linearization τ of N events and its spec run σ with map f
// (relax/doc.go's characterisation (D); one class, so a position's rank is
// its index). If e_w is at least 2Q+1 places after e_v in τ, then σ puts w
// after v: rank_σ(f(e_w)) >= t_w - Q > t_v + Q >= rank_σ(f(e_v)). σ is a
// queue run, so it removes v before w; no op removes v, so that removal is
// a pending position p of σ, and (D) asks rank_σ(p) + Q >= N. Then d_w,
// after p in σ, has rank_σ(f(d_w)) >= N - Q + 1, and (D) for d_w gives its
// place t >= rank_σ(f(d_w)) - Q >= N - 2Q + 1: at most 2Q - 2 events of τ
// follow d_w. Real time forces events between and after: if e_v returns
// before e_w is invoked and at least 2Q completed ops are invoked after e_v
// returns and return before e_w is invoked, e_w is 2Q+1 places after e_v
// or more; if at least 2Q - 1
// completed ops are invoked after d_w returns, more than 2Q - 2 events
// follow d_w. Both together contradict every τ: the history is not
// quasi-linearizable at Q (open mode, and so complete mode).
//
// The earliest-returning stranded put leaves the most ops after it, so it
// is the only v tried; every w is tried, in O(n log n).
func strandedQueue(ops []Op, m Model, q *relax.Config) (int, string) {
	cm, ok := m.(containerModel)
	if !ok || cm.kind != cQueue || q == nil || q.Mode != relax.Exact || len(q.Classes) > 0 || len(q.Barriers) > 0 || q.All > 1<<20 {
		return -1, ""
	}
	bound := q.All
	cops, err := cm.compileOps(ops)
	if err != nil {
		return -1, ""
	}
	put := map[int64]int{}   // value -> its put
	taken := map[int64]int{} // value -> its completed removal
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
			if !c.empty {
				if _, dup := taken[c.res]; dup {
					return -1, ""
				}
				taken[c.res] = i
			}
		}
	}
	// The stranded put that returns first.
	v := -1
	for x, i := range put {
		if _, ok := taken[x]; !ok && ops[i].Status == Ok && (v < 0 || ops[i].Return < ops[v].Return || ops[i].Return == ops[v].Return && i < v) {
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
		if ops[i].Status != Ok {
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
		if !ok || ops[ew].Status != Ok {
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
