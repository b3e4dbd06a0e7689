package history

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// Rank windows. With every event in one relaxed class of bound Q and no
// barrier (`--quasi Q`), a fresh event of the relaxed automaton may pull
// any spec path of up to Q events, and the spec of a history's queue
// enables every enqueue of every value everywhere: on a prefix of a
// 10,000-op history (500 values) one step enumerates 500^3 paths and hits
// relax's expansion limit. Most of those paths pull events that no
// operation can perform at that point of the spec run. rankedSpec is the
// spec restricted to the events that may occur at each class rank of the
// spec run σ, and relaxing it accepts exactly the linearizations that the
// relaxed spec accepts.
//
// Proof, from the declarative characterisation of exact mode (relax/doc.go;
// with one class, the class rank of a position is its index). Let τ be a
// linearization of the history (every completed op, some pending ones;
// real-time order respected), n its length and N the number of completed
// ops (n >= N). For op i let lo(i) be the number of completed ops that
// return before i is called and hi(i) the number of other ops called no
// later than i returns (n-1 if i is pending). The ops of lo(i) precede i in
// real time, so they come before i in τ; an op called after i returns comes
// after it. So i's index t in τ is in [lo(i), hi(i)]. If τ is admitted,
// with spec run σ and map f:
//
//   - (D) a position f(t) of σ holding op i's event has rank within Q of
//     t, so in [lo(i) - Q, hi(i) + Q];
//   - (D) a pending position p (no op's) has rank(p) + Q >= n >= N, so
//     rank(p) >= N - Q (open mode; complete mode has none: f is onto).
//
// So σ is a run of rankedSpec, which lets event e occur at rank r iff r
// is in the window of some op that can perform e (its event; for a
// pending op, any event its pattern matches), or r >= N - Q; and (σ, f)
// admits τ for the relaxation of rankedSpec. Conversely rankedSpec's runs
// are spec runs (it is the spec in product with a counter that only
// refuses events), so a witness for it is a witness for the spec: the
// verdicts are equal. Windows are kept as one interval per event (the
// hull of its ops' windows), which only allows more. The rank of σ after
// reading τ_0..τ_t is t+1 plus the obligations owed, a function of the
// search's (linearized set, relaxed state): the product splits no memo
// entry of the search.
type rankedSpec struct {
	inner   lts.Automaton
	lo, hi  []int // by event: the allowed ranks (lo > hi: none but phantoms)
	phantom int   // ranks from which any event may occur
	ids     map[uint64]lts.State
	sparse  [][]stepPair  // by state: (event, 1 + the target or 0: none), if dense == 0
	rows    [][]lts.State // the same, by state and event, if dense > 0
	dense   int           // the number of events, if small
	spec    []lts.State   // by state: the inner state
	rank    []int         // by state: the class rank of σ reached
	tmp     []lts.State
}

// windowing reports whether q relaxes every event in one class with no
// barrier (rank windows apply).
func windowing(q *relax.Config) bool {
	return q.Mode == relax.Exact && len(q.Classes) == 0 && q.All > 0 && len(q.Barriers) == 0 && rankWindows
}

// rankWindows enables rankedSpec (tests compare with and without).
var rankWindows = true

