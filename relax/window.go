package relax

import (
	"encoding/binary"
	"slices"

	"github.com/quasar-verify/quasar/lts"
)

// Window-mode states: a spec state (tagOrig) or a pseudo-state (tagPseudo)
// inside a permuted window, which must perform the rest of the window (a
// fixed word) and then is the window's end state. Pseudo-states with the
// same remaining word and end state have the same future, so they are one
// state; this keeps the language of Algorithm 3 and shrinks the subset
// construction.
const (
	tagOrig   = 0
	tagPseudo = 1
)

func (r *Relaxed) internOrig(sp lts.State) lts.State {
	b := append(r.key[:0], tagOrig)
	b = binary.AppendUvarint(b, uint64(sp))
	r.key = b
	id, _ := r.states.Intern(b)
	return lts.State(id)
}

func (r *Relaxed) internPseudo(end lts.State, word []lts.Event) lts.State {
	if len(word) == 0 {
		return r.internOrig(end)
	}
	b := append(r.key[:0], tagPseudo)
	b = binary.AppendUvarint(b, uint64(end))
	for _, e := range word {
		b = binary.AppendUvarint(b, uint64(e))
	}
	r.key = b
	id, added := r.states.Intern(b)
	if added {
		r.stats.Pseudo++
	}
	return lts.State(id)
}

func decodeWindow(b []byte) (tag byte, end lts.State, word []lts.Event) {
	tag = b[0]
	b = b[1:]
	v, n := binary.Uvarint(b)
	b = b[n:]
	end = lts.State(v)
	for len(b) > 0 {
		e, n := binary.Uvarint(b)
		b = b[n:]
		word = append(word, lts.Event(e))
	}
	return tag, end, word
}

// movable reports whether e may change its position inside a window.
func (r *Relaxed) movable(e lts.Event) bool { return r.kind(e) >= kindClass }

// expandWindow computes the transitions of a window-mode state. A
// pseudo-state performs the next event of its word. A spec state s has its
// spec edges, and for every spec path s -e1..eL-> t with 2 <= L <= 2QF+1
// and every permutation p of e1..eL other than the path itself in which
// every event moves by at most QF positions (|new - old| <= QF for every
// event, the last included: the inclusive version of Algorithm 4) and only
// movable events move, the edge s -p1-> (p2..pL, t) (Algorithm 3).
// A barrier is a window of its own: paths stop at barriers.
func (r *Relaxed) expandWindow(s lts.State, emit func(RunStep, lts.State)) error {
	tag, sp, word := decodeWindow(r.states.Get(uint32(s)))
	if tag == tagPseudo {
		emit(RunStep{Event: word[0], Kind: "in-window"}, r.internPseudo(sp, word[1:]))
		return nil
	}
	w := windowSearch{r: r, qf: r.cfg.windowFactor(), emit: emit}
	return w.walk(sp, 0)
}

type windowSearch struct {
	r     *Relaxed
	qf    int
	path  []lts.Event
	word  []lts.Event
	emit  func(RunStep, lts.State)
	count int // permuted windows tried, against maxExpansion
}

func (w *windowSearch) walk(u lts.State, depth int) error {
	r := w.r
	evs, tgs := r.scratch(depth)
	defer func() { r.keep(depth, evs, tgs) }()
	var err error
	evs, err = r.spec.Enabled(u, evs)
	if err != nil {
		return err
	}
	for _, e := range evs {
		barrier := r.kind(e) == kindBarrier
		if barrier && depth > 0 {
			continue
		}
		tgs, err = r.spec.Step(u, e, tgs[:0])
		if err != nil {
			return err
		}
		for i := 0; i < len(tgs); i++ {
			t := tgs[i]
			w.path = append(w.path, e)
			w.count++
			if w.count > maxExpansion {
				return expansionError()
			}
			if r.interrupted() {
				return errInterrupted
			}
			if depth == 0 {
				var spec []lts.Event
				if r.detail {
					spec = []lts.Event{e}
				}
				w.emit(RunStep{Event: e, Kind: "spec", Spec: spec}, r.internOrig(t))
			} else if err := w.permute(t); err != nil {
				return err
			}
			if !barrier && len(w.path) < 2*w.qf+1 {
				if err := w.walk(t, depth+1); err != nil {
					return err
				}
			}
			w.path = w.path[:len(w.path)-1]
		}
	}
	return nil
}

// permute emits the first edge of every valid permutation of w.path (other
// than the path itself) that ends in t.
func (w *windowSearch) permute(t lts.State) error {
	var fixed uint64
	for i, e := range w.path {
		if !w.r.movable(e) {
			fixed |= 1 << i
		}
	}
	for _, perm := range w.r.permutations(len(w.path), w.qf, fixed) {
		w.count++
		if w.r.interrupted() {
			return errInterrupted
		}
		w.word = w.word[:0]
		same := true
		for i, k := range perm {
			w.word = append(w.word, w.path[k])
			if w.path[k] != w.path[i] {
				same = false
			}
		}
		if same {
			continue // the spec path itself (or the same word): already there
		}
		var spec []lts.Event
		if w.r.detail {
			spec = slices.Clone(w.path)
		}
		w.emit(RunStep{Event: w.word[0], Kind: "window", Spec: spec}, w.r.internPseudo(t, w.word[1:]))
	}
	return nil
}

// permutations returns the permutations p of 0..n-1 (p[i] is the original
// position of the event placed at i) with |p[i] - i| <= qf for every i and
// p[i] = i for the fixed positions, the identity included. Memoised.
func (r *Relaxed) permutations(n, qf int, fixed uint64) [][]uint8 {
	key := uint64(n)<<56 | uint64(qf)<<48 | fixed
	if ps, ok := r.perms[key]; ok {
		return ps
	}
	ps := boundedPerms(n, qf, fixed)
	r.perms[key] = ps
	return ps
}

// boundedPerms enumerates, in lexicographic order, the permutations of
// 0..n-1 that move every element by at most qf and fix the positions in
// fixed.
func boundedPerms(n, qf int, fixed uint64) [][]uint8 {
	var out [][]uint8
	cur := make([]uint8, 0, n)
	used := make([]bool, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			out = append(out, slices.Clone(cur))
			return
		}
		// Element i-qf must be placed by position i at the latest.
		if lo := i - qf; lo >= 0 && !used[lo] {
			if fixed&(1<<lo) != 0 && lo != i {
				return
			}
			used[lo] = true
			cur = append(cur, uint8(lo))
			rec(i + 1)
			cur = cur[:len(cur)-1]
			used[lo] = false
			return
		}
		for k := max(0, i-qf); k <= min(n-1, i+qf); k++ {
			if used[k] {
				continue
			}
			if (fixed&(1<<k) != 0 || fixed&(1<<i) != 0) && k != i {
				continue
			}
			used[k] = true
			cur = append(cur, uint8(k))
			rec(i + 1)
			cur = cur[:len(cur)-1]
			used[k] = false
		}
	}
	rec(0)
	return out
}
