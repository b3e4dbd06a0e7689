package relax

import (
	"fmt"

	"github.com/quasar-verify/quasar/lts"
)

// Admits reports whether trace is admitted by spec relaxed with cfg. It is
// an independent re-validator: it searches directly for the objects of the
// declarative characterisation in doc.go (a spec path σ and a placement f
// of the trace's events on it in exact mode; a decomposition into permuted
// windows in window mode), without the relaxed automaton, its obligations,
// slacks or interned states. It is exponential in the worst case and meant
// for counterexamples and tests; past MaxAdmitsSteps search steps it gives
// up with an error wrapping lts.ErrLimit.
func Admits(spec lts.Automaton, cfg Config, trace []lts.Event) (bool, error) {
	if err := cfg.Validate(); err != nil {
		return false, fmt.Errorf("relax: %w", err)
	}
	cls := newClassifier(spec.Events(), cfg)
	if cfg.Mode == Window {
		w := &windowAdmits{spec: spec, cls: cls, trace: trace, qf: cfg.windowFactor(), failed: map[[2]int]bool{}}
		for _, s := range spec.Start(nil) {
			ok, err := w.from(0, s)
			if ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	}
	x := &exactAdmits{spec: spec, cls: cls, trace: trace, complete: cfg.Complete}
	x.bound = func(d int) int {
		if len(cfg.Classes) == 0 {
			return cfg.All
		}
		return cfg.Classes[d].Bound
	}
	for _, s := range spec.Start(nil) {
		ok, err := x.step(0, s)
		if ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// MaxAdmitsSteps bounds the search of Admits.
const MaxAdmitsSteps = 1 << 26

var maxAdmitsSteps = MaxAdmitsSteps // lowered by tests

var errAdmitsLimit = fmt.Errorf("relax: re-validation needs more than %d search steps: %w", MaxAdmitsSteps, lts.ErrLimit)

// classifier sorts events into rigid (-1), barrier (-2) and class d >= 0,
// written out again here so that Admits shares no code with the automaton.
type classifier struct {
	table *lts.EventTable
	cfg   Config
}

func newClassifier(t *lts.EventTable, cfg Config) *classifier { return &classifier{t, cfg} }

const (
	rigidClass   = -1
	barrierClass = -2
)

func (c *classifier) class(e lts.Event) int {
	if e == lts.Tau || int(e) >= c.table.Len() {
		return rigidClass // unknown to the spec: it cannot perform it
	}
	for _, p := range c.cfg.Barriers {
		if p.Match(c.table, e) {
			return barrierClass
		}
	}
	if len(c.cfg.Classes) == 0 {
		if c.cfg.All > 0 {
			return 0
		}
		return rigidClass
	}
	for d, cl := range c.cfg.Classes {
		for _, p := range cl.Patterns {
			if p.Match(c.table, e) {
				return d
			}
		}
	}
	return rigidClass
}

// exactAdmits searches for a spec path σ and an injective, label-preserving
// placement f of the trace on σ satisfying (R), (P), (B) and (D) of doc.go.
// It builds σ left to right as the trace is read: trace event t is either
// placed on an unplaced position of σ already built, or σ is extended by
// a path of same-class events (left unplaced) followed by the event.
type exactAdmits struct {
	spec     lts.Automaton
	cls      *classifier
	trace    []lts.Event
	complete bool
	bound    func(d int) int

	sigma []pos // σ built so far
	steps int
}

type pos struct {
	e      lts.Event
	class  int
	rank   int // rank among the class's positions of σ
	placed bool
}

func (x *exactAdmits) classRank(d int) int {
	n := 0
	for _, p := range x.sigma {
		if p.class == d {
			n++
		}
	}
	return n
}

func (x *exactAdmits) traceRank(t, d int) int {
	n := 0
	for _, e := range x.trace[:t] {
		if x.cls.class(e) == d {
			n++
		}
	}
	return n
}

// pendingOK checks (D) for unplaced class-d positions once n class-d
// trace events have been read: each could still be placed at rank n.
func (x *exactAdmits) pendingOK(d, n int) bool {
	for _, p := range x.sigma {
		if p.class == d && !p.placed && p.rank+x.bound(d) < n {
			return false
		}
	}
	return true
}

// step places trace[t] with σ ending in spec state u.
func (x *exactAdmits) step(t int, u lts.State) (bool, error) {
	if x.steps++; x.steps > maxAdmitsSteps {
		return false, errAdmitsLimit
	}
	if t == len(x.trace) {
		if x.complete {
			for _, p := range x.sigma {
				if !p.placed {
					return false, nil
				}
			}
		}
		return true, nil
	}
	a := x.trace[t]
	d := x.cls.class(a)
	if d < 0 {
		// (Rg), (P): rigid events and barriers extend σ where they occur;
		// (B): a barrier needs every earlier position placed.
		if d == barrierClass {
			for _, p := range x.sigma {
				if !p.placed {
					return false, nil
				}
			}
		}
		return x.extend(t, u, a, d)
	}
	q := x.bound(d)
	rt := x.traceRank(t, d)
	// Place a on an unplaced position of σ holding a (|rank difference| <= Q).
	for i := range x.sigma {
		p := x.sigma[i]
		if p.placed || p.e != a || abs(p.rank-rt) > q {
			continue
		}
		// Index, not pointer: the recursion may grow (move) σ.
		x.sigma[i].placed = true
		ok := x.pendingOK(d, rt+1)
		var err error
		if ok {
			ok, err = x.step(t+1, u)
		}
		x.sigma[i].placed = false
		if ok || err != nil {
			return ok, err
		}
	}
	// Or extend σ by unplaced class-d events, then a.
	return x.pull(t, u, a, d, q, rt)
}

// pull extends σ by class-d events (unplaced) while a placed at the end
// could still satisfy |rank difference| <= Q, trying a after each.
func (x *exactAdmits) pull(t int, u lts.State, a lts.Event, d, q, rt int) (bool, error) {
	if x.steps++; x.steps > maxAdmitsSteps {
		return false, errAdmitsLimit
	}
	rs := x.classRank(d)
	if rs-rt > q {
		return false, nil
	}
	if ok, err := x.extend(t, u, a, d); ok || err != nil {
		return ok, err
	}
	if rs+1-rt > q {
		return false, nil
	}
	evs, err := x.spec.Enabled(u, nil)
	if err != nil {
		return false, err
	}
	for _, b := range evs {
		if x.cls.class(b) != d {
			continue
		}
		vs, err := x.spec.Step(u, b, nil)
		if err != nil {
			return false, err
		}
		for _, v := range vs {
			x.sigma = append(x.sigma, pos{e: b, class: d, rank: rs})
			ok, err := x.pull(t, v, a, d, q, rt)
			x.sigma = x.sigma[:len(x.sigma)-1]
			if ok || err != nil {
				return ok, err
			}
		}
	}
	return false, nil
}

// extend appends a (placed) to σ and goes on with trace[t+1].
func (x *exactAdmits) extend(t int, u lts.State, a lts.Event, d int) (bool, error) {
	vs, err := x.spec.Step(u, a, nil)
	if err != nil || len(vs) == 0 {
		return false, err
	}
	rank := 0
	if d >= 0 {
		rank = x.classRank(d)
		if abs(rank-x.traceRank(t, d)) > x.bound(d) {
			return false, nil
		}
	}
	x.sigma = append(x.sigma, pos{e: a, class: d, rank: rank, placed: true})
	defer func() { x.sigma = x.sigma[:len(x.sigma)-1] }()
	if d >= 0 && !x.pendingOK(d, x.traceRank(t, d)+1) {
		return false, nil
	}
	for _, v := range vs {
		if ok, err := x.step(t+1, v); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// windowAdmits searches for a decomposition of the trace into consecutive
// blocks, each a permutation of a spec window (a path of 1..2QF+1 events
// from the state the previous window ended in) that moves every event by
// at most QF positions and moves only movable events; the last block may be
// a prefix of one. A barrier is a window of its own.
type windowAdmits struct {
	spec   lts.Automaton
	cls    *classifier
	trace  []lts.Event
	qf     int
	failed map[[2]int]bool // (t, spec state) already shown to fail
	steps  int
}

func (w *windowAdmits) from(t int, u lts.State) (bool, error) {
	if t == len(w.trace) {
		return true, nil
	}
	key := [2]int{t, int(u)}
	if w.failed[key] {
		return false, nil
	}
	ok, err := w.paths(t, u, u, nil)
	if err == nil && !ok {
		w.failed[key] = true
	}
	return ok, err
}

// paths enumerates spec paths from the window start; for each, tries every
// permutation against the trace at t.
func (w *windowAdmits) paths(t int, start, u lts.State, path []lts.Event) (bool, error) {
	if len(path) == 2*w.qf+1 {
		return false, nil
	}
	evs, err := w.spec.Enabled(u, nil)
	if err != nil {
		return false, err
	}
	for _, e := range evs {
		barrier := w.cls.class(e) == barrierClass
		if barrier && len(path) > 0 {
			continue
		}
		vs, err := w.spec.Step(u, e, nil)
		if err != nil {
			return false, err
		}
		// Pruning: the j-th event of a window lands within qf positions
		// of j, so it must occur there in the trace when all those
		// positions are inside the trace.
		j := len(path)
		if t+j+w.qf < len(w.trace) && !w.occursNear(e, t+j) {
			continue
		}
		p := append(path[:len(path):len(path)], e)
		for _, v := range vs {
			if ok, err := w.try(t, v, p); ok || err != nil {
				return ok, err
			}
			if !barrier {
				if ok, err := w.paths(t, start, v, p); ok || err != nil {
					return ok, err
				}
			}
		}
	}
	return false, nil
}

func (w *windowAdmits) occursNear(e lts.Event, j int) bool {
	for i := max(0, j-w.qf); i <= j+w.qf && i < len(w.trace); i++ {
		if w.trace[i] == e {
			return true
		}
	}
	return false
}

// try checks the permutations of the window path (ending in v) against the
// trace at t: every permutation of its positions, pruned as soon as a
// placed event differs from the trace.
func (w *windowAdmits) try(t int, v lts.State, path []lts.Event) (bool, error) {
	n := len(path)
	perm := make([]int, n)
	used := make([]bool, n)
	var rec func(i int) (bool, error)
	rec = func(i int) (bool, error) {
		if w.steps++; w.steps > maxAdmitsSteps {
			return false, errAdmitsLimit
		}
		if i == n {
			for j, k := range perm {
				if abs(j-k) > w.qf {
					return false, nil
				}
				if k != j && w.cls.class(path[k]) < 0 {
					return false, nil // rigid events keep their place
				}
			}
			if t+n > len(w.trace) {
				return true, nil // the trace ends inside this window
			}
			return w.from(t+n, v)
		}
		for k := 0; k < n; k++ {
			if used[k] || t+i < len(w.trace) && w.trace[t+i] != path[k] {
				continue
			}
			used[k] = true
			perm[i] = k
			ok, err := rec(i + 1)
			used[k] = false
			if ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	}
	return rec(0)
}