// newRankedSpec restricts a (the spec of the history ops, whose events
// mc names) to the rank windows of bound q; complete: no pending position.
func newRankedSpec(a lts.Automaton, mc *automatonMachine, ops []Op, q int, complete bool) *rankedSpec {
	n := len(ops)
	// An op is pending (it may stay out of τ) by its status, whatever
	// the model's view of its event: Localize's fixed model gives a
	// pending op the result it returned later (mc.info false).
	pending := func(i int) bool { return ops[i].Status == Info || ops[i].Return == Pending }
	var calls, rets []int64
	for i := range ops {
		calls = append(calls, ops[i].Call)
		if !pending(i) {
			rets = append(rets, ops[i].Return)
		}
	}
	slices.Sort(calls)
	slices.Sort(rets)
	table := a.Events()
	ne := table.Len()
	rs := &rankedSpec{inner: a, lo: make([]int, ne), hi: make([]int, ne), ids: map[uint64]lts.State{}}
	if ne <= 64 {
		rs.dense = ne
	}
	for e := range rs.lo {
		rs.lo[e], rs.hi[e] = math.MaxInt, math.MinInt
	}
	skew := 0
	if quasiMutant == 8 {
		skew = 1 // a deliberately wrong window, for the tests
	}
	widen := func(e lts.Event, lo, hi int) {
		rs.lo[e], rs.hi[e] = min(rs.lo[e], lo-q+skew), max(rs.hi[e], hi+q)
	}
	for i := range ops {
		// lo: completed ops returning strictly before i's call; hi: the
		// other ops called no later than i returns.
		lo, _ := slices.BinarySearch(rets, ops[i].Call)
		hi := n - 1
		if !pending(i) {
			c, _ := slices.BinarySearch(calls, ops[i].Return+1)
			hi = c - 1
		}
		if !mc.info[i] {
			if mc.events[i] != lts.Tau {
				widen(mc.events[i], lo, hi)
			}
			continue
		}
		for e := lts.Event(1); int(e) < ne; e++ {
			if mc.patterns[i].Match(table, e) {
				widen(e, lo, hi)
			}
		}
	}
	rs.phantom = len(rets) - q
	if complete {
		rs.phantom = math.MaxInt
	}
	return rs
}

func (rs *rankedSpec) allowed(e lts.Event, r int) bool {
	return r >= rs.phantom || int(e) < len(rs.lo) && rs.lo[e] <= r && r <= rs.hi[e]
}

func (rs *rankedSpec) intern(s lts.State, r int) lts.State {
	k := uint64(s)<<32 | uint64(r)
	if id, ok := rs.ids[k]; ok {
		return id
	}
	id := lts.State(len(rs.spec))
	rs.ids[k] = id
	rs.spec = append(rs.spec, s)
	rs.rank = append(rs.rank, r)
	return id
}

func (rs *rankedSpec) Events() *lts.EventTable { return rs.inner.Events() }

func (rs *rankedSpec) Start(buf []lts.State) []lts.State {
	for _, s := range rs.inner.Start(nil) {
		buf = append(buf, rs.intern(s, 0))
	}
	return buf
}

func (rs *rankedSpec) Step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	r := rs.rank[s]
	if !rs.allowed(e, r) {
		return buf, nil
	}
	// The relaxed automaton's pull walks step the same spec states on
	// the same events over and over: a deterministic step is memoised.
	if t := rs.cached(s, e); t != unknownStep {
		if t == 0 {
			return buf, nil
		}
		return append(buf, t-1), nil
	}
	var err error
	rs.tmp, err = rs.inner.Step(rs.spec[s], e, rs.tmp[:0])
	if err != nil {
		return buf, err
	}
	for _, t := range rs.tmp {
		buf = append(buf, rs.intern(t, r+1))
	}
	switch len(rs.tmp) {
	case 0:
		rs.remember(s, e, 0)
	case 1:
		rs.remember(s, e, buf[len(buf)-1]+1)
	}
	return buf, nil
}

// unknownStep marks a step not memoised yet.
const unknownStep = ^lts.State(0)

// cached is the memoised step of s on e: 1 + the target, 0 if none, or
// unknownStep. Small alphabets use a dense row per state, large ones a map.
func (rs *rankedSpec) cached(s lts.State, e lts.Event) lts.State {
	if rs.dense > 0 {
		if int(s) < len(rs.rows) && rs.rows[s] != nil {
			return rs.rows[s][e]
		}
		return unknownStep
	}
	if int(s) < len(rs.sparse) {
		for _, p := range rs.sparse[s] {
			if p.e == e {
				return p.t
			}
		}
	}
	return unknownStep
}

