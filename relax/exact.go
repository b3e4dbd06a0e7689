package relax

import (
	"encoding/binary"
	"slices"

	"github.com/quasar-verify/quasar/lts"
)

// obligation is a class-d event the spec performed ahead of the
// implementation ("pulled"); the implementation owes it. slack is the
// number of further class-d events (the owed one included) within which it
// must occur: ageing decrements it, and reaching 0 is a violation.
type obligation struct {
	e     lts.Event
	slack uint8
	class int32
}

// RunStep describes one transition of a relaxed run, for explanations.
type RunStep struct {
	Event lts.Event
	// Kind, exact mode: "rigid", "barrier", "discharge" (the event was
	// owed), or "fresh" (a relaxed event the spec performs now, after
	// pulling the events before it in Spec). Window mode: "spec" (a spec
	// edge: a window of one event), "window" (the first event of a
	// permuted window, with the spec events performed for it, pulled ones
	// first), or "in-window" (a later event of the window: a pending one,
	// Spec empty, or a fresh one with its pulls).
	Kind string
	// Spec lists the spec events performed by this step, in order: the
	// pulled events, then the event itself (empty for a discharge).
	Spec []lts.Event
}

// encodeExact writes (spec state, obligations) canonically: obligations
// sorted by class, then slack, then event.
func (r *Relaxed) encodeExact(sp lts.State, obs []obligation) []byte {
	slices.SortFunc(obs, func(a, b obligation) int {
		if a.class != b.class {
			return int(a.class - b.class)
		}
		if a.slack != b.slack {
			return int(a.slack) - int(b.slack)
		}
		return cmpU32(uint32(a.e), uint32(b.e))
	})
	b := binary.AppendUvarint(r.key[:0], uint64(sp))
	b = binary.AppendUvarint(b, uint64(len(obs)))
	for _, o := range obs {
		b = binary.AppendUvarint(b, uint64(o.e))
		b = append(b, o.slack)
	}
	r.key = b
	return b
}

func (r *Relaxed) internExact(sp lts.State, obs []obligation) lts.State {
	id, _ := r.states.Intern(r.encodeExact(sp, obs))
	return lts.State(id)
}

// decodeExact appends the obligations of an encoded state to obs.
func (r *Relaxed) decodeExact(b []byte, obs []obligation) (lts.State, []obligation) {
	sp, n := binary.Uvarint(b)
	b = b[n:]
	cnt, n := binary.Uvarint(b)
	b = b[n:]
	for range cnt {
		e, n := binary.Uvarint(b)
		b = b[n:]
		o := obligation{e: lts.Event(e), slack: b[0]}
		o.class = r.kind(o.e) - kindClass
		b = b[1:]
		obs = append(obs, o)
	}
	return lts.State(sp), obs
}

// age returns obs with every class-d slack decremented, or false if one
// runs out (reaches 0). skip (if >= 0) is left out: it was discharged.
func age(obs []obligation, d int32, skip int) ([]obligation, bool) {
	out := make([]obligation, 0, len(obs))
	for i, o := range obs {
		if i == skip {
			continue
		}
		if o.class == d {
			if o.slack <= 1 {
				return nil, false
			}
			o.slack--
		}
		out = append(out, o)
	}
	return out, true
}

