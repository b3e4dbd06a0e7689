package history

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/quasar-verify/quasar/lts"
)

// Localization is a violation cut down to a minimal test case in the sense
// of CGVT (Zhang, Wu, Zhang, "Localization of Linearizability Faults on
// the Coarse-grained Level"; SEMANTICS.md §3): a sequential prefix that sets up
// the state, a concurrent core that triggers the fault, and a sequential
// suffix that reveals it.
//
// Localize computes it in two steps.
//
//  1. The shortest violating prefix. Events (invocations and completions)
//     are ordered by time, invocations before completions at equal times.
//     The prefix of n events keeps the operations invoked among them; an
//     operation whose completion is not among them is pending. Acceptance
//     (linearizability, and quasi-linearizability in open mode) is closed
//     under prefixes (CGVT's Theorem 1), so violation is monotone in n: a
//     galloping search (n = 16, 32, 64, ... until a prefix violates, then
//     bisection) finds the least violating n with O(log n) checks, and
//     checks only short prefixes when the violation is early, as it
//     usually is in stress tests. Its last event is the completion of the
//     revealing operation.
//  2. A minimal violating sub-history of that prefix, by delta debugging:
//     remove chunks of removable units, halving the chunk size, while the
//     rest still violates, then single units until none can go (the result
//     is 1-minimal: removing any one unit makes it acceptable).
//
// Units. Removing one operation can invent a violation (drop enq(5) and a
// dequeue that returned 5 is unexplained). So operations connected by a
// value (an argument of one is a result or argument of another: enq(5),
// deq() -> 5; write(1), read() -> 1; a list argument counts each element)
// form one unit and are removed together; nil and booleans connect
// nothing. For queues, stacks, sets and registers removing a whole unit
// from a linearizable history leaves it linearizable, so the violation that
// remains is one of the original history.
//
// The remaining operations are split at their quiescent points (instants
// at which none of them is running) into blocks. Blocks of one operation
// before the first block with overlapping operations form the sequential
// prefix, those after the last such block the revealing suffix, and the
// blocks in between the concurrent core. A violation without overlapping
// operations has an empty core and the last operation as its suffix: the
// observable results are wrong even though none overlap in the test case
// (e.g. a push lost by a racy pop elsewhere, revealed by an empty pop).
//
// The test case (Ops) is re-checked from scratch before it is returned; its
// Result is that check. Operations keep their IDs, times and results.
type Localization struct {
	// Verdict is Invalid when a test case was found; Valid if the history
	// is not violating (nothing to localise); Unknown if a check hit a limit
	// (Reason says which).
	Verdict lts.Verdict
	Reason  string

	// The shortest violating prefix: its number of events and operations,
	// and the revealing operation (ID) whose completion ends it.
	PrefixEvents, PrefixOps int
	Revealing               int

	// The minimal test case: op IDs of the sequential prefix (in order),
	// the concurrent core (by invocation) and the revealing suffix.
	Sequential, Core, Suffix []int
	// Ops is the test case as a sub-history (by invocation), and Result
	// its check from scratch (Invalid).
	Ops    []Op
	Result *Result
	// Checks is the number of history checks Localize ran.
	Checks int
}

// Size is the number of operations of the test case.
func (l *Localization) Size() int { return len(l.Ops) }

// Localize finds the shortest violating prefix of h and a minimal test case
// inside it (see Localization). opt is used for every check; with
// opt.Quasi in complete mode, which is not prefix-closed, the prefix step
// uses open mode when the history violates it, and otherwise keeps the
// whole history.
func Localize(ctx context.Context, h *History, m Model, opt Options) (*Localization, error) {
	return LocalizeOps(ctx, h.Ops, m, opt)
}

