package history

import (
	"cmp"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// Stranded tails. With every event in one class of bound Q and no barrier
// (`--quasi Q`), a queue whose values are put at most once and removed by
// at most one op each (Localize's pending ops carry the result they
// returned later; a pending removal with an unknown result turns these
// rules off) is checked by windowMachine with the rules below. They
// matter for the starving queue, whose lost values keep the spec from
// removing anything put after them, and for every check near such a
// violation (Localize's prefixes and sub-histories), which the search
// could not decide: several long concurrent puts let the spec put the
// values in any order, and the violation shows only at the end.
//
// Notation, from relax/doc.go's characterisation (D) with one class (a
// position's rank is its index): τ is a linearization of n events (the
// completed ops and some pending ones), σ the spec run and f the map from
// τ's positions to σ's; the reads are f's image, every other position of
// σ is pending, with rank + Q >= n, and σ ends with a read. t(a) is op a's
// place in τ. A free value is one no op removes. For a completed op d,
// succ(d) is the number of completed ops not linearized invoked after d
// returns: they all follow d in τ. A configuration (the search's state)
// is the linearized set L, the spec's content c (its queue) and the owed
// events (pulled, not read yet).
//
// Lemma P (pairs). Two reads x, y with f(x) < f(y) have t(x) <= t(y) +
// 2Q - 1: t(x) <= f(x) + Q <= f(y) - 1 + Q <= t(y) + 2Q - 1. So if op y
// returns before op x is invoked and at least 2Q - 1 completed ops are
// invoked after y returns and return before x is invoked (between(y, x)),
// t(x) >= t(y) + 2Q and f(x) < f(y) is impossible.
//
// Lemma T (tail). A pending position p has p >= n - Q (D), and the p
// positions before it are reads but for the pending ones, which lie in
// [n - Q, p): at least n - Q reads come before p, so at most Q come after
// it; and a read at rank p + o (o >= 1) has t >= p + o - Q >= n - 2Q + o.
//
// Lemma N (one put per value). If τ is admitted, some σ admitting it puts
// each value at most once. Removing a pending position p from σ keeps (D)
// for the others: a read at rank r > p moves to r - 1 >= n - Q >= t + 1 -
// Q (t <= n - 1) and r - 1 - t < r - t <= Q; a pending one stays at rank
// >= p >= n - Q; and σ still ends with a read. Now take a σ with the
// fewest positions and a value x put twice. A pending put of x whose copy
// σ never removes can go (the queue differs only by that copy, which
// nothing removes: no later put is removed either, no empty removal comes
// while it is there). A pending put whose copy is removed at a pending
// position goes with that removal (the copy is between them, so no empty
// removal sees the difference and every other removal takes the same
// value). Otherwise the copy put at pending p is removed by a read, and τ
// reads a put of x at e too (x is put once in the history, removed once):
// if e < p, the copy put at e is removed at a position d' before the read
// d, and d' is pending (τ removes x once): reading the removal of x at d'
// instead of d keeps (D) (d' < d <= t + Q, d' >= n - Q >= t + 1 - Q) and
// makes d pending; if e > p, reading the put of x at p instead of e keeps
// (D) likewise and makes e pending; either way a position can then go.
// So the fewest positions put each value once.
//
// Rule A (pulls; windowMachine.stepIn, MayPull). When op i is read fresh
// from a configuration with linearized set L, with R completed ops not in
// L ∪ {i} (at least R more reads come), a run may pull an event e that it
// would owe with slack s only if: (1) when s <= R, an op not in L ∪ {i}
// can read e for each owed e (this one included) of slack <= R, since an
// owed event of slack s must be read within the next s reads when at
// least s come (relax/doc.go: each other read ages it, slack 0 fails);
// (2) when e puts x: x is not in c, no put or removal of x is owed, and
// neither x's put nor x's removal is in L. Every run along a σ of Lemma N
// passes (2): its only put of x is the one pulled, which τ reads later if
// at all, and σ removes x after it. So the search, which follows such a
// run for an accepted τ, finds one whenever the unfiltered search would;
// every state of that run is normalised (each value in σ once), which the
// rules below assume.
//
// Rule T (tail; tailRules.tail). Let c[k] be the first free value of c.
// σ never removes it at a read, and removes it at a pending position p
// before any value behind it; a completed removal reads its value's only
// removal in σ. Let D be the completed removals not in L of the values
// behind c[k] in c or not put by σ yet (not in c, removal not owed: with
// one put per value σ has not put them), and E the completed empty
// removals not in L less the owed empty events: the others read empty
// events to come, which need the queue empty, so after p. By Lemma T:
// (count) |D| + |E| <= Q; (a) a removal at offset o behind c[k] (its
// value at c[k+o]; the values put later take distinct offsets from
// len(c) - k on; an empty event comes after all of c) has t >= n - 2Q + o
// and t <= n - 1 - succ, so o + succ <= 2Q - 1; (b) for each o, the
// removals of offset >= o and every completed op not in L invoked after
// one of them returns take τ's last 2Q - o places.
//
// Rule F (a free value still to come; tailRules.future). Let v be put by a
// completed op e_v not in L, v free and not in c. τ reads e_v at t_v <=
// hi(e_v) (ops invoked after e_v returns follow it), and σ puts v at r_v
// <= t_v + Q. The values of D (here: not put by σ yet) that σ puts after
// v are behind it, so rule T applies to them when v is put; one w can be
// put before v only if its put's earliest rank lo(e_w) - Q is below
// hi(e_v) + Q, and σ performs at most hi(e_v) + Q - M events before r_v
// (M: the events σ has performed). So (count) at least |D| - min(those
// slots, the w that can) of them are behind v: at most Q; (a) each w that
// cannot has offset >= 1, distinct. (late) The events σ must perform
// before v's put: the puts of w in D with succ(d_w) >= 2Q - 1 (rule T (a)
// forbids them behind v) and the empty events of the empty removals not
// in L with succ >= 2Q - 1 (one behind v would follow p). Those read by
// ops invoked after e_v returns are owed when τ reads e_v, and so are the
// owed events that only such ops can read: at most Q, as a configuration
// owes at most Q events. (far) By Lemma P, each of those events needs a
// reader with fewer than 2Q - 1 completed ops between e_v and it.
//
// Rule O (order; tailRules.order). σ removes c in order, and every value
// it puts later after c; so for c[i] ahead of c[j] (both with completed
// removals) and for c[i] and a value w not put yet, Lemma P forbids
// between(d_j, d_i) >= 2Q - 1 and between(d_w, d_i) >= 2Q - 1. And when no
// empty event is owed, every empty removal not in L reads an empty event
// to come, after all of c: between(d0, d_i) >= 2Q - 1 is forbidden too.
//
// Each rule depends on the linearized set and the state only (the memo
// stays exact). They are tested against brute force on random histories
// and Localize's prefixes, with a deliberately wrong variant of each
// (quasitail_test.go).
type tailRules struct {
	ca     *containerAutomaton
	rs     *rankedSpec
	q      int
	events []lts.Event // by op

	calls, rets []int64 // by op (call order)
	lo, hi      []int   // by op: the rank window before widening
	complete    []uint64
	takes       []uint64 // completed non-empty removals
	empties     []uint64 // completed empty removals
	byRet       []int32  // completed non-empty removals by return
	freePuts    []int32  // completed puts of free values, by return
	deq0        lts.Event

	// By value index (vix): its put, its removal (any, and the completed
	// one), -1 if none.
	vix         map[int64]int32
	vPut, vRem  []int32
	vDeq        []int32
	evVal       []int32        // by event: the value index it puts or removes, -1
	evPut       []bool         // by event: a put
	contents    []*tailContent // by container state
	jobs, jobs2 []tailJob
	obs         []relax.Obligation
}

// tailContent is what the rules need of one spec content (cached by spec
// state).
type tailContent struct {
	vals []int32 // value indices, in queue order
	k    int     // index of the first free value, -1 if none
	// head counts the completed removals of the values ahead of c[k].
	head int
	// tail: the completed removals of the values behind c[k], with their
	// offsets.
	tail []tailJob
	// dead: two values of c whose removals real time orders the other way
	// round, too far apart (rule O).
	dead bool
	// latest: the completed removal of a value of c invoked last, -1 if
	// none.
	latest int32
}

// tailJob is a removal that must come after a pending one (rule T).
type tailJob struct {
	d       int32
	o, succ int
}

// Counters, for tests: pulls refused (rule A), states dropped by rules
// T, F and O.
var tailFiltered, tailPrunedT, tailPrunedF, tailPrunedO atomic.Int64

// newTailRules returns the rules for a one-class check of a queue, or nil
// if they do not apply (see above).
func newTailRules(mc *automatonMachine, ops []Op, spec lts.Automaton, rs *rankedSpec, q int) *tailRules {
	ca, ok := spec.(*containerAutomaton)
	if !ok || ca.kind != cQueue || rs == nil {
		return nil
	}
	ca.decode()
	n := len(ops)
	words := (n + 63) / 64
	t := &tailRules{ca: ca, rs: rs, q: q, events: mc.events, vix: map[int64]int32{},
		calls: make([]int64, n), rets: make([]int64, n), complete: make([]uint64, words),
		takes: make([]uint64, words), empties: make([]uint64, words), deq0: ca.takeOf[0]}
	val := func(x int64) int32 {
		if i, ok := t.vix[x]; ok {
			return i
		}
		i := int32(len(t.vPut))
		t.vix[x] = i
		t.vPut, t.vRem, t.vDeq = append(t.vPut, -1), append(t.vRem, -1), append(t.vDeq, -1)
		return i
	}
	for i := range ops {
		if i > 0 && ops[i].Call < ops[i-1].Call {
			return nil // the rules scan ops in call order
		}
		t.calls[i], t.rets[i] = ops[i].Call, ops[i].Return
		done := ops[i].Status != Info && ops[i].Return != Pending
		bit, w := uint64(1)<<(uint(i)&63), i>>6
		if done {
			t.complete[w] |= bit
		}
		e := mc.events[i]
		if mc.info[i] || e == lts.Tau || int(e) >= len(ca.ok) || !ca.ok[e] {
			return nil // a removal with any result, or an unknown event
		}
		switch op := ca.ops[e]; {
		case op.code == coPut:
			v := val(op.arg)
			if t.vPut[v] >= 0 {
				return nil
			}
			t.vPut[v] = int32(i)
		case op.code == coTake && op.empty:
			if done {
				t.empties[w] |= bit
			}
		case op.code == coTake:
			v := val(op.res)
			if t.vRem[v] >= 0 {
				return nil
			}
			t.vRem[v] = int32(i)
			if done {
				t.vDeq[v] = int32(i)
				t.takes[w] |= bit
				t.byRet = append(t.byRet, int32(i))
			}
		default:
			return nil
		}
	}
	slices.SortStableFunc(t.byRet, func(x, y int32) int { return cmp.Compare(t.rets[x], t.rets[y]) })
	for v, p := range t.vPut {
		if p >= 0 && t.vRem[v] < 0 && t.done(p) {
			t.freePuts = append(t.freePuts, p)
		}
	}
	slices.SortFunc(t.freePuts, func(x, y int32) int { return cmp.Or(cmp.Compare(t.rets[x], t.rets[y]), cmp.Compare(x, y)) })
	t.evVal, t.evPut = make([]int32, len(ca.ok)), make([]bool, len(ca.ok))
	for e := range ca.ok {
		t.evVal[e] = -1
		if !ca.ok[e] {
			continue
		}
		switch op := ca.ops[e]; {
		case op.code == coPut:
			if v, ok := t.vix[op.arg]; ok {
				t.evVal[e], t.evPut[e] = v, true
			}
		case op.code == coTake && !op.empty:
			if v, ok := t.vix[op.res]; ok {
				t.evVal[e] = v
			}
		}
	}
	// Rank windows (as rankedSpec's, before widening by Q).
	var calls, rets []int64
	for i := range ops {
		calls = append(calls, ops[i].Call)
		if t.done(int32(i)) {
			rets = append(rets, ops[i].Return)
		}
	}
	slices.Sort(rets)
	t.lo, t.hi = make([]int, n), make([]int, n)
	for i := range ops {
		t.lo[i], _ = slices.BinarySearch(rets, ops[i].Call)
		t.hi[i] = n - 1
		if t.done(int32(i)) {
			c, _ := slices.BinarySearch(calls, ops[i].Return+1)
			t.hi[i] = c - 1
		}
	}
	return t
}

func (t *tailRules) done(i int32) bool { return t.complete[i>>6]&(1<<(uint(i)&63)) != 0 }

func bitIn(set []uint64, i int32) bool { return set[i>>6]&(1<<(uint(i)&63)) != 0 }

// content returns the cached view of spec state sp (a rankedSpec state).
func (t *tailRules) content(sp lts.State) *tailContent {
	inner := t.rs.spec[sp]
	if int(inner) < len(t.contents) && t.contents[inner] != nil {
		return t.contents[inner]
	}
	c := t.ca.mc.strs[inner]
	tc := &tailContent{k: -1, latest: -1}
	for k, x := range c {
		v, ok := t.vix[x]
		if !ok {
			v = -1 // no op puts it (the rules need not know it)
		}
		tc.vals = append(tc.vals, v)
		free := v < 0 || t.vRem[v] < 0
		if free && tc.k < 0 {
			tc.k = k
		}
		if v < 0 || t.vDeq[v] < 0 {
			continue
		}
		d := t.vDeq[v]
		switch {
		case tc.k < 0:
			tc.head++
		default:
			tc.tail = append(tc.tail, tailJob{d: d, o: k - tc.k})
		}
		if tc.latest < 0 || t.calls[d] > t.calls[tc.latest] {
			tc.latest = d
		}
	}
	// Rule O inside c: each removal against the earliest-returning one
	// behind it.
	best := int32(-1)
	for k := len(tc.vals) - 1; k >= 0; k-- {
		v := tc.vals[k]
		if v < 0 || t.vDeq[v] < 0 {
			continue
		}
		d := t.vDeq[v]
		if best >= 0 && t.between(best, d, 2*t.q-1+orderSkew) {
			tc.dead = true
			break
		}
		if best < 0 || t.rets[d] < t.rets[best] {
			best = d
		}
	}
	for int(inner) >= len(t.contents) {
		t.contents = append(t.contents, nil)
	}
	t.contents[inner] = tc
	return tc
}

// between reports whether at least k completed ops are invoked after op b
// returns and return before op a is invoked (all of them lie between b
// and a in every linearization).
func (t *tailRules) between(b, a int32, k int) bool {
	if k <= 0 {
		return true
	}
	lo, u := t.rets[b], t.calls[a]
	i, _ := slices.BinarySearch(t.calls, lo+1)
	for ; i < len(t.calls) && t.calls[i] < u; i++ {
		if t.done(int32(i)) && t.rets[i] < u {
			if k--; k == 0 {
				return true
			}
		}
	}
	return false
}

// after counts the completed ops not in lin invoked after time x.
func (t *tailRules) after(lin []uint64, x int64) int {
	i, _ := slices.BinarySearch(t.calls, x+1)
	n := 0
	for k := i >> 6; k < len(t.complete); k++ {
		u := t.complete[k] &^ lin[k]
		if k == i>>6 {
			u &^= 1<<(uint(i)&63) - 1
		}
		n += bits.OnesCount64(u)
	}
	return n
}

// owedRemoval reports whether obs owes the removal of value v.
func (t *tailRules) owedRemoval(obs []relax.Obligation, v int32) bool {
	for _, o := range obs {
		if !t.evPut[o.Event] && t.evVal[o.Event] == v {
			return true
		}
	}
	return false
}

// inContent reports whether value v is in the content.
func (tc *tailContent) has(v int32) bool { return slices.Contains(tc.vals, v) }

// live applies rules T, F and O to relaxed state s with linearized set
// lin; false: no continuation is accepted.
func (t *tailRules) live(r *relax.Relaxed, s lts.State, lin []uint64) bool {
	sp, obs, ok := r.ExactState(s, t.obs[:0])
	t.obs = obs
	if !ok {
		return true
	}
	tc := t.content(sp)
	switch {
	case tc.dead || !t.order(tc, obs, lin):
		tailPrunedO.Add(1)
	case !t.future(tc, t.rs.rank[sp], obs, lin):
		tailPrunedF.Add(1)
	case !t.tail(tc, obs, lin):
		tailPrunedT.Add(1)
	default:
		return true
	}
	return false
}

// notPut appends to jobs the completed removals not in lin of values the
// spec has not put (not in c, removal not owed), with offset o.
func (t *tailRules) notPut(tc *tailContent, obs []relax.Obligation, lin []uint64, o int, jobs []tailJob) []tailJob {
	for k, w := range t.takes {
		for u := w &^ lin[k]; u != 0; u &= u - 1 {
			d := int32(k*64 + bits.TrailingZeros64(u))
			v := t.evVal[t.eventOf(d)]
			if tc.has(v) || t.owedRemoval(obs, v) {
				continue
			}
			jobs = append(jobs, tailJob{d: d, o: o})
		}
	}
	return jobs
}

// eventOf is op d's event.
func (t *tailRules) eventOf(d int32) lts.Event { return t.events[d] }

// frontier is the first completed op not in lin (len(ops) if none): every
// completed op returning before it is invoked is in lin.
func (t *tailRules) frontier(lin []uint64) int {
	for k, w := range t.complete {
		if u := w &^ lin[k]; u != 0 {
			return k*64 + bits.TrailingZeros64(u)
		}
	}
	return len(t.calls)
}

// tail is rule T.
func (t *tailRules) tail(tc *tailContent, obs []relax.Obligation, lin []uint64) bool {
	if tc.k < 0 {
		return true
	}
	q := t.q
	nd := 0
	for k, w := range t.takes {
		nd += bits.OnesCount64(w &^ lin[k])
	}
	owedRem, owed0 := 0, 0
	for _, o := range obs {
		switch {
		case o.Event == t.deq0 && t.deq0 != 0:
			owed0++
		case !t.evPut[o.Event] && t.evVal[o.Event] >= 0 && t.vDeq[t.evVal[o.Event]] >= 0:
			owedRem++
		}
	}
	ne := 0
	for k, w := range t.empties {
		ne += bits.OnesCount64(w &^ lin[k])
	}
	ne = max(ne-owed0, 0)
	count := nd - tc.head - owedRem + ne
	if count <= 0 {
		return true
	}
	if count > q+tailSkew {
		return false
	}
	limit := 2*q - 1 + posSkew
	jobs := append(t.jobs[:0], tc.tail...)
	first := len(jobs)
	base := len(tc.vals) - tc.k
	jobs = t.notPut(tc, obs, lin, base, jobs)
	later := len(jobs)
	if ne > 0 {
		// The ne empty removals with the fewest successors (the owed empty
		// events are read by the others).
		es := t.jobs2[:0]
		for k, w := range t.empties {
			for u := w &^ lin[k]; u != 0; u &= u - 1 {
				d := int32(k*64 + bits.TrailingZeros64(u))
				es = append(es, tailJob{d: d, o: base, succ: t.after(lin, t.rets[d])})
			}
		}
		slices.SortFunc(es, func(x, y tailJob) int { return cmp.Or(cmp.Compare(x.succ, y.succ), cmp.Compare(x.d, y.d)) })
		jobs = append(jobs, es[:ne]...)
		t.jobs2 = es
	}
	for i := range jobs[:later] {
		jobs[i].succ = t.after(lin, t.rets[jobs[i].d])
	}
	t.jobs = jobs
	// (a): the values put later take distinct offsets, the ones with the
	// fewest places after them first.
	fut := jobs[first:later]
	slices.SortFunc(fut, func(x, y tailJob) int { return cmp.Or(cmp.Compare(y.succ, x.succ), cmp.Compare(x.d, y.d)) })
	for i := range jobs {
		o := jobs[i].o
		if i >= first && i < later {
			o += i - first
		}
		if o+jobs[i].succ > limit {
			return false
		}
	}
	// (b), with the offsets every order allows (the later ones at base).
	return t.lastPlaces(jobs, lin, limit)
}

// lastPlaces checks rule T (b) for jobs: for each offset o, the jobs of
// offset >= o and the completed ops not in lin invoked after the first of
// them returns number at most limit + 1 - o.
func (t *tailRules) lastPlaces(jobs []tailJob, lin []uint64, limit int) bool {
	slices.SortFunc(jobs, func(x, y tailJob) int { return cmp.Or(cmp.Compare(y.o, x.o), cmp.Compare(x.d, y.d)) })
	minRet := int64(1<<63 - 1)
	for i, j := range jobs {
		minRet = min(minRet, t.rets[j.d])
		if i+1 < len(jobs) && jobs[i+1].o == j.o {
			continue
		}
		n := t.after(lin, minRet)
		for _, k := range jobs[:i+1] {
			if t.calls[k.d] <= minRet {
				n++ // not counted by after
			}
		}
		if n > limit+1-j.o {
			return false
		}
	}
	return true
}

// future is rule F.
func (t *tailRules) future(tc *tailContent, rank int, obs []relax.Obligation, lin []uint64) bool {
	v := int32(-1)
	for _, p := range t.freePuts {
		if !bitIn(lin, p) {
			v = p
			break
		}
	}
	if v < 0 {
		return true
	}
	x := t.evVal[t.events[v]]
	if tc.has(x) {
		return true // put by the spec already: rule T
	}
	q := t.q
	limit := 2*q - 1 + posSkew
	reach := t.hi[v] + q // σ puts v below this rank
	slots := max(reach-rank, 0)
	if slots > futureReach*q {
		return true // v comes much later: not worth checking now
	}
	// D: the removals not in lin of values not put yet (at least |D| -
	// slots of them behind v). Those whose put cannot come before v are
	// behind it.
	nd, owedRem := 0, 0
	for k, w := range t.takes {
		nd += bits.OnesCount64(w &^ lin[k])
	}
	for _, o := range obs {
		if o.Event != t.deq0 && !t.evPut[o.Event] && t.evVal[o.Event] >= 0 && t.vDeq[t.evVal[o.Event]] >= 0 {
			owedRem++
		}
	}
	if nd-tc.head-len(tc.tail)-owedRem-slots > q+tailSkew {
		return false
	}
	jobs := t.notPut(tc, obs, lin, 1, t.jobs[:0])
	t.jobs = jobs
	behind := t.jobs2[:0]
	eligible := 0
	for _, j := range jobs {
		w := t.evVal[t.eventOf(j.d)]
		if p := t.vPut[w]; p >= 0 && t.lo[p]-q < reach {
			eligible++
			continue
		}
		behind = append(behind, j)
	}
	t.jobs2 = behind
	if len(behind)+eligible-min(slots, eligible) > q+tailSkew {
		return false
	}
	for i := range behind {
		behind[i].succ = t.after(lin, t.rets[behind[i].d])
	}
	slices.SortFunc(behind, func(a, b tailJob) int { return cmp.Or(cmp.Compare(b.succ, a.succ), cmp.Compare(a.d, b.d)) })
	for i, j := range behind {
		if 1+i+j.succ > limit {
			return false
		}
	}
	if len(behind) > 0 && !t.lastPlaces(behind, lin, limit) {
		return false
	}
	return t.late(v, jobs, obs, lin)
}

// late is rule F (late) and (far): jobs are the removals not in lin of
// values the spec has not put.
func (t *tailRules) late(v int32, jobs []tailJob, obs []relax.Obligation, lin []uint64) bool {
	q := t.q
	ret := t.rets[v]
	far := func(a int32) bool { return t.between(v, a, 2*q-1+farSkew) }
	late := 0
	for _, o := range obs {
		if o.Event == t.deq0 && t.deq0 != 0 {
			continue // counted with the empty removals below
		}
		early, near, mayStay := false, false, true
		for _, j := range t.readers(o.Event) {
			if bitIn(lin, j) {
				continue
			}
			if t.calls[j] <= ret {
				early = true
				break
			}
			near = near || !far(j)
			mayStay = mayStay && !t.done(j)
		}
		if early {
			continue
		}
		if !near && !mayStay {
			return false // a completed op must read it, too late (Lemma P)
		}
		late++ // still owed when τ reads v's put
	}
	for _, j := range jobs {
		w := t.evVal[t.eventOf(j.d)]
		p := t.vPut[w]
		if p < 0 || t.calls[p] <= ret || t.after(lin, t.rets[j.d]) < 2*q-1 {
			continue
		}
		if t.done(p) && far(p) {
			return false
		}
		if late++; late > q+lateSkew {
			return false
		}
	}
	i, _ := slices.BinarySearch(t.calls, ret+1)
	for ; i < len(t.calls); i++ {
		d := int32(i)
		if !bitIn(t.empties, d) || bitIn(lin, d) || t.after(lin, t.rets[d]) < 2*q-1 {
			continue
		}
		if far(d) {
			return false
		}
		if late++; late > q+lateSkew {
			return false
		}
	}
	return late <= q+lateSkew
}

// futureReach bounds rule F to a free put that τ reads within about
// futureReach·Q events (a cost gate: further ones are checked later).
const futureReach = 4

// readers lists the ops that may read event e.
func (t *tailRules) readers(e lts.Event) []int32 {
	if e == t.deq0 && t.deq0 != 0 {
		return nil
	}
	v := t.evVal[e]
	if v < 0 {
		return nil
	}
	if t.evPut[e] {
		if p := t.vPut[v]; p >= 0 {
			return []int32{p}
		}
		return nil
	}
	if d := t.vRem[v]; d >= 0 {
		return []int32{d}
	}
	return nil
}

// order is rule O beyond the content: the values not put yet, and the
// empty removals.
func (t *tailRules) order(tc *tailContent, obs []relax.Obligation, lin []uint64) bool {
	if tc.latest < 0 {
		return true
	}
	k := 2*t.q - 1 + orderSkew
	m := t.frontier(lin)
	if m == len(t.calls) {
		return true
	}
	// The removal of a value not put yet that returns first (every
	// completed op returning before m is invoked is in lin).
	j, _ := slices.BinarySearchFunc(t.byRet, t.calls[m], func(d int32, x int64) int { return cmp.Compare(t.rets[d], x) })
	for ; j < len(t.byRet); j++ {
		d := t.byRet[j]
		if bitIn(lin, d) {
			continue
		}
		v := t.evVal[t.eventOf(d)]
		if tc.has(v) || t.owedRemoval(obs, v) {
			continue
		}
		if t.between(d, tc.latest, k) {
			return false
		}
		break
	}
	for _, o := range obs {
		if o.Event == t.deq0 && t.deq0 != 0 {
			return true // an empty event done already: any empty removal may read it
		}
	}
	for i := m; i < len(t.calls) && t.calls[i] < t.calls[tc.latest]; i++ {
		if d := int32(i); bitIn(t.empties, d) && !bitIn(lin, d) && t.between(d, tc.latest, k) {
			return false
		}
	}
	return true
}

// Deliberately wrong variants, for the tests: each makes its rule one
// step too strict.
var tailSkew, posSkew, lateSkew, farSkew, orderSkew, filterMutant, filterMutant2 = 0, 0, 0, 0, 0, false, false

// rules returns the rules of quasitail.go for w's check, or nil. They
// are built on first use: a check refuted before its search (strandedQueue)
// does not pay for them.
func (w *windowMachine) rules() *tailRules {
	if !w.trDone {
		w.tr, w.trDone = newTailRules(w.automatonMachine, w.ops, w.trSpec, w.trRanked, w.r.Config().All), true
	}
	return w.tr
}

// stepIn implements linStepper: Step with the pulls of rule A.
func (w *windowMachine) stepIn(s State, i int, lin []uint64, buf []State) []State {
	if w.rules() == nil {
		return w.Step(s, i, buf)
	}
	left := 0
	for k, c := range w.complete {
		left += bits.OnesCount64(c &^ lin[k])
	}
	if w.complete[i>>6]&(1<<(uint(i)&63)) != 0 {
		left--
	}
	w.fLin, w.fOp, w.fLeft = lin, int32(i), left
	w.fFirst = len(w.ops)
	for k, u := range lin {
		if u != ^uint64(0) {
			w.fFirst = min(k*64+bits.TrailingZeros64(^u), len(w.ops))
			break
		}
	}
	// The 2Q-1 smallest returns of the completed ops not in lin but i.
	k := 2*w.tr.q - 1
	near := w.fNear[:0]
	for j := w.fFirst; j < len(w.ops); j++ {
		if j == i || bitIn(lin, int32(j)) || !w.tr.done(int32(j)) {
			continue
		}
		if len(near) == k && w.ops[j].Call > near[k-1] {
			break // calls grow with j: no smaller return follows
		}
		near = insertSmallest(near, w.ops[j].Return, k)
	}
	w.fNear = near
	w.r.SetPullFilter(w)
	buf = w.Step(s, i, buf)
	w.r.SetPullFilter(nil)
	w.fLin = nil
	return buf
}

// open reports whether op o may still be read after the op being read.
func (w *windowMachine) open(o int32) bool { return o != w.fOp && !bitIn(w.fLin, o) }

// MayPull implements relax.PullFilter: rule A.
func (w *windowMachine) MayPull(spec lts.State, e lts.Event, slack int, owed []relax.Obligation) bool {
	t := w.tr
	if int(e) >= len(t.evVal) {
		return false
	}
	if t.evPut[e] {
		// (2): one put per value.
		v := t.evVal[e]
		if p := t.vPut[v]; p < 0 || !w.open(p) {
			tailFiltered.Add(1)
			return false
		}
		if d := t.vRem[v]; d >= 0 && (d != w.fOp && bitIn(w.fLin, d) || filterMutant2 && d == w.fOp) {
			tailFiltered.Add(1)
			return false
		}
		for _, o := range owed {
			if int(o.Event) < len(t.evVal) && t.evVal[o.Event] == v {
				tailFiltered.Add(1)
				return false
			}
		}
		if t.content(spec).has(v) {
			tailFiltered.Add(1)
			return false
		}
	}
	if slack > w.fLeft {
		return true // it may stay owed to the end
	}
	// (1): a reader for each owed e of slack <= R, each read within the
	// next S reads (S the largest of those slacks): one with fewer than S
	// completed ops left before it in real time.
	need, most := 1, slack
	for _, o := range owed {
		if o.Event == e && o.Slack <= w.fLeft {
			need++
			most = max(most, o.Slack)
		}
	}
	if filterMutant {
		most--
	}
	limit := int64(1<<63 - 1) // readers invoked no later than this
	switch {
	case most < 1:
		limit = -1 << 63
	case most-1 < len(w.fNear):
		limit = w.fNear[most-1]
	}
	if int(e) < len(w.by) {
		for _, j := range slices.Backward(w.by[e]) {
			if w.open(j) && w.ops[j].Call <= limit {
				if need--; need == 0 {
					return true
				}
			}
		}
	}
	tailFiltered.Add(1)
	return false
}

// Pullable implements relax.PullLister: the puts of ops that may still be
// read whose rank window reaches the pulls' ranks, and the removal the
// content enables.
func (w *windowMachine) Pullable(spec lts.State, buf []lts.Event) []lts.Event {
	t := w.tr
	rank := t.rs.rank[spec]
	q := t.q
	for i := w.fFirst; i < len(t.calls); i++ {
		if bitIn(w.fLin, int32(i)) {
			continue
		}
		if t.lo[i]-q > rank && rank < t.rs.phantom {
			break // lo grows with the call: no later put is allowed so early
		}
		if e := t.events[i]; t.evPut[e] && int32(i) != w.fOp {
			buf = append(buf, e)
		}
	}
	c := t.ca.mc.strs[t.rs.spec[spec]]
	var x int64 // 0: empty
	if len(c) > 0 {
		x = c[0]
	}
	if e, ok := t.ca.takeOf[x]; ok {
		buf = append(buf, e)
	}
	return buf
}
