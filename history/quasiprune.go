package history

import (
	"cmp"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// quasiMachine is the machine of a quasi check of a queue, stack or
// priority queue in exact mode, with dead-state pruning (Pruner). It
// applies when values are put at most once and removed by at most one op
// whose result is known (pending ops of Localize's prefixes carry the
// result they returned later), puts are rigid, every non-empty removal is
// in one relaxed class of bound Q, and the empty removal is a barrier or
// rigid: the configuration of the papers (deq relaxed, deq.0 a barrier).
//
// The rules are necessary conditions for a configuration (spec content c,
// obligations O) to be completed by the ops not yet linearized. U is the
// set of completed non-empty removals not linearized; slot k is the k-th
// class read still to come (each op of U takes one; pending removals may
// take one). By relax/doc.go's characterisation (D), the read of a value x
// whose spec rank is R+o(x) (R: class reads so far) may come at slots
// o(x)-Q .. o(x)+Q; an owed value was pulled already and has its slack:
//
//   - an obligation of slack s: slots up to s-1 (the automaton ages it at
//     each other class read and fails at 0);
//   - the value with k values before it in removal order in c: o(x) is at
//     least |O|+k (those k and the owed ones leave the spec first), so its
//     slot is at least |O|+k-Q. For the queue o(x) is exactly |O|+k (puts
//     are rigid and later puts go behind), so its slot is also at most
//     |O|+k+Q, and a value put later has slot at least |O|+|c|-Q;
//   - a read comes after every op of U that precedes it in real time, so
//     after all their slots.
//
// Rule B: a value with a deadline hi that no op removes stays forever, so
// at most hi more class reads may come: |U| <= hi, and every read of U
// must take a slot below hi.
// Rule C (barrier): a barrier read needs an empty spec and no obligation,
// so every value of O and c must be removed by an op that does not follow
// a completed, not linearized empty removal in real time.
// Rule F (queues, futureFree): rule B for a value nobody removes whose put
// is still to come.
// Rule S (schedule): with h the largest finite deadline + 1 (at most |U|),
// the removals that can take a slot below h (fewer than h ops of U precede
// them) get release times (the lower bounds above, propagated along real
// time) and deadlines (propagated back to real-time predecessors); earliest
// deadline first, optimal for unit jobs with release times and deadlines,
// must fill every slot below h (a slot below |U| is taken by some read, and
// the other ops cannot come so early) and meet every deadline below h.
type quasiMachine struct {
	*automatonMachine
	r  *relax.Relaxed
	a  *containerAutomaton
	qp *queuePrune
	q  int  // bound of the removals' class
	qc bool // content deadlines (queue)
	cb bool // the empty removal is a barrier (rule C)

	value    []int64 // by event: the removed value (takes), else 0
	complete []uint64
	takes    []uint64 // completed non-empty removals
	optional []uint64 // pending non-empty removals with a known value
	empties  []uint64 // completed empty removals
	byRet    []int32  // completed non-empty removals by return time
	// Scratch, by op: the window [lo, hi] of a removal whose value is
	// owed or in the spec (valid while mark is the current epoch).
	mark   []uint32
	lo, hi []int
	epoch  uint32
	obs    []relax.Obligation
	jobs   []job
	// Scratch of canon, and its memo (by relaxed state: canonical + 1).
	canonVals, canonBuf []int64
	canonOf             []State

	// Enqueue-order dominance (queues only, see Step): the search's states
	// are pairs (relaxed state, last) interned here; last is 1 + the op
	// index of the enqueue just linearized, 0 if the last op was no
	// enqueue. With dom false a state is the relaxed state itself.
	// Rule F (futureFree): completed puts of values no op removes, by
	// return time; the puts.
	freePuts    []int32
	putMask     []uint64
	pendingPuts []int32 // in call order

	dom   bool
	pairs map[uint64]State
	rs    []State // by search state: the relaxed state
	last  []int32 // by search state
	// For viableAfter: the put of each value, the longest completed op,
	// the pending ops.
	putOf   map[int64]int32
	maxDur  int64
	pending []int32
	putIdx  map[int64]int32 // strandedRigid: the put of each value
}

// newQuasiMachine wraps mc with pruning if the rules apply (see
// quasiMachine), else returns mc as is.
func newQuasiMachine(mc *automatonMachine, r *relax.Relaxed, spec lts.Automaton, ops []Op) Machine {
	a, ok := spec.(*containerAutomaton)
	if !ok || a.kind == cSet || r.Config().Mode != relax.Exact || !quasiPruning {
		return mc
	}
	for i := 1; i < len(ops); i++ {
		if ops[i].Call < ops[i-1].Call {
			return mc // the rules' scan wants call order (the search's)
		}
	}
	a.decode()
	p := &quasiMachine{automatonMachine: mc, r: r, a: a, qc: a.kind == cQueue, cb: true}
	n := a.table.Len()
	if !p.classify(n) {
		return mc
	}
	put, ok := p.index(ops)
	if !ok {
		return mc
	}
	qp := p.qp
	slices.SortStableFunc(p.byRet, func(x, y int32) int { return cmp.Compare(qp.ret[x], qp.ret[y]) })
	p.indexPuts(ops, put)
	return p
}

// classify reads the relaxation of each event of the automaton: the
// rules apply when puts are rigid, every removal is in one class (bound
// p.q) and the empty removal is a barrier or rigid.
func (p *quasiMachine) classify(n int) bool {
	a, r := p.a, p.r
	p.value = make([]int64, n)
	class := -3
	for e := lts.Event(1); int(e) < n; e++ {
		if !a.ok[e] {
			continue
		}
		op := a.ops[e]
		c, bound := r.ClassOf(e)
		switch {
		case op.code == coPut:
			if c != relax.Rigid {
				return false
			}
		case op.code == coTake && op.empty:
			if c >= 0 {
				return false
			}
			p.cb = c == relax.Barrier
		case op.code == coTake:
			if c < 0 || class != -3 && c != class {
				return false
			}
			class, p.q = c, bound
			p.value[e] = op.res
		default:
			return false
		}
	}
	return class >= 0 // else no removal event: nothing to prune
}

// index records each op's event (pending ops of a prefix check carry the
// result they returned later: locFixedModel): values put and removed at
// most once, no removal with an unknown result; else ok is false.
func (p *quasiMachine) index(ops []Op) (put map[int64]bool, ok bool) {
	mc, a := p.automatonMachine, p.a
	qp := &queuePrune{deqOf: map[int64]int32{}, call: make([]int64, len(ops)), ret: make([]int64, len(ops))}
	p.qp = qp
	words := (len(ops) + 63) / 64
	p.complete = make([]uint64, words)
	p.takes = make([]uint64, words)
	p.empties = make([]uint64, words)
	p.optional = make([]uint64, words)
	put = map[int64]bool{}
	for i := range ops {
		qp.call[i], qp.ret[i] = ops[i].Call, ops[i].Return
		e := mc.events[i]
		if mc.info[i] || e == lts.Tau || int(e) >= len(a.ok) || !a.ok[e] {
			return nil, false // a removal with any result, or an unknown event
		}
		op := a.ops[e]
		bit, w := uint64(1)<<(uint(i)&63), i>>6
		info := ops[i].Status == Info
		if !info {
			p.complete[w] |= bit
		}
		switch {
		case op.code == coPut:
			if put[op.arg] {
				return nil, false
			}
			put[op.arg] = true
		case op.empty:
			if !info {
				p.empties[w] |= bit
			}
		default:
			if _, dup := qp.deqOf[op.res]; dup {
				return nil, false
			}
			qp.deqOf[op.res] = int32(i)
			if info {
				p.optional[w] |= bit // may be linearized, or never
			} else {
				p.takes[w] |= bit
				p.byRet = append(p.byRet, int32(i))
			}
		}
	}
	return put, true
}

// indexPuts records the puts: pending ones, those never removed (by
// return time), and for the dominance rule each value's put.
func (p *quasiMachine) indexPuts(ops []Op, put map[int64]bool) {
	mc, a, qp := p.automatonMachine, p.a, p.qp
	words := (len(ops) + 63) / 64
	p.putMask = make([]uint64, words)
	for i := range ops {
		if op := a.ops[mc.events[i]]; op.code == coPut {
			p.putMask[i>>6] |= 1 << (uint(i) & 63)
			if ops[i].Status == Info {
				p.pendingPuts = append(p.pendingPuts, int32(i))
			}
			if _, removed := qp.deqOf[op.arg]; !removed && ops[i].Status != Info {
				p.freePuts = append(p.freePuts, int32(i))
			}
		}
	}
	slices.SortStableFunc(p.freePuts, func(x, y int32) int { return cmp.Compare(qp.ret[x], qp.ret[y]) })
	p.mark = make([]uint32, len(ops))
	p.lo, p.hi = make([]int, len(ops)), make([]int, len(ops))
	p.dom = p.qc && quasiDominance
	if p.dom {
		p.pairs = map[uint64]State{}
		p.putOf = make(map[int64]int32, len(put))
		for i := range ops {
			if e := mc.events[i]; a.ops[e].code == coPut {
				p.putOf[a.ops[e].arg] = int32(i)
			}
			if ops[i].Status == Info {
				p.pending = append(p.pending, int32(i))
			} else {
				p.maxDur = max(p.maxDur, ops[i].Return-ops[i].Call)
			}
		}
	}
}

// Viable applies rules B, C and S (see quasiMachine). A false answer is
// exact: the configuration cannot be completed.
func (p *quasiMachine) Viable(s State, lin []uint64) bool {
	if p.viable(p.relaxed(s), lin) {
		return true
	}
	quasiPruned.Add(1)
	return false
}

func (p *quasiMachine) viable(s State, lin []uint64) bool {
	sp, obs, ok := p.r.ExactState(lts.State(s), p.obs[:0])
	p.obs = obs
	if !ok {
		return true
	}
	c := p.a.mc.strs[sp]
	if len(obs) == 0 && len(c) == 0 {
		return true
	}
	qp := p.qp
	// U: count, and the first completed op not linearized (m): every op
	// returning before m's call is linearized (ops are in call order).
	m, nu, nopt := -1, 0, 0
	minEmpty := int64(1<<63 - 1)
	for w := range lin {
		nopt += bits.OnesCount64(p.optional[w] &^ lin[w])
		open := p.complete[w] &^ lin[w]
		if open == 0 {
			continue
		}
		if m < 0 {
			m = w<<6 + bits.TrailingZeros64(open)
		}
		nu += bits.OnesCount64(p.takes[w] & open)
		for em := p.empties[w] & open; em != 0; em &= em - 1 {
			minEmpty = min(minEmpty, qp.ret[w<<6+bits.TrailingZeros64(em)])
		}
	}
	if m < 0 {
		return true // nothing left to linearize
	}
	// Rule C.
	if p.cb && minEmpty != int64(1<<63-1) {
		for _, o := range obs {
			d, ok := qp.deqOf[p.value[o.Event]]
			if !ok || qp.call[d] > minEmpty {
				return false
			}
		}
		for _, x := range c {
			d, ok := qp.deqOf[x]
			if !ok || qp.call[d] > minEmpty {
				return false
			}
		}
	}
	if p.qc && !p.futureFree(lin, m, nu, len(obs)+len(c)) {
		quasiFuture.Add(1)
		return false
	}
	return p.schedulable(obs, c, lin, m, nu, nopt)
}

// futureFree is rule F (queues): rule B applied when the put of a value
// that no op removes is linearized later. Let e_v be such a put, completed
// and not linearized yet, and w a continuation. Each put adds one value to
// owed+content and each class read removes one (a fresh read moves the
// values it pulls from the content to the obligations), so when e_v takes
// effect v sits behind S = size + P_b - R_b values (size = |O|+|c| now, P_b
// and R_b the puts and reads of w before e_v). The R_a reads after e_v read
// only those S values, or read a value behind v, which makes v pending with
// rank S: either way R_a <= S + Q (rule B). So R_b + R_a <= size + P_b + Q,
// and the reads of w include the nu completed ones, while P_b counts only
// puts that may precede e_v (invoked no later than it returns): nu <= size
// + P(e_v) + Q. P grows with e_v's return, so the free put not linearized
// that returns first gives the strongest test.
func (p *quasiMachine) futureFree(lin []uint64, m, nu, size int) bool {
	if len(p.freePuts) == 0 || nu <= size+p.q {
		return true
	}
	qp := p.qp
	// Completed ops returning before m's call are linearized.
	k, _ := slices.BinarySearchFunc(p.freePuts, qp.call[m], func(e int32, t int64) int { return cmp.Compare(qp.ret[e], t) })
	for ; k < len(p.freePuts); k++ {
		if e := p.freePuts[k]; lin[e>>6]&(1<<(uint(e)&63)) == 0 {
			break
		}
	}
	if k == len(p.freePuts) {
		return true
	}
	e := p.freePuts[k]
	// P(e): puts not linearized, other than e, invoked by e's return.
	hi, _ := slices.BinarySearch(qp.call, qp.ret[e]+1)
	// Completed puts invoked before m are linearized: count from m's
	// word, and the pending puts before it.
	puts := 0
	for _, o := range p.pendingPuts {
		if int(o) >= m>>6<<6 {
			break
		}
		if lin[o>>6]&(1<<(uint(o)&63)) == 0 {
			puts++
		}
	}
	for w := m >> 6; w<<6 < hi; w++ {
		open := p.putMask[w] &^ lin[w]
		if (w+1)<<6 > hi {
			open &= 1<<(uint(hi)&63) - 1
		}
		puts += bits.OnesCount64(open)
	}
	if quasiMutant == 1 {
		puts--
	}
	return nu <= size+puts-1+p.q
}

// quasiPruning turns the rules on (tests compare with the search without
// them); quasiSkew shifts every content deadline (tests: a deliberately
// wrong rule, which the property test must catch).
var (
	quasiPruning   = true
	quasiDominance = true
	quasiSkew      = 0
	quasiPruned    atomic.Int64 // states dropped, for tests
	quasiDominated atomic.Int64 // enqueue orders refused (Step, viableAfter), for tests
	quasiFuture    atomic.Int64 // states dropped by rule F, for tests
	quasiStranded  atomic.Int64 // refutations by strandedRigid, for tests
	// quasiMutant, for tests only, replaces a rule by a wrong one that the
	// brute-force comparison must catch: 1 rule F one read too strict, 2
	// the dominance with x and y exchanged, 3 strandedQueue and
	// strandedRigid with one operation too few after the dequeue, 4
	// barrierBlocked asking the removal to precede the barrier in real
	// time, 7 windowMachine asking an obligation's op to come one read
	// sooner, 8 rank windows one rank narrower at their low end.
	quasiMutant = 0
)

// job is a removal that can take a slot below the horizon (rule S).
type job struct {
	op     int32
	e, l   int // earliest and latest slot
	done   bool
	waited bool // counted in best (its return precedes a later job's call)
}

// schedulable decides whether the removals of U near the front can take
// the first slots (rules B and S of quasiMachine). m is the first
// completed op not linearized, nu = |U|, nopt the pending removals not
// linearized (at most nu+nopt class reads are still to come).
func (p *quasiMachine) schedulable(obs []relax.Obligation, c []int64, lin []uint64, m, nu, nopt int) bool {
	qp := p.qp
	owed := len(obs)
	p.epoch++
	if p.epoch == 0 {
		clear(p.mark)
		p.epoch = 1
	}
	const inf = 1 << 30
	h := 0       // horizon: 1 + the largest finite deadline
	reads := inf // most class reads still to come (rule B)
	set := func(v int64, lo, hi int) bool {
		d := p.opOf(v)
		if d < 0 {
			reads = min(reads, hi)
			return nu <= hi // rule B
		}
		if p.optional[d>>6]&(1<<(uint(d)&63)) != 0 && nu <= hi {
			// A pending removal need not happen: no deadline. (If
			// nu > hi it must, by rule B, and by slot hi.)
			hi = inf
		}
		p.mark[d], p.lo[d], p.hi[d] = p.epoch, lo, hi
		if hi < inf {
			h = max(h, hi+1)
		}
		return true
	}
	for _, o := range obs {
		if !set(p.value[o.Event], -inf, o.Slack-1) {
			return false
		}
	}
	for k := range c {
		x := c[k] // k values leave before x in the spec (removal order)
		if p.a.kind == cStack {
			x = c[len(c)-1-k]
		}
		hi := inf
		if p.qc {
			hi = owed + k + p.q + quasiSkew
		}
		if !set(x, owed+k-p.q, hi) {
			return false
		}
	}
	futureLo := -inf
	if p.qc {
		futureLo = owed + len(c) - p.q
	}
	h = min(h, nu)
	if h == 0 {
		return true
	}
	// J: the removals of U in call order while fewer than h ops of U
	// precede them (the others cannot take a slot below h).
	js := p.jobs[:0]
	j, _ := slices.BinarySearchFunc(p.byRet, qp.call[m], func(y int32, t int64) int {
		switch {
		case qp.ret[y] < t:
			return -1
		case qp.ret[y] > t:
			return 1
		}
		return 0
	})
	pred, best := 0, -1
scan:
	for w := m >> 6; w < len(lin); w++ {
		for open := (p.takes[w] | p.optional[w]) &^ lin[w]; open != 0; open &= open - 1 {
			d := int32(w<<6 + bits.TrailingZeros64(open))
			call := qp.call[d]
			for ; j < len(p.byRet) && qp.ret[p.byRet[j]] < call; j++ {
				if y := p.byRet[j]; lin[y>>6]&(1<<(uint(y)&63)) == 0 {
					pred++
				}
			}
			if pred >= h {
				break scan
			}
			for i := range js {
				if x := &js[i]; !x.waited && qp.ret[x.op] < call {
					x.waited = true
					best = max(best, x.e)
				}
			}
			x := job{op: d, e: max(pred, best+1), l: min(nu+nopt, reads) - 1}
			if p.optional[w]&(1<<(uint(d)&63)) != 0 {
				x.l = inf // need not be scheduled
			}
			if p.mark[d] == p.epoch {
				x.e = max(x.e, p.lo[d])
				x.l = min(x.l, p.hi[d])
				p.mark[d] = 0 // in J
			} else {
				x.e = max(x.e, futureLo)
			}
			js = append(js, x)
		}
	}
	p.jobs = js
	return !p.deadlineOutside(obs, c, h) && edf(js, h, qp)
}

// deadlineOutside reports whether a removal with a deadline below h is not
// in J: it has h ops of U before it, so it cannot make its deadline.
func (p *quasiMachine) deadlineOutside(obs []relax.Obligation, c []int64, h int) bool {
	for _, o := range obs {
		if d := p.opOf(p.value[o.Event]); d >= 0 && p.mark[d] == p.epoch && p.hi[d] < h {
			return true
		}
	}
	for _, x := range c {
		if d := p.opOf(x); d >= 0 && p.mark[d] == p.epoch && p.hi[d] < h {
			return true
		}
	}
	return false
}

// edf decides whether the jobs of J (in call order) fill slots
// 0..h-1, each within its release time and deadline.
func edf(js []job, h int, qp *queuePrune) bool {
	// Deadlines pass back to real-time predecessors (J is in call order:
	// a successor of x comes after it).
	for i := len(js) - 1; i >= 0; i-- {
		x := &js[i]
		for k := i + 1; k < len(js); k++ {
			if qp.call[js[k].op] > qp.ret[x.op] {
				x.l = min(x.l, js[k].l-1)
			}
		}
		if x.e > x.l {
			return false
		}
	}
	// Earliest deadline first over slots 0..h-1 (optimal for unit jobs
	// with release times and deadlines). Every slot below h must be taken
	// by a job of J: the other removals cannot come so early.
	for t := 0; t < h; t++ {
		pick := -1
		for i := range js {
			x := &js[i]
			if !x.done && x.e <= t && (pick < 0 || x.l < js[pick].l) {
				pick = i
			}
		}
		if pick < 0 || js[pick].l < t {
			return false
		}
		js[pick].done = true
	}
	for i := range js {
		if !js[i].done && js[i].l < h {
			return false
		}
	}
	return true
}

// opOf is the completed removal of value v, -1 if none.
func (p *quasiMachine) opOf(v int64) int32 {
	if d, ok := p.qp.deqOf[v]; ok {
		return d
	}
	return -1
}

// Step is the relaxed automaton's, with each target mapped to a canonical
// equivalent: values that no op removes ("free") are never read again, so
// permuting them among their positions in the spec content changes no
// future run (the renaming maps runs to runs with the same events of the
// remaining ops, and the rules above treat such values alike). The free
// values are put in increasing order; the search then stores one
// configuration per class instead of one per order in which they were
// put, which is what made refutations slow.
//
// Enqueue-order dominance (queues). Write x ▷ y for two values with
// distinct removals in view: x is removed by a completed op d_x and either
// no op removes y, or d_x returns before y's removal d_y is invoked; or x
// is removed by some op (completed or pending) and no op removes y. Then
// Step refuses an enqueue of x right after an enqueue of y when x ▷ y and
// the two enqueues may be swapped (enq x is invoked no later than enq y
// returns). This is sound, in both directions:
//
// Lemma (dominance). Let A and B be configurations with the same
// linearized set and the same obligations whose contents are equal except
// that x and y exchange their positions p < q: x at p in A, y at p in B.
// If x ▷ y, every continuation w accepted from B is accepted from A.
// Proof, by relax/doc.go's characterisation (D) read from a configuration
// (distinct values, puts rigid, the removals one class of bound Q): a value
// v at position pos of the content (behind the |O| owed ones) has the spec
// rank b(v) = |O| + pos, counted from now; w is accepted iff every value v
// read in w, after k_v other reads of w, has |b(v) - k_v| <= Q; every value
// not read in w but with a value behind it read in w (pending in the spec
// run) has b(v) + Q >= K, K the reads of w; the owed values meet their
// slacks; and each barrier of w comes when everything put before it was
// read. Only the conditions on x and y differ between A and B; with b1 =
// p+|O| < b2 = q+|O|: (1) both read: real time puts d_x before d_y in w, so
// k_x < k_y, and from B's |b1-k_y| <= Q, |b2-k_x| <= Q follow A's |b1-k_x|
// <= Q and |b2-k_y| <= Q (b1-k_x < b2-k_x, k_x-b1 < k_y-b1, b2-k_y <
// b2-k_x, k_y-b2 < k_y-b1); (2) x read, y not (pending d_y dropped, or y
// removed by no op): B needs b1+Q >= K > k_x, so k_x-b1 < Q and b1-k_x <
// b2-k_x <= Q, and y at b2 > b1 in A needs at most b2+Q >= K; (3) neither
// read: the same values lie behind positions p and q in A and B. x not read
// while y is cannot happen (d_x completed, or y removed by no op). The
// barriers see the same sets. So A dominates B.
//
// Completeness. If some linearization is accepted, take an accepted one
// with the fewest pairs of enqueues of y before x with x ▷ y. If it
// enqueued x right after y with x ▷ y and the enqueues swappable, swapping
// them respects real time, gives the same linearized set and, by the lemma
// (the ops in between are none), an accepted linearization with one pair
// fewer: so no step of it is refused. Since the refusal depends on the
// state (the pair carries the last enqueue), the memo stays exact: a
// state's future is a function of the state.
func (p *quasiMachine) Step(s State, i int, buf []State) []State {
	n := len(buf)
	var last int32
	if p.dom {
		last = p.last[s]
		s = p.rs[s]
	}
	buf = p.automatonMachine.Step(s, i, buf)
	for k := n; k < len(buf); k++ {
		buf[k] = p.canon(buf[k])
	}
	if !p.dom || len(buf) == n {
		return buf
	}
	next := int32(0)
	if e := p.events[i]; p.a.ops[e].code == coPut {
		if last > 0 && p.dominates(int32(i), last-1) {
			quasiDominated.Add(1)
			return buf[:n]
		}
		next = int32(i) + 1
	}
	for k := n; k < len(buf); k++ {
		buf[k] = p.pair(buf[k], next)
	}
	return buf
}

// viableAfter is Viable with the enqueue-order dominance of Step extended
// past other operations: placing the enqueue of x (op i) is refused if the
// content holds a value y with x ▷ y whose enqueue e_y and i could trade
// places whatever the order of the linearized ops: i is invoked no later
// than every linearized op that may follow e_y returns (those o with o.ret
// >= e_y.call: no linearization puts them before e_y), and every such o
// other than e_y is invoked no later than e_y returns. Then in the path
// that reached this state, e_y is followed only by such ops, so putting i
// at e_y's place and e_y at i's respects real time; the ops in between
// read other values (y stayed in the content, so none pulled it, and no
// barrier came while it was there) and do the same; the state reached has
// x and y exchanged and dominates this one (the lemma at Step). The
// completeness argument of Step holds with the potential "the sequence of
// enqueued values, compared lexicographically by key" (key: completed
// removal by return time, then pending removal, then none; any x ▷ y has
// the smaller key), which every such exchange decreases. The refusal is a
// function of (linearized set, state, op), so the memo stays exact.
func (p *quasiMachine) viableAfter(s State, op int32, lin []uint64) bool {
	if !p.Viable(s, lin) {
		return false
	}
	if !p.dom || p.a.ops[p.events[op]].code != coPut {
		return true
	}
	sp, _, ok := p.r.ExactState(lts.State(p.rs[s]), p.obs[:0])
	if !ok {
		return true
	}
	x := p.a.ops[p.events[op]].arg
	for _, y := range p.a.mc.strs[sp] {
		if y == x {
			continue
		}
		j, ok := p.putOf[y]
		if !ok || !p.dominates(op, j) || !p.swappable(op, j, lin) {
			continue
		}
		quasiDominated.Add(1)
		return false
	}
	return true
}

// swappable checks the real-time conditions of viableAfter for the
// enqueues i (just placed) and j (earlier) over the linearized ops.
func (p *quasiMachine) swappable(i, j int32, lin []uint64) bool {
	qp := p.qp
	t := qp.call[j]
	ok := func(o int32) bool {
		if o == i || lin[o>>6]&(1<<(uint(o)&63)) == 0 || qp.ret[o] < t {
			return true // not linearized, or before e_y in every order
		}
		return qp.call[i] <= qp.ret[o] && (o == j || qp.call[o] <= qp.ret[j])
	}
	for _, o := range p.pending {
		if !ok(o) {
			return false
		}
	}
	// Completed ops called before t - maxDur returned before t.
	lo, _ := slices.BinarySearch(qp.call, t-p.maxDur)
	for w := lo >> 6; w < len(lin); w++ {
		for b := lin[w]; b != 0; b &= b - 1 {
			o := int32(w<<6 + bits.TrailingZeros64(b))
			if int(o) >= lo && !ok(o) {
				return false
			}
		}
	}
	return true
}

// dominates reports whether the enqueue op i may not follow the enqueue op
// j (see Step): x ▷ y for their values and i is invoked no later than j
// returns.
func (p *quasiMachine) dominates(i, j int32) bool {
	qp := p.qp
	if quasiMutant == 2 {
		i, j = j, i
	}
	if qp.ret[j] < qp.call[i] {
		return false // enq x must follow enq y
	}
	x, y := p.a.ops[p.events[i]].arg, p.a.ops[p.events[j]].arg
	dx, okx := qp.deqOf[x]
	if !okx {
		return false
	}
	dy, oky := qp.deqOf[y]
	if !oky {
		return true // y stays: any x with a removal goes ahead
	}
	return p.takes[dx>>6]&(1<<(uint(dx)&63)) != 0 && qp.ret[dx] < qp.call[dy]
}

// pair interns (relaxed state r, last).
func (p *quasiMachine) pair(r State, last int32) State {
	k := uint64(r)<<32 | uint64(uint32(last))
	if s, ok := p.pairs[k]; ok {
		return s
	}
	s := State(len(p.rs))
	p.rs = append(p.rs, r)
	p.last = append(p.last, last)
	p.pairs[k] = s
	return s
}

// relaxed is the relaxed automaton's state of search state s.
func (p *quasiMachine) relaxed(s State) State {
	if p.dom {
		return p.rs[s]
	}
	return s
}

func (p *quasiMachine) Init(buf []State) []State {
	n := len(buf)
	buf = p.automatonMachine.Init(buf)
	if p.dom {
		for k := n; k < len(buf); k++ {
			buf[k] = p.pair(buf[k], 0)
		}
	}
	return buf
}

func (p *quasiMachine) Final(s State) bool { return p.automatonMachine.Final(p.relaxed(s)) }

func (p *quasiMachine) Describe(s State) string {
	return p.automatonMachine.Describe(p.relaxed(s))
}

func (p *quasiMachine) canon(s State) State {
	if int(s) < len(p.canonOf) && p.canonOf[s] != 0 {
		return p.canonOf[s] - 1
	}
	c := p.canonState(s)
	for int(s) >= len(p.canonOf) {
		p.canonOf = append(p.canonOf, 0)
	}
	p.canonOf[s] = c + 1
	return c
}

// canonState computes canon(s) (memoised by canon: relaxed states are
// interned, so a state's canonical form is computed once).
func (p *quasiMachine) canonState(s State) State {
	sp, obs, ok := p.r.ExactState(lts.State(s), p.obs[:0])
	p.obs = obs
	if !ok {
		return s
	}
	c := p.a.mc.strs[sp]
	free, sorted := 0, true
	var last int64
	for _, x := range c {
		if _, removed := p.qp.deqOf[x]; removed {
			continue
		}
		if free > 0 && x < last {
			sorted = false
		}
		free++
		last = x
	}
	if sorted {
		return s
	}
	vals := p.canonVals[:0]
	for _, x := range c {
		if _, removed := p.qp.deqOf[x]; !removed {
			vals = append(vals, x)
		}
	}
	slices.Sort(vals)
	p.canonVals = vals
	cc := append(p.canonBuf[:0], c...)
	j := 0
	for k, x := range cc {
		if _, removed := p.qp.deqOf[x]; !removed {
			cc[k] = vals[j]
			j++
		}
	}
	p.canonBuf = cc
	return State(p.r.ExactStateOf(lts.State(p.a.mc.intern(cc)), obs))
}