// expandExact computes every transition of the exact-mode state s
// (docs/verdicts.md §2.2) and passes each to emit with its description.
func (r *Relaxed) expandExact(s lts.State, emit func(RunStep, lts.State)) error {
	sp, obs := r.decodeExact(r.states.Get(uint32(s)), nil)

	// Rigid events and barriers: the spec steps on them where they occur.
	// A restricted expansion (Step) needs no list of enabled events: the
	// spec's Step on a disabled event finds nothing.
	evs, tgs := r.scratch(0)
	var err error
	if r.only != lts.Tau {
		evs = append(evs, r.only)
	} else if evs, err = r.spec.Enabled(sp, evs); err != nil {
		return err
	}
	for _, e := range evs {
		if r.only != lts.Tau && e != r.only {
			continue
		}
		k := r.kind(e)
		if k != kindRigid && (k != kindBarrier || len(obs) > 0) {
			continue
		}
		tgs, err = r.spec.Step(sp, e, tgs[:0])
		if err != nil {
			return err
		}
		kind := "rigid"
		if k == kindBarrier {
			kind = "barrier"
		}
		for _, t := range tgs {
			var spec []lts.Event
			if r.detail {
				spec = []lts.Event{e}
			}
			// obs is in canonical order already: encoding leaves it as is.
			emit(RunStep{Event: e, Kind: kind, Spec: spec}, r.internExact(t, obs))
		}
	}
	r.keep(0, evs, tgs)

	// Owed events: discharge the least-slack obligation for the event
	// (obs is sorted by class then slack, so the first one) and age the
	// class. Keeping a copy with more slack is never worse, so the other
	// copies need no transition.
	for i, o := range obs {
		first := true
		for _, p := range obs[:i] {
			if p.e == o.e {
				first = false
			}
		}
		if !first || r.only != lts.Tau && o.e != r.only {
			continue
		}
		if aged, ok := age(obs, o.class, i); ok {
			emit(RunStep{Event: o.e, Kind: "discharge"}, r.internExact(sp, aged))
		}
	}

	// Fresh relaxed events: pull j <= Q(d) - |owed_d| class-d events along
	// a spec path, then step on the event. The event may also be owed (with
	// repeated data): treating it as fresh is then another run, which the
	// declarative definition allows and the discharge alone can miss when
	// a rigid event follows.
	for d, q := range r.bounds {
		if r.only != lts.Tau && r.kind(r.only) != kindClass+int32(d) {
			continue // the event is not of class d: no fresh run of d ends in it
		}
		owed := 0
		for _, o := range obs {
			if o.class == int32(d) {
				owed++
			}
		}
		aged, ok := age(obs, int32(d), -1)
		if !ok {
			continue // an obligation of d has slack 1: only its discharge may come next
		}
		f := freshSearch{r: r, d: int32(d), q: q, owed: owed, aged: aged, emit: emit}
		if r.filter != nil {
			r.cur = r.cur[:0]
			for _, o := range aged {
				r.cur = append(r.cur, Obligation{Event: o.e, Slack: int(o.slack), Class: int(o.class)})
			}
		}
		if err := f.walk(sp, 0); err != nil {
			return err
		}
	}
	return nil
}

type freshSearch struct {
	r      *Relaxed
	d      int32
	q      int
	owed   int
	aged   []obligation
	pulled []lts.Event
	emit   func(RunStep, lts.State)
	count  int // spec steps tried, against maxExpansion
}

