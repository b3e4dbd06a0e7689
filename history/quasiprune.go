package history

import (
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
	// Scratch of canon.
	canonVals, canonBuf []int64
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
				return mc
			}
		case op.code == coTake && op.empty:
			if c >= 0 {
				return mc
			}
			p.cb = c == relax.Barrier
		case op.code == coTake:
			if c < 0 || class != -3 && c != class {
				return mc
			}
			class, p.q = c, bound
			p.value[e] = op.res
		default:
			return mc
		}
	}
	if class < 0 {
		return mc // no removal event: nothing to prune
	}
	// Each op's event (pending ops of a prefix check carry the result they
	// returned later: locFixedModel): values put and removed at most once,
	// no removal with an unknown result.
	qp := &queuePrune{deqOf: map[int64]int32{}, call: make([]int64, len(ops)), ret: make([]int64, len(ops))}
	p.qp = qp
	words := (len(ops) + 63) / 64
	p.complete = make([]uint64, words)
	p.takes = make([]uint64, words)
	p.empties = make([]uint64, words)
	p.optional = make([]uint64, words)
	put := map[int64]bool{}
	for i := range ops {
		qp.call[i], qp.ret[i] = ops[i].Call, ops[i].Return
		e := mc.events[i]
		if mc.info[i] || e == lts.Tau || int(e) >= len(a.ok) || !a.ok[e] {
			return mc // a removal with any result, or an unknown event
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
				return mc
			}
			put[op.arg] = true
		case op.empty:
			if !info {
				p.empties[w] |= bit
			}
		default:
			if _, dup := qp.deqOf[op.res]; dup {
				return mc
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
	slices.SortStableFunc(p.byRet, func(x, y int32) int {
		switch {
		case qp.ret[x] < qp.ret[y]:
			return -1
		case qp.ret[x] > qp.ret[y]:
			return 1
		}
		return 0
	})
	p.mark = make([]uint32, len(ops))
	p.lo, p.hi = make([]int, len(ops)), make([]int, len(ops))
	return p
}

// Viable applies rules B, C and S (see quasiMachine). A false answer is
// exact: the configuration cannot be completed.
func (p *quasiMachine) Viable(s State, lin []uint64) bool {
	if p.viable(s, lin) {
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
	return p.schedulable(obs, c, lin, m, nu, nopt)
}

// quasiPruning turns the rules on (tests compare with the search without
// them); quasiSkew shifts every content deadline (tests: a deliberately
// wrong rule, which the property test must catch).
var (
	quasiPruning = true
	quasiSkew    = 0
	quasiPruned  atomic.Int64 // states dropped, for tests
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
	// A removal with a deadline below h that is not in J has h ops of U
	// before it.
	for _, o := range obs {
		if d := p.opOf(p.value[o.Event]); d >= 0 && p.mark[d] == p.epoch && p.hi[d] < h {
			return false
		}
	}
	for _, x := range c {
		if d := p.opOf(x); d >= 0 && p.mark[d] == p.epoch && p.hi[d] < h {
			return false
		}
	}
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
func (p *quasiMachine) Step(s State, i int, buf []State) []State {
	n := len(buf)
	buf = p.automatonMachine.Step(s, i, buf)
	for k := n; k < len(buf); k++ {
		buf[k] = p.canon(buf[k])
	}
	return buf
}

func (p *quasiMachine) canon(s State) State {
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