// LocalizeOps is Localize on a slice of operations with any IDs.
func LocalizeOps(ctx context.Context, all []Op, m Model, opt Options) (*Localization, error) {
	l := &Localization{Revealing: -1}
	ops := make([]Op, 0, len(all))
	for _, o := range all {
		if o.Status == Fail {
			continue // did not happen
		}
		if o.Status == Info || o.Return == Pending {
			o.Status, o.Return = Info, Pending
		}
		ops = append(ops, o)
	}
	check := func(sub []Op, o Options) (*Result, error) {
		l.Checks++
		return CheckOps(ctx, sub, m, o)
	}

	full, err := check(ops, opt)
	if err != nil {
		return nil, err
	}
	if full.Verdict != lts.Invalid {
		l.Verdict, l.Reason = full.Verdict, full.Reason
		if full.Verdict == lts.Valid {
			l.Reason = "the history is not violating"
		}
		return l, nil
	}

	// Step 1: the shortest violating prefix.
	popt := opt
	prefixClosed := true
	if opt.Quasi != nil && opt.Quasi.Complete {
		q := *opt.Quasi
		q.Complete = false
		popt.Quasi = &q
		r, err := check(ops, popt)
		if err != nil {
			return nil, err
		}
		switch r.Verdict {
		case lts.Unknown:
			l.Verdict, l.Reason = lts.Unknown, r.Reason
			return l, nil
		case lts.Valid:
			prefixClosed, popt = false, opt // only the end violates
		}
	}
	evs := events(ops)
	prefix := ops
	l.PrefixEvents = len(evs)
	if prefixClosed {
		// Galloping search: prefixes of 16, 32, 64, ... events until one
		// violates, then bisection. Violations found by stress tests are
		// usually early, and short prefixes are cheap to check, while a
		// late violation costs at most twice the checks of bisection.
		lo, hi := 0, len(evs) // prefix(lo) accepted, prefix(hi) violating
		next := func() int {  // the next prefix length to try
			if n := max(16, 2*lo); hi == len(evs) && n < hi {
				return n // galloping: no violating prefix found yet
			}
			return lo + (hi-lo)/2
		}
		for hi-lo > 1 {
			n := next()
			r, err := check(prefixOps(ops, evs, n), popt)
			if err != nil {
				return nil, err
			}
			switch r.Verdict {
			case lts.Invalid:
				hi = n
			case lts.Valid:
				lo = n
			default:
				l.Verdict, l.Reason = lts.Unknown, "shortest prefix: "+r.Reason
				return l, nil
			}
		}
		l.PrefixEvents = hi
		prefix = prefixOps(ops, evs, hi)
		if last := evs[hi-1]; last.ret {
			l.Revealing = ops[last.op].ID
		}
	} else if n := len(evs); n > 0 && evs[n-1].ret {
		l.Revealing = ops[evs[n-1].op].ID
	}
	l.PrefixOps = len(prefix)

	// Step 2: delta debugging over units.
	units := unitsOf(prefix)
	violates := func(keep [][]int) (bool, error) {
		r, err := check(gather(prefix, keep), popt)
		if err != nil {
			return false, err
		}
		return r.Verdict == lts.Invalid, nil // Unknown keeps the units: conservative
	}
	for chunk := len(units) / 2; chunk >= 1; chunk /= 2 {
		for i := 0; i < len(units) && len(units) > 1; {
			end := min(i+chunk, len(units))
			rest := append(append([][]int(nil), units[:i]...), units[end:]...)
			ok, err := violates(rest)
			if err != nil {
				return nil, err
			}
			if ok {
				units = rest
			} else {
				i = end
			}
		}
		if chunk == 1 {
			break
		}
	}
	for changed := true; changed && len(units) > 1; {
		changed = false
		for i := 0; i < len(units) && len(units) > 1; i++ {
			rest := append(append([][]int(nil), units[:i]...), units[i+1:]...)
			ok, err := violates(rest)
			if err != nil {
				return nil, err
			}
			if ok {
				units, changed = rest, true
				i--
			}
		}
	}

	// Re-check the test case from scratch, as reported.
	tc := gather(prefix, units)
	res, err := check(tc, popt)
	if err != nil {
		return nil, err
	}
	if res.Verdict != lts.Invalid {
		l.Verdict = lts.Unknown
		l.Reason = fmt.Sprintf("internal error: the minimal test case is %v when re-checked", res.Verdict)
		return l, nil
	}
	l.Verdict, l.Reason, l.Ops, l.Result = lts.Invalid, res.Reason, tc, res
	l.Sequential, l.Core, l.Suffix = split(tc)
	return l, nil
}

// hevent is an invocation or completion of ops[op].
type hevent struct {
	t   int64
	ret bool
	op  int
}

// events orders invocations and completions by time, invocations first at
// equal times (equal times are concurrent), then by op index.
func events(ops []Op) []hevent {
	evs := make([]hevent, 0, 2*len(ops))
	for i, o := range ops {
		evs = append(evs, hevent{o.Call, false, i})
		if o.Return != Pending {
			evs = append(evs, hevent{o.Return, true, i})
		}
	}
	slices.SortFunc(evs, func(a, b hevent) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		if a.ret != b.ret {
			if a.ret {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.op, b.op)
	})
	return evs
}

