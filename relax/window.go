package relax

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lts"
)

// Window-mode states. A state is either a spec state (tagOrig: no window is
// open) or an open window (tagWin): the spec state reached after the part
// of the window's spec path performed so far, the number k of events of
// the window read so far, and the pending positions of that path, each
// with its event: performed by the spec, not yet read. Positions 0..m-1 of
// the window's path (m = k + pending) are performed: the pending ones and
// the k that were read.
//
// This is the window read lazily, one event at a time: nothing about the
// rest of the path or the permutation is chosen in advance, and every
// permuted window that agrees with what was read so far is one state. See
// doc.go ("Window mode") for the rules and why they give the language of
// Algorithms 2-4.
const (
	tagOrig = 0
	tagWin  = 1
)

// wpend is a pending position of an open window.
type wpend struct {
	pos uint8
	e   lts.Event
}

func (r *Relaxed) internOrig(sp lts.State) lts.State {
	b := append(r.key[:0], tagOrig)
	b = binary.AppendUvarint(b, uint64(sp))
	r.key = b
	id, _ := r.states.Intern(b)
	return lts.State(id)
}

// internWindow interns the open window (sp, k, pend), pend sorted by
// position; with nothing pending the window is closed: the spec state sp.
func (r *Relaxed) internWindow(sp lts.State, k int, pend []wpend) lts.State {
	if len(pend) == 0 {
		return r.internOrig(sp)
	}
	b := append(r.key[:0], tagWin)
	b = binary.AppendUvarint(b, uint64(sp))
	b = append(b, uint8(k))
	for _, p := range pend {
		b = append(b, p.pos)
		b = binary.AppendUvarint(b, uint64(p.e))
	}
	r.key = b
	id, added := r.states.Intern(b)
	if added {
		r.stats.Pseudo++
	}
	return lts.State(id)
}

// decodeWindow decodes a window-mode state, appending its pending
// positions to pend.
func decodeWindow(b []byte, pend []wpend) (tag byte, sp lts.State, k int, _ []wpend) {
	tag = b[0]
	b = b[1:]
	v, n := binary.Uvarint(b)
	b = b[n:]
	sp = lts.State(v)
	if tag == tagOrig {
		return tag, sp, 0, pend
	}
	k = int(b[0])
	b = b[1:]
	for len(b) > 0 {
		pos := b[0]
		e, n := binary.Uvarint(b[1:])
		b = b[1+n:]
		pend = append(pend, wpend{pos, lts.Event(e)})
	}
	return tag, sp, k, pend
}

// movable reports whether e may change its position inside a window.
func (r *Relaxed) movable(e lts.Event) bool { return r.kind(e) >= kindClass }

// windowLive reports whether an open window with k events read and pend
// pending (sorted by position) can be completed: whether the pending
// positions can be read at indices k..m-1 (m = k + len(pend)), each
// movable one at most qf indices after its position, each rigid one at
// its own position. It is enough to try these indices only: a completion
// that extends the path further can be rearranged into one that does not
// (doc.go). Movable positions take the free indices in increasing order
// (the earliest deadline first), which succeeds whenever any assignment
// does.
func windowLive(k int, pend []wpend, qf int, movable func(lts.Event) bool) bool {
	m := k + len(pend)
	if m > 2*qf+1 {
		return false
	}
	var rigid uint32 // indices reserved by rigid pending positions
	for _, p := range pend {
		if !movable(p.e) {
			if int(p.pos) < k {
				return false
			}
			rigid |= 1 << p.pos
		}
	}
	f := k
	for _, p := range pend {
		if !movable(p.e) {
			continue
		}
		for rigid&(1<<f) != 0 {
			f++
		}
		if f > int(p.pos)+qf || int(p.pos)-f > qf {
			return false
		}
		f++
	}
	return true
}