// stepPair is a memoised step of rankedSpec (sparse form): a state steps
// on few events, so a short list beats a large map.
type stepPair struct {
	e lts.Event
	t lts.State
}

func (rs *rankedSpec) remember(s lts.State, e lts.Event, t lts.State) {
	if rs.dense == 0 {
		for int(s) >= len(rs.sparse) {
			rs.sparse = append(rs.sparse, nil)
		}
		rs.sparse[s] = append(rs.sparse[s], stepPair{e, t})
		return
	}
	for int(s) >= len(rs.rows) {
		rs.rows = append(rs.rows, nil)
	}
	if rs.rows[s] == nil {
		row := make([]lts.State, rs.dense)
		for i := range row {
			row[i] = unknownStep
		}
		rs.rows[s] = row
	}
	rs.rows[s][e] = t
}

func (rs *rankedSpec) filter(s lts.State, buf []lts.Event, start int) []lts.Event {
	out := buf[:start]
	for _, e := range buf[start:] {
		if rs.allowed(e, rs.rank[s]) {
			out = append(out, e)
		}
	}
	return out
}

func (rs *rankedSpec) Enabled(s lts.State, buf []lts.Event) ([]lts.Event, error) {
	start := len(buf)
	buf, err := rs.inner.Enabled(rs.spec[s], buf)
	return rs.filter(s, buf, start), err
}

// EnabledMatching: relax.PatternEnabler, when the inner spec is one.
func (rs *rankedSpec) EnabledMatching(s lts.State, p lts.Pattern, buf []lts.Event) ([]lts.Event, error) {
	start := len(buf)
	var err error
	if pe, ok := rs.inner.(relax.PatternEnabler); ok {
		buf, err = pe.EnabledMatching(rs.spec[s], p, buf)
	} else {
		buf, err = rs.inner.Enabled(rs.spec[s], buf)
		out := buf[:start]
		for _, e := range buf[start:] {
			if p.Match(rs.inner.Events(), e) {
				out = append(out, e)
			}
		}
		buf = out
	}
	return rs.filter(s, buf, start), err
}

// Obligations. In the same configuration (every event in one class of
// bound Q, no barrier), windowMachine prunes the search's states whose
// obligations cannot all be met. An obligation (e, s) of the relaxed
// state (relax/doc.go: the spec performed e ahead; slack s) fails unless
// e is read within the next s class events: every other class read ages
// it, and the read that finds it at slack 1 fails. Reading e discharges
// the least-slack obligation for e, so m obligations of e need m reads of
// e. Every op is a class read, so if R, the number of completed ops not
// yet linearized, is at least s, at least s more reads come and (e, s)
// must be discharged by one of the next s: by an op j not yet linearized
// that can perform e and has at most s-1 completed, not linearized ops
// before it in real time (they all come first). Hence, with m_e the
// obligations of e of slack at most R and S_e their largest slack, a live
// state has at least m_e such ops j with pred(j) <= S_e - 1 for every e;
// otherwise no completion is accepted and the state is dead. The rule
// depends only on the linearized set and the state (the memo stays
// exact).
type windowMachine struct {
	*automatonMachine
	r        *relax.Relaxed
	ops      []Op
	complete []uint64  // completed ops
	by       [][]int32 // by event: the ops that can perform it
	obs      []relax.Obligation
	near     []int64 // scratch: the smallest returns of the ops left
	sorted   bool    // ops are in call order

	// Queues: the rules of quasitail.go (nil if they do not apply; built
	// on first use, see rules), and the context of stepIn for MayPull.
	tr       *tailRules
	trDone   bool
	trSpec   lts.Automaton
	trRanked *rankedSpec
	fLin     []uint64
	fOp      int32
	fLeft    int
	fFirst   int     // the first op not linearized
	fNear    []int64 // the 2Q-1 smallest returns of the completed ops left
}