// prefixOps is the sub-history of the first n events: operations invoked
// among them, pending if their completion is not. A pending operation with
// values (arguments or results) none of which a completed operation of the
// prefix mentions is left out: it cannot explain an observed result (an
// enqueue whose value nobody dequeued yet), while keeping it lets the
// search place it anywhere, which on busy histories (a pending enqueue per
// goroutine) multiplies the states by the orders of those enqueues.
// Pending operations without values (a dequeue) are kept.
func prefixOps(ops []Op, evs []hevent, n int) []Op {
	in := make([]int8, len(ops)) // 1 invoked, 2 completed
	for _, e := range evs[:n] {
		if e.ret {
			in[e.op] = 2
		} else {
			in[e.op] = 1
		}
	}
	seen := map[string]bool{}
	for i, o := range ops {
		if in[i] == 2 {
			forAtoms(o.Input, func(k string) { seen[k] = true })
			if o.Status == Ok {
				forAtoms(o.Output, func(k string) { seen[k] = true })
			}
		}
	}
	var out []Op
	for i, o := range ops {
		switch in[i] {
		case 1:
			atoms, mentioned := 0, false
			forAtoms(o.Input, func(k string) { atoms++; mentioned = mentioned || seen[k] })
			if atoms > 0 && !mentioned {
				continue
			}
			o.Status, o.Return = Info, Pending
			out = append(out, o)
		case 2:
			out = append(out, o)
		}
	}
	return out
}

// forAtoms calls fn with the key of each integer or string in v (lists are
// walked; nil and booleans are not values that connect operations).
func forAtoms(v Value, fn func(string)) {
	switch v.Kind() {
	case IntKind, StringKind:
		fn(v.String())
	case ListKind:
		l, _ := v.List()
		for _, e := range l {
			forAtoms(e, fn)
		}
	}
}

// unitsOf groups the operations (indices) connected by a value, in order
// of their first operation.
func unitsOf(ops []Op) [][]int {
	parent := make([]int, len(ops))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := map[string]int{}
	link := func(i int, v Value) {
		forAtoms(v, func(k string) {
			if j, ok := owner[k]; ok {
				a, b := find(i), find(j)
				if a != b {
					parent[max(a, b)] = min(a, b)
				}
			} else {
				owner[k] = i
			}
		})
	}
	for i := range ops {
		link(i, ops[i].Input)
		if ops[i].Status == Ok {
			link(i, ops[i].Output)
		}
	}
	byRoot := map[int]int{}
	var units [][]int
	for i := range ops {
		r := find(i)
		u, ok := byRoot[r]
		if !ok {
			u = len(units)
			byRoot[r] = u
			units = append(units, nil)
		}
		units[u] = append(units[u], i)
	}
	return units
}

// gather returns the operations of the units, in their original order.
func gather(ops []Op, units [][]int) []Op {
	var idx []int
	for _, u := range units {
		idx = append(idx, u...)
	}
	slices.Sort(idx)
	out := make([]Op, len(idx))
	for k, i := range idx {
		out[k] = ops[i]
	}
	return out
}

// split cuts the test case at its quiescent points (see Localization) and
// returns the op IDs of the sequential prefix, the core and the suffix.
func split(ops []Op) (seq, core, suffix []int) {
	evs := events(ops)
	var blocks [][]int
	open := 0
	var cur []int
	for _, e := range evs {
		if e.ret {
			open--
		} else {
			open++
			cur = append(cur, e.op)
		}
		if open == 0 {
			blocks = append(blocks, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		blocks = append(blocks, cur) // ends with pending operations
	}
	first, last := -1, -1
	for b, blk := range blocks {
		if len(blk) > 1 {
			if first < 0 {
				first = b
			}
			last = b
		}
	}
	ids := func(bs [][]int) []int {
		var out []int
		for _, b := range bs {
			for _, i := range b {
				out = append(out, ops[i].ID)
			}
		}
		return out
	}
	if first < 0 {
		// Sequential violation: the last operation reveals it.
		return ids(blocks[:len(blocks)-1]), nil, ids(blocks[len(blocks)-1:])
	}
	return ids(blocks[:first]), ids(blocks[first : last+1]), ids(blocks[last+1:])
}