// expandWindow computes the transitions of a window-mode state on every
// event a, read as the window's event at index k (k = 0 in a spec state,
// which opens a window):
//
//   - discharge: a is pending at position p; a rigid a needs p = k. Of
//     several pending copies of a movable a only the first (lowest
//     position) is taken: the state that keeps a later copy has every run
//     of the one that keeps an earlier copy.
//   - fresh: the spec performs j more positions of the path (pulled, they
//     become pending; never a barrier), then a at position p = m + j, with
//     p - k <= qf and p <= 2qf. A rigid a needs p = k (so a spec state and
//     j = 0), a barrier a spec state and j = 0; a movable a read at an
//     index k != p needs position k not to hold a rigid event.
//
// A successor is kept only if it can still be completed (windowLive);
// one with nothing pending is the spec state it reached.
func (r *Relaxed) expandWindow(s lts.State, emit func(RunStep, lts.State)) error {
	tag, sp, k, pend := decodeWindow(r.states.Get(uint32(s)), r.wpend[:0])
	r.wpend = pend
	w := &r.wstep
	*w = windowStep{r: r, qf: r.cfg.windowFactor(), emit: emit, open: tag == tagWin, sp: sp, k: k,
		pend: pend, m: k + len(pend), pulled: w.pulled[:0], next: w.next[:0]}
	// Discharges.
	for i, p := range pend {
		if r.movable(p.e) {
			if slices.ContainsFunc(pend[:i], func(q wpend) bool { return q.e == p.e }) {
				continue
			}
		} else if int(p.pos) != k {
			continue
		}
		w.next = append(w.next[:0], pend[:i]...)
		w.next = append(w.next, pend[i+1:]...)
		if !windowLive(k+1, w.next, w.qf, r.movable) {
			continue
		}
		emit(RunStep{Event: p.e, Kind: "in-window"}, r.internWindow(sp, k+1, w.next))
	}
	// Fresh events, after j = 0..maxPull pulled positions.
	maxPull := min(w.qf-len(pend), 2*w.qf-w.m)
	return w.walk(sp, 0, maxPull)
}

type windowStep struct {
	r      *Relaxed
	qf     int
	emit   func(RunStep, lts.State)
	open   bool // a window is open (the state is not a spec state)
	sp     lts.State
	k, m   int
	pend   []wpend
	pulled []lts.Event // positions m, m+1, ... performed by this step
	next   []wpend
	count  int // spec steps tried, against maxExpansion
}