// newWindowMachine builds the machine; spec is the automaton of the ops
// and rs its rank-window restriction, which r relaxes.
func newWindowMachine(mc *automatonMachine, r *relax.Relaxed, ops []Op, spec lts.Automaton, rs *rankedSpec) *windowMachine {
	w := &windowMachine{automatonMachine: mc, r: r, ops: ops, complete: make([]uint64, (len(ops)+63)/64)}
	w.trSpec, w.trRanked = spec, rs
	w.sorted = slices.IsSortedFunc(ops, func(a, b Op) int { return cmp.Compare(a.Call, b.Call) })
	table := r.Events()
	w.by = make([][]int32, table.Len())
	for i := range ops {
		if ops[i].Status != Info && ops[i].Return != Pending {
			w.complete[i/64] |= 1 << (i % 64)
		}
		if !mc.info[i] {
			if e := mc.events[i]; e != lts.Tau {
				w.by[e] = append(w.by[e], int32(i))
			}
			continue
		}
		for e := lts.Event(1); int(e) < table.Len(); e++ {
			if mc.patterns[i].Match(table, e) {
				w.by[e] = append(w.by[e], int32(i))
			}
		}
	}
	return w
}

// Viable implements Pruner (see windowMachine).
func (w *windowMachine) Viable(s State, lin []uint64) bool {
	if tr := w.rules(); tr != nil && !tr.live(w.r, lts.State(s), lin) {
		return false
	}
	var ok bool
	_, w.obs, ok = w.r.ExactState(lts.State(s), w.obs[:0])
	if !ok || len(w.obs) == 0 {
		return true
	}
	left := 0 // R: completed ops not linearized
	for k, c := range w.complete {
		left += bits.OnesCount64(c &^ lin[k])
	}
	most := 0
	for _, o := range w.obs {
		if o.Slack <= left {
			most = max(most, o.Slack)
		}
	}
	if most == 0 {
		return true
	}
	// The most smallest returns of the completed ops left: op j has at
	// most S-1 of them before it iff fewer than S return before its call.
	near := w.near[:0]
	for k, c := range w.complete {
		for u := c &^ lin[k]; u != 0; u &= u - 1 {
			i := k*64 + bits.TrailingZeros64(u)
			if w.sorted && len(near) == most && w.ops[i].Call > near[most-1] {
				goto done // calls grow with i: no smaller return follows
			}
			near = insertSmallest(near, w.ops[i].Return, most)
		}
	}
done:
	w.near = near
	// Obligations are sorted by slack: count them per event.
	for x, o := range w.obs {
		if o.Slack > left {
			continue
		}
		m, smax := 0, 0
		first := true
		for y, p := range w.obs {
			if p.Event != o.Event || p.Slack > left {
				continue
			}
			if y < x {
				first = false
				break
			}
			m++
			smax = max(smax, p.Slack)
		}
		if !first {
			continue
		}
		if quasiMutant == 7 && smax > 1 {
			smax-- // a deliberately wrong rule, for the tests
		}
		// ops that can perform the event, not linearized, called no
		// later than the smax-th smallest return left.
		limit := int64(math.MaxInt64)
		if len(near) >= smax {
			limit = near[smax-1]
		}
		for _, j := range w.by[o.Event] {
			if lin[j/64]&(1<<(j%64)) == 0 && w.ops[j].Call <= limit {
				if m--; m == 0 {
					break
				}
			}
		}
		if m > 0 {
			windowPruned.Add(1)
			return false
		}
	}
	return true
}

// windowPruned counts the states windowMachine drops, for tests.
var windowPruned atomic.Int64

// insertSmallest keeps the k smallest values of xs (sorted) with x.
func insertSmallest(xs []int64, x int64, k int) []int64 {
	i, _ := slices.BinarySearch(xs, x)
	if i >= k {
		return xs
	}
	if len(xs) < k {
		xs = append(xs, 0)
	}
	copy(xs[i+1:], xs[i:len(xs)-1])
	xs[i] = x
	return xs
}