// walk emits every class-d event enabled at u (after f.pulled), and pulls
// one more class-d event while the budget allows.
func (f *freshSearch) walk(u lts.State, depth int) error {
	r := f.r
	evs, tgs := r.scratch(depth + 1)
	defer func() { r.keep(depth+1, evs, tgs) }()
	var err error
	lister, _ := r.filter.(PullLister)
	switch {
	case r.only != lts.Tau && !r.mayPull(f.owed, len(f.pulled), f.q):
		// Nothing more may be pulled: only the event asked for matters.
		evs = append(evs, r.only)
	case r.only != lts.Tau && lister != nil:
		// The events the filter may let the run pull, and the one read.
		evs = lister.Pullable(u, evs)
		if !slices.Contains(evs, r.only) {
			evs = append(evs, r.only)
		}
	default:
		if evs, err = r.enabledIn(u, f.d, evs); err != nil {
			return err
		}
	}
	for _, a := range evs {
		if r.kind(a) != kindClass+f.d {
			continue
		}
		pull := r.mayPull(f.owed, len(f.pulled), f.q)
		slack := f.q + f.owed + len(f.pulled) // a's, if pulled
		if pull && r.filter != nil {
			pull = r.filter.MayPull(u, a, slack, r.cur)
		}
		if !pull && r.only != lts.Tau && a != r.only {
			continue // neither read nor pulled here
		}
		if f.count++; f.count > maxExpansion {
			return expansionError()
		}
		tgs, err = r.spec.Step(u, a, tgs[:0])
		if err != nil {
			return err
		}
		for i := 0; i < len(tgs); i++ {
			v := tgs[i]
			obs := append(r.obsBuf[:0], f.aged...)
			// The k-th pulled event sits at class rank (current + owed + k)
			// in the spec, so it may be performed up to Q ranks later.
			for k, p := range f.pulled {
				obs = append(obs, obligation{e: p, slack: uint8(f.q + f.owed + k), class: f.d})
			}
			if r.only == lts.Tau || a == r.only {
				var spec []lts.Event
				if r.detail {
					spec = append(slices.Clone(f.pulled), a)
				}
				f.emit(RunStep{Event: a, Kind: "fresh", Spec: spec}, r.internExact(v, obs))
			}
			r.obsBuf = obs
			if pull {
				f.pulled = append(f.pulled, a)
				if r.filter != nil {
					r.cur = append(r.cur, Obligation{Event: a, Slack: slack, Class: int(f.d)})
				}
				err := f.walk(v, depth+1)
				f.pulled = f.pulled[:len(f.pulled)-1]
				if r.filter != nil {
					r.cur = r.cur[:len(r.cur)-1]
				}
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// PatternEnabler may be implemented by a spec automaton with a large
// alphabet (a history's queue over thousands of values enables every
// enqueue everywhere): EnabledMatching appends the events enabled at s
// that match p. Exact mode uses it to list the events of a relaxed class
// without listing the whole alphabet; it must agree with Enabled.
type PatternEnabler interface {
	EnabledMatching(s lts.State, p lts.Pattern, buf []lts.Event) ([]lts.Event, error)
}

// enabledIn appends the class-d events enabled at spec state u (any order).
func (r *Relaxed) enabledIn(u lts.State, d int32, buf []lts.Event) ([]lts.Event, error) {
	start := len(buf)
	var err error
	if pe, ok := r.spec.(PatternEnabler); ok && !r.all {
		for _, p := range r.cfg.Classes[d].Patterns {
			if buf, err = pe.EnabledMatching(u, p, buf); err != nil {
				return buf, err
			}
		}
		if len(r.cfg.Classes[d].Patterns) > 1 {
			slices.Sort(buf[start:])
			buf = append(buf[:start], slices.Compact(buf[start:])...)
		}
	} else if buf, err = r.spec.Enabled(u, buf); err != nil {
		return buf, err
	}
	// Keep the events of class d (a barrier or an earlier class may claim
	// an event a pattern of d matches).
	out := buf[:start]
	for _, e := range buf[start:] {
		if r.kind(e) == kindClass+d {
			out = append(out, e)
		}
	}
	return out, nil
}

// Obligation is an owed event of an exact-mode state: the implementation
// must read Event within Slack further events of its class (the owed one
// included; see the package doc).
type Obligation struct {
	Event lts.Event
	Slack int
	Class int
}

// ExactState decodes exact-mode state s: its spec state and its
// obligations (appended to buf), sorted by class, slack, event. ok is
// false in window mode or for an unknown state. Checkers use it to prune
// configurations that cannot be completed (history's quasi search).
func (r *Relaxed) ExactState(s lts.State, buf []Obligation) (spec lts.State, obs []Obligation, ok bool) {
	if r.cfg.Mode != Exact || int(s) >= r.states.Len() {
		return 0, buf, false
	}
	b := r.states.Get(uint32(s))
	sp, n := binary.Uvarint(b)
	b = b[n:]
	cnt, n := binary.Uvarint(b)
	b = b[n:]
	for range cnt {
		e, n := binary.Uvarint(b)
		b = b[n:]
		o := Obligation{Event: lts.Event(e), Slack: int(b[0])}
		o.Class = int(r.kind(o.Event) - kindClass)
		b = b[1:]
		buf = append(buf, o)
	}
	return lts.State(sp), buf, true
}

// Kind of an event under the configuration, for ClassOf.
const (
	Rigid   = -1
	Barrier = -2
)

// ClassOf classifies e in exact mode: Rigid, Barrier, or the index of its
// relaxed class (>= 0) and that class's bound.
func (r *Relaxed) ClassOf(e lts.Event) (class, bound int) {
	switch k := r.kind(e); k {
	case kindRigid:
		return Rigid, 0
	case kindBarrier:
		return Barrier, 0
	default:
		return int(k - kindClass), r.bounds[k-kindClass]
	}
}

// ExactStateOf interns the exact-mode state (spec state, obligations), as
// ExactState decodes it (a checker may map a state to an equivalent one,
// e.g. renaming values no remaining event mentions).
func (r *Relaxed) ExactStateOf(spec lts.State, obs []Obligation) lts.State {
	os := r.obsBuf[:0]
	for _, o := range obs {
		os = append(os, obligation{e: o.Event, slack: uint8(o.Slack), class: int32(o.Class)})
	}
	r.obsBuf = os
	return r.internExact(spec, os)
}

// coversMutant reverses CoversSlack (a hand mutant for the tests).
var coversMutant bool

// SlackClass is a key of exact-mode state a such that CoversSlack(a, b)
// implies SlackClass(a) == SlackClass(b): a hash of what CoversSlack first
// compares (the length of the encoding, the specification state and the
// number of obligations). A caller comparing many pairs (linearize's
// pruning) computes it once per state and compares keys first.
func (r *Relaxed) SlackClass(a lts.State) uint64 {
	if r.cfg.Mode != Exact || r.cfg.Complete || int(a) >= r.states.Len() {
		return 0 // CoversSlack is false for every pair
	}
	ea := r.states.Get(uint32(a))
	_, n := binary.Uvarint(ea)
	_, m := binary.Uvarint(ea[n:])
	h := uint64(len(ea))
	for _, c := range ea[:n+m] {
		h = (h ^ uint64(c)) * 0x100000001b3
	}
	return h
}

// CoversSlack reports whether exact-mode state a has every trace of state b
// because a and b differ only in their obligations' slacks, each of b's at
// most a's: the same specification state and, event by event, the same
// obligations, whose slacks sorted pair off with b's no larger. A slack is
// a deadline, so a larger one never disables a step: every step of b
// (discharging an obligation, pulling fresh events, which depends on the
// number of obligations only, ageing, which fails for b first, a rigid
// event or a barrier, which needs no obligation in both) is one of a, to a
// state that again covers b's. Open mode only (a complete mode's
// settledness is not compared). False when a == b.
func (r *Relaxed) CoversSlack(a, b lts.State) bool {
	if coversMutant {
		a, b = b, a
	}
	if a == b || r.cfg.Mode != Exact || r.cfg.Complete || int(a) >= r.states.Len() || int(b) >= r.states.Len() {
		return false
	}
	ea, eb := r.states.Get(uint32(a)), r.states.Get(uint32(b))
	if len(ea) != len(eb) {
		return false // different spec states or obligations (slacks are one byte)
	}
	// The spec state and the number of obligations lead the encoding.
	_, n := binary.Uvarint(ea)
	_, m := binary.Uvarint(ea[n:])
	if string(ea[:n+m]) != string(eb[:n+m]) {
		return false
	}
	var oa, ob [16]obligation
	spa, xa := r.decodeExact(ea, oa[:0])
	spb, xb := r.decodeExact(eb, ob[:0])
	if spa != spb || len(xa) != len(xb) {
		return false
	}
	bySlack := func(x, y obligation) int {
		if x.e != y.e {
			return int(x.e) - int(y.e)
		}
		return int(x.slack) - int(y.slack)
	}
	slices.SortFunc(xa, bySlack)
	slices.SortFunc(xb, bySlack)
	for i := range xa {
		if xa[i].e != xb[i].e || xb[i].slack > xa[i].slack {
			return false
		}
	}
	return true
}