func (w *windowStep) walk(u lts.State, j, maxPull int) error {
	r := w.r
	edges, err := r.specEdges(u)
	if err != nil {
		return err
	}
	p := w.m + j // the position of an event performed now
	for lo := 0; lo < len(edges); {
		e := edges[lo].e
		hi := lo + 1
		for hi < len(edges) && edges[hi].e == e {
			hi++
		}
		tgs := edges[lo:hi]
		lo = hi
		kind := r.kind(e)
		read := false
		switch {
		case kind == kindBarrier || kind == kindRigid:
			read = !w.open && j == 0
		case p == w.k:
			read = true
		default:
			read = !w.rigidAt(w.k)
		}
		pull := j < maxPull && kind != kindBarrier && (kind != kindRigid || p != w.k)
		if !read && !pull {
			continue
		}
		if w.count += len(tgs); w.count > maxExpansion {
			return expansionError()
		}
		if r.interrupted() {
			return errInterrupted
		}
		if read {
			w.next = append(w.next[:0], w.pend...)
			for i, b := range w.pulled {
				w.next = append(w.next, wpend{uint8(w.m + i), b})
			}
			if windowLive(w.k+1, w.next, w.qf, r.movable) {
				step := RunStep{Event: e, Kind: "in-window"}
				switch {
				case !w.open && len(w.next) == 0:
					step.Kind = "spec"
				case !w.open:
					step.Kind = "window"
				}
				for _, t := range tgs {
					if r.detail {
						step.Spec = append(slices.Clone(w.pulled), e)
					}
					w.emit(step, r.internWindow(t.t, w.k+1, w.next))
				}
			}
		}
		if pull {
			for _, t := range tgs {
				w.pulled = append(w.pulled, e)
				err := w.walk(t.t, j+1, maxPull)
				w.pulled = w.pulled[:len(w.pulled)-1]
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// specEdges returns the transitions of spec state u, sorted by event and
// target, memoised (window mode walks the same spec states over and over).
func (r *Relaxed) specEdges(u lts.State) ([]trans, error) {
	if ts, ok := r.specMemo[u]; ok {
		return ts, nil
	}
	evs, err := r.spec.Enabled(u, nil)
	if err != nil {
		return nil, err
	}
	var ts []trans
	var tgs []lts.State
	for _, e := range evs {
		if tgs, err = r.spec.Step(u, e, tgs[:0]); err != nil {
			return nil, err
		}
		slices.Sort(tgs)
		for i, t := range tgs {
			if i == 0 || t != tgs[i-1] {
				ts = append(ts, trans{e, t})
			}
		}
	}
	if r.specMemo == nil {
		r.specMemo = map[lts.State][]trans{}
	}
	r.specMemo[u] = ts
	return ts, nil
}

// rigidAt reports whether path position i (i < m + len(pulled)) holds a
// rigid event that is not read yet.
func (w *windowStep) rigidAt(i int) bool {
	if i >= w.m {
		return i-w.m < len(w.pulled) && !w.r.movable(w.pulled[i-w.m])
	}
	for _, p := range w.pend {
		if int(p.pos) == i {
			return !w.r.movable(p.e)
		}
	}
	return false
}

// describeWindow renders a window-mode state: "s3" (a spec state) or
// "s3 <- deq.1@0 enq.4@2 (window at 2)" (an open window: the spec state
// reached, the pending events with their path positions, and the number of
// events of the window read so far).
func (r *Relaxed) describeWindow(b []byte) string {
	tag, sp, k, pend := decodeWindow(b, nil)
	if tag == tagOrig {
		return r.specName(sp)
	}
	var sb strings.Builder
	sb.WriteString(r.specName(sp))
	sb.WriteString(" <-")
	for _, p := range pend {
		fmt.Fprintf(&sb, " %s@%d", r.table.Name(p.e), p.pos)
	}
	fmt.Fprintf(&sb, " (window at %d)", k)
	return sb.String()
}

// Subsumes reports whether every trace accepted from state b is accepted
// from state a, by a sufficient test. In window mode, b is an open window
// (sB, kB, PB) and a is a spec state or an open window (sA, kA, PA), with
// kA <= kB (a spec state has kA = 0), and there is a word W of movable
// events, possibly empty, with sA -W-> sB in the spec and PB made of PA's
// events and W's: a with W pulled, the state a' = (sB, kA, PA + W at
// offsets |PA|, |PA|+1, …), matches b position by position. The offset of
// a pending position is p - k, its distance from the next index to read;
// the rigid positions must have equal offsets, and the movable ones,
// event by event (the i-th copy of an event with the i-th), a' no smaller
// than b (a later position has a later deadline, and nothing else depends
// on a movable position). Then a makes every move b makes: the same
// discharges and fresh reads, pulling W's events on the way when b reads
// one of them or pulls past them (a's pull budget, QF - pending, is b's),
// with as much room left in its window (kA <= kB), and closes with it.
// The relation is a partial order; Reduce keeps the states of a set that
// no other one subsumes.
func (r *Relaxed) Subsumes(a, b lts.State) bool {
	if a == b {
		return true
	}
	if r.cfg.Mode != Window {
		return false
	}
	sb := r.summary(b)
	if sb.shape == 0 {
		return false
	}
	for _, sa := range r.pulls(a) {
		if sa.shape == sb.shape && r.dominates(sa, sb) {
			return true
		}
	}
	return false
}

// A window summary: the shape of an open window (spec state, pending
// events, offsets of the rigid ones), interned, and what subsumption
// compares within a shape: k and the movable offsets, in the shape's order.
type winSummary struct {
	shape uint32 // shapes id + 1; 0: a spec state
	k     uint8
	n     uint8  // movable pending positions
	vec   uint32 // their offsets: r.vecs[vec : vec+n]
}

func (r *Relaxed) dominates(a, b winSummary) bool {
	if a.k > b.k || a.n != b.n {
		return false
	}
	va, vb := r.vecs[a.vec:a.vec+uint32(a.n)], r.vecs[b.vec:b.vec+uint32(b.n)]
	for i := range va {
		if va[i] < vb[i] {
			return false
		}
	}
	return true
}

// summarize computes the summary of the open window (sp, k, pend); pend is
// reordered.
func (r *Relaxed) summarize(sp lts.State, k int, pend []wpend) winSummary {
	// Canonical order: by event, then offset.
	slices.SortFunc(pend, func(x, y wpend) int {
		if c := cmpU32(uint32(x.e), uint32(y.e)); c != 0 {
			return c
		}
		return int(x.pos) - int(y.pos)
	})
	sum := winSummary{k: uint8(k), vec: uint32(len(r.vecs))}
	b := binary.AppendUvarint(r.key[:0], uint64(sp))
	for _, p := range pend {
		b = binary.AppendUvarint(b, uint64(p.e))
		off := int(p.pos) - k
		if r.movable(p.e) {
			b = append(b, 0)
			r.vecs = append(r.vecs, int8(off))
			sum.n++
		} else {
			b = append(b, 1, byte(int8(off)))
		}
	}
	r.key = b
	if r.shapes == nil {
		r.shapes = intern.New(1024)
	}
	id, _ := r.shapes.Intern(b)
	sum.shape = id + 1
	return sum
}

// summary is the summary of state s (shape 0 for a spec state), memoised.
func (r *Relaxed) summary(s lts.State) winSummary {
	r.growSums(s)
	if r.sums[s] == nil {
		r.computeSums(s)
	}
	return r.sums[s][0]
}

// pulls are the summaries of the states a' of Subsumes for state a: a
// itself (if open) and a with every non-empty word W pulled. Memoised;
// pulls(a)[0] is summary(a).
func (r *Relaxed) pulls(a lts.State) []winSummary {
	r.growSums(a)
	if r.sums[a] == nil {
		r.computeSums(a)
	}
	return r.sums[a]
}

func (r *Relaxed) growSums(s lts.State) {
	for int(s) >= len(r.sums) {
		r.sums = append(r.sums, nil)
	}
}

// maxVariants bounds the variants of one state (a spec with a large
// alphabet has (branching)^QF words): the later words are not tried, which
// only drops fewer states.
const maxVariants = 1 << 12

func (r *Relaxed) computeSums(s lts.State) {
	tag, sp, k, pend := decodeWindow(r.states.Get(uint32(s)), nil)
	sums := []winSummary{{}}
	if tag == tagWin {
		sums[0] = r.summarize(sp, k, slices.Clone(pend))
	}
	m := k + len(pend)
	budget := min(r.cfg.windowFactor()-len(pend), 2*r.cfg.windowFactor()+1-m)
	var walk func(u lts.State, w []wpend)
	walk = func(u lts.State, w []wpend) {
		if len(w) >= budget {
			return
		}
		edges, _ := r.specEdges(u) // an error: no variants (fewer states dropped)
		for _, ed := range edges {
			if !r.movable(ed.e) || len(sums) > maxVariants {
				continue
			}
			w := append(w, wpend{uint8(m + len(w)), ed.e})
			sums = append(sums, r.summarize(ed.t, k, append(slices.Clone(pend), w...)))
			walk(ed.t, w)
		}
	}
	walk(sp, nil)
	r.sums[s] = sums
}

// winEntry is an entry of a shape group in Reduce: state states[i], its
// variant v (0: itself), the next entry of the group (-1: none).
type winEntry struct {
	i, v uint32
	next int32
}

// Reduce implements refine.Reducer: of a sorted set of states it keeps
// those that no other state of the set subsumes (Subsumes; the relation is
// a partial order, so the result is a function of the set). It groups the
// open windows of the set and the pulled variants of every state by shape
// and compares within a group. In exact mode it returns the set unchanged.
func (r *Relaxed) Reduce(states []lts.State) []lts.State {
	if r.cfg.Mode != Window || len(states) < 2 {
		return states
	}
	// Group the open windows of the set by shape, and add to each group
	// the variants (pulls) of the set's states that have its shape: a
	// state is dropped if some entry of its group from another state
	// dominates it. Groups are lists threaded through r.ents, headed by
	// r.heads[shape] when r.marks[shape] is this call's stamp.
	r.stamp++
	if r.stamp == 0 { // wrapped: clear the marks
		clear(r.marks)
		r.stamp = 1
	}
	ents, shapes := r.ents[:0], r.shapeList[:0]
	for i, s := range states {
		if sum := r.summary(s); sum.shape != 0 {
			sh := sum.shape
			for int(sh) >= len(r.marks) {
				r.marks = append(r.marks, 0)
				r.heads = append(r.heads, 0)
			}
			if r.marks[sh] != r.stamp {
				r.marks[sh], r.heads[sh] = r.stamp, -1
				shapes = append(shapes, sh)
			}
			ents = append(ents, winEntry{i: uint32(i), next: r.heads[sh]})
			r.heads[sh] = int32(len(ents) - 1)
		}
	}
	if len(ents) == 0 {
		r.ents, r.shapeList = ents, shapes
		return states
	}
	for i, s := range states {
		for v, sum := range r.pulls(s)[1:] {
			if sh := sum.shape; int(sh) < len(r.marks) && r.marks[sh] == r.stamp {
				ents = append(ents, winEntry{i: uint32(i), v: uint32(v + 1), next: r.heads[sh]})
				r.heads[sh] = int32(len(ents) - 1)
			}
		}
	}
	r.ents, r.shapeList = ents, shapes
	drop := r.drop[:0]
	for range states {
		drop = append(drop, false)
	}
	r.drop = drop
	dropped := false
	for _, sh := range shapes {
		for b := r.heads[sh]; b >= 0; b = ents[b].next {
			eb := ents[b]
			if eb.v != 0 {
				continue // a variant: not a state of the set
			}
			sb := r.sums[states[eb.i]][0]
			for a := r.heads[sh]; a >= 0; a = ents[a].next {
				if ea := ents[a]; ea.i != eb.i && r.dominates(r.sums[states[ea.i]][ea.v], sb) {
					drop[eb.i] = true
					dropped = true
					break
				}
			}
		}
	}
	if !dropped {
		return states
	}
	out := states[:0]
	for i, s := range states {
		if !drop[i] {
			out = append(out, s)
		}
	}
	return out
}

// Covering implements refine.Coverer: in window mode with a positive
// factor, Covers can find subsumed states.
func (r *Relaxed) Covering() bool { return r.cfg.Mode == Window && r.cfg.windowFactor() > 0 }

// Covers implements refine.Coverer: every state of a (sorted) is in b
// (sorted) or subsumed by a state of b (Subsumes), so every trace accepted
// from a is accepted from b. The relation is transitive (Subsumes is).
func (r *Relaxed) Covers(a, b []lts.State) bool {
	// The states of a not in b; each must be an open window.
	xs := r.tgts[:0]
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			continue
		}
		if r.summary(x).shape == 0 {
			r.tgts = xs
			return false
		}
		xs = append(xs, x)
	}
	r.tgts = xs
	if len(xs) == 0 {
		return true
	}
	if r.cfg.Mode != Window {
		return false
	}
	// Group the variants of b's states by the shapes of xs.
	r.stamp++
	if r.stamp == 0 {
		clear(r.marks)
		r.stamp = 1
	}
	ents := r.ents[:0]
	for _, x := range xs {
		sh := r.summary(x).shape
		for int(sh) >= len(r.marks) {
			r.marks = append(r.marks, 0)
			r.heads = append(r.heads, 0)
		}
		if r.marks[sh] != r.stamp {
			r.marks[sh], r.heads[sh] = r.stamp, -1
		}
	}
	for i, y := range b {
		for v, sum := range r.pulls(y) {
			if sh := sum.shape; sh != 0 && int(sh) < len(r.marks) && r.marks[sh] == r.stamp {
				ents = append(ents, winEntry{i: uint32(i), v: uint32(v), next: r.heads[sh]})
				r.heads[sh] = int32(len(ents) - 1)
			}
		}
	}
	r.ents = ents
	for _, x := range xs {
		sx := r.summary(x)
		found := false
		for e := r.heads[sx.shape]; e >= 0; e = ents[e].next {
			if r.dominates(r.sums[b[ents[e].i]][ents[e].v], sx) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
