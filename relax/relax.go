package relax

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lts"
)

// Relaxed is a relaxed specification automaton, built lazily and memoised.
// It implements lts.Automaton. Like every Automaton it is not safe for
// concurrent use.
type Relaxed struct {
	spec  lts.Automaton
	cfg   Config
	table *lts.EventTable

	bounds []int // bound of each class
	all    bool  // one class: every visible event that is not a barrier
	kinds  []int32

	interrupt func() bool // see SetInterrupt
	polls     int

	states *intern.Set
	// succ[id] holds the sorted, deduplicated transitions of state id once
	// computed (nil: not yet).
	succ [][]trans
	// Window mode: succ takes memoBudget more transitions at most; later
	// expansions go to a bounded cache (cost: transitions) and are
	// recomputed after an eviction, so the memo's memory stays bounded
	// on relaxed spaces of any size.
	memoBudget int64
	cache      *ristretto.Cache[uint64, []trans]
	closed     bool

	stats  Stats
	detail bool // expansions record RunStep.Spec (for Explain)
	// only, when not tau, restricts an exact-mode expansion to the
	// transitions on that event: Step needs no more, and a spec with a
	// large alphabet (a history's queue over thousands of values) would
	// otherwise step on every enabled event of every state it meets.
	only lts.Event
	// stepMemo holds those restricted expansions: state<<32|event -> targets.
	stepMemo map[uint64][]lts.State
	// maxPull, if >= 0, bounds the events a fresh exact-mode event pulls
	// (see LimitPulls).
	maxPull int
	key     []byte
	// filter, if set, vets the events fresh exact-mode runs pull (see
	// SetPullFilter); cur is the run's obligations as it shows them.
	filter PullFilter
	cur    []Obligation
	ebufs  [][]lts.Event // per-depth scratch buffers
	sbufs  [][]lts.State
	tmp    []trans
	obsBuf []obligation
	wpend  []wpend
	wstep  windowStep
	// Window mode, Reduce: per-state summaries, their shapes and offsets.
	sums      [][]winSummary
	shapes    *intern.Set
	vecs      []int8
	drop      []bool
	specMemo  map[lts.State][]trans // window mode: the spec's transitions (specEdges)
	tgts      []lts.State
	ents      []winEntry
	shapeList []uint32
	marks     []uint32 // per shape: the Reduce call that grouped it last
	heads     []int32  // per shape: its group's first entry
	stamp     uint32
}

var _ lts.Automaton = (*Relaxed)(nil)

type trans struct {
	e lts.Event
	t lts.State
}

// Stats describe the part of the relaxed automaton built so far.
type Stats struct {
	States      int   `json:"states"`       // relaxed states interned
	Pseudo      int   `json:"pseudo"`       // window mode: open windows among them (states that are not spec states)
	Expanded    int64 `json:"expanded"`     // memo entries: states (or, for Step in exact mode, state and event pairs) whose successors were computed
	Transitions int64 `json:"transitions"`  // transitions computed
	Bytes       int64 `json:"bytes"`        // memory of the interned states
	CacheHits   int64 `json:"cache_hits"`   // window expansions found in the bounded cache
	CacheMisses int64 `json:"cache_misses"` // window expansions computed for the bounded cache (first time or after eviction)
}

// Window mode keeps the expansions of relaxed states in the dense memo
// until they hold memoBudget transitions, then in a bounded cache whose
// cost is counted in transitions. With lazy windows the library's models
// stay far below the budget.
const (
	memoBudget    = 1 << 22
	cacheMaxCost  = 1 << 21
	cacheCounters = 1 << 18
)

// Event kinds, stored per event id in kinds (0 = not classified yet).
const (
	kindUnset   = 0
	kindRigid   = 1
	kindBarrier = 2
	kindClass   = 3 // kindClass+d: relaxed class d
)

// MaxExpansion bounds the work of computing the successors of one relaxed
// state (spec steps tried). Beyond it Step and Enabled return an error
// wrapping lts.ErrLimit, so that a search can stop with verdict unknown
// instead of hanging: both modes enumerate the spec paths of up to Q
// pulled events from a state, (branching)^Q of them.
const MaxExpansion = 1 << 23

var maxExpansion = MaxExpansion // lowered by tests

func expansionError() error {
	return fmt.Errorf("relax: the successors of one relaxed state need more than %d steps (use exact mode or a smaller quasi factor): %w", MaxExpansion, lts.ErrLimit)
}

// New relaxes spec according to cfg. The result is lazy: states are built
// when Step or Enabled first asks for them.
func New(spec lts.Automaton, cfg Config) (*Relaxed, error) {
	if spec == nil {
		return nil, fmt.Errorf("relax: nil specification")
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("relax: %w", err)
	}
	r := &Relaxed{
		spec:       spec,
		cfg:        cfg,
		table:      spec.Events(),
		states:     intern.New(1024),
		maxPull:    -1,
		memoBudget: memoBudget,
	}
	if len(cfg.Classes) == 0 {
		r.all = cfg.All > 0
		if r.all {
			r.bounds = []int{cfg.All}
		}
	} else {
		for _, cl := range cfg.Classes {
			r.bounds = append(r.bounds, cl.Bound)
		}
	}
	return r, nil
}

// startCache creates the bounded cache of window expansions, once the dense
// memo has used its budget (small specs never need it).
func (r *Relaxed) startCache() error {
	c, err := ristretto.NewCache(&ristretto.Config[uint64, []trans]{
		NumCounters:        cacheCounters,
		MaxCost:            cacheMaxCost,
		BufferItems:        64,
		IgnoreInternalCost: true,
	})
	if err != nil {
		return fmt.Errorf("relax: %w", err)
	}
	r.cache = c
	// The cache runs goroutines; stop them when r becomes unreachable
	// (Close does it earlier).
	runtime.AddCleanup(r, func(c *ristretto.Cache[uint64, []trans]) { c.Close() }, c)
	return nil
}

// Close releases the bounded cache (window mode, large relaxed spaces).
// The automaton remains usable; it recomputes what the cache held.
func (r *Relaxed) Close() {
	if r.cache != nil {
		r.cache.Close()
		r.cache = nil
	}
	r.closed = true
}

// Config returns the configuration r was built with.
func (r *Relaxed) Config() Config { return r.cfg }

// Spec returns the automaton r relaxes.
func (r *Relaxed) Spec() lts.Automaton { return r.spec }

// Events is the spec's event table.
func (r *Relaxed) Events() *lts.EventTable { return r.table }

// Stats reports the size of what has been built.
func (r *Relaxed) Stats() Stats {
	s := r.stats
	s.Expanded += int64(len(r.stepMemo))
	s.States = r.states.Len()
	s.Bytes = r.states.Bytes()
	return s
}

// Start appends the initial relaxed states: each initial spec state with no
// obligation.
func (r *Relaxed) Start(buf []lts.State) []lts.State {
	starts := r.spec.Start(nil)
	n := len(buf)
	for _, s := range starts {
		if r.cfg.Mode == Window {
			buf = append(buf, r.internOrig(s))
		} else {
			buf = append(buf, r.internExact(s, nil))
		}
	}
	return dedupStates(buf, n)
}

// Step appends the relaxed states reached from s by e.
func (r *Relaxed) Step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	if r.cfg.Mode == Exact && (int(s) >= len(r.succ) || r.succ[s] == nil) {
		return r.stepExact(s, e, buf)
	}
	ts, err := r.transitions(s)
	if err != nil {
		return buf, err
	}
	i, _ := slices.BinarySearchFunc(ts, e, func(t trans, e lts.Event) int { return cmpU32(uint32(t.e), uint32(e)) })
	for ; i < len(ts) && ts[i].e == e; i++ {
		buf = append(buf, ts[i].t)
	}
	return buf, nil
}

// LimitPulls restricts exact mode to runs in which a fresh relaxed event
// pulls at most n spec events ahead (n < 0: no limit, the default). The
// restricted automaton is a sub-automaton of the full one: its states and
// transitions are the full one's (same configurations, same slacks), only
// fewer of them, so a trace it accepts is accepted; a rejection says
// nothing. Checkers use it to look for a witness among the runs that pull
// little before paying for the full expansion, which enumerates every spec
// path of up to Q pulled events (exponential in Q). Call it before the
// first Step or Enabled.
func (r *Relaxed) LimitPulls(n int) { r.maxPull = n }

// PullFilter vets the events that fresh exact-mode runs pull (see
// SetPullFilter).
type PullFilter interface {
	// MayPull reports whether a fresh run at spec state spec may pull e,
	// which would then be owed with slack slack, when the configuration
	// owes owed: the other obligations (aged) and the events the run pulled
	// before, with their slacks.
	MayPull(spec lts.State, e lts.Event, slack int, owed []Obligation) bool
}

// PullLister is a PullFilter that lists, at a spec state, the events it
// may let a run pull (others may be listed too): a fresh run then tries
// those and the event read, not every enabled event of the class.
type PullLister interface {
	PullFilter
	Pullable(spec lts.State, buf []lts.Event) []lts.Event
}

// SetPullFilter makes Step (exact mode, on a state whose full expansion
// is not known) leave out every fresh run that pulls an event f refuses,
// until it is called again with nil. Transitions computed under a filter
// are not memoised. A checker that knows which runs cannot be completed
// (an owed event that nothing left can read) uses it so as not to
// enumerate them: the transitions kept are the automaton's, so a trace
// accepted under a filter is accepted.
func (r *Relaxed) SetPullFilter(f PullFilter) { r.filter = f }

// mayPull reports whether a fresh run that pulled pulled events (owed of
// its class owed, bound q) may pull one more.
func (r *Relaxed) mayPull(owed, pulled, q int) bool {
	return owed+pulled+1 <= q && (r.maxPull < 0 || pulled < r.maxPull)
}

// stepExact computes (and memoises) only the transitions of s on e, in
// exact mode, for a state whose full expansion is not known.
func (r *Relaxed) stepExact(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	if int(s) >= r.states.Len() {
		return buf, fmt.Errorf("relax: unknown state %d", s)
	}
	if e == lts.Tau {
		return buf, nil // no tau in a relaxed automaton
	}
	key := uint64(s)<<32 | uint64(e)
	if ts, ok := r.stepMemo[key]; ok && r.filter == nil {
		return append(buf, ts...), nil
	}
	var ts []lts.State
	r.only = e
	err := r.expandExact(s, func(_ RunStep, t lts.State) { ts = append(ts, t) })
	r.only = lts.Tau
	if err != nil {
		return buf, err
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	if r.filter != nil {
		// These transitions hold for the filter's context only.
		return append(buf, ts...), nil
	}
	if r.stepMemo == nil {
		r.stepMemo = map[uint64][]lts.State{}
	}
	r.stepMemo[key] = ts
	r.stats.Transitions += int64(len(ts))
	return append(buf, ts...), nil
}

// Enabled appends the events that have a successor from s, in increasing order.
func (r *Relaxed) Enabled(s lts.State, buf []lts.Event) ([]lts.Event, error) {
	ts, err := r.transitions(s)
	if err != nil {
		return buf, err
	}
	for i, t := range ts {
		if i == 0 || t.e != ts[i-1].e {
			buf = append(buf, t.e)
		}
	}
	return buf, nil
}

// Settled reports whether s owes nothing: in exact mode, no obligation is
// pending; in window mode, s stands for a spec state (not inside a permuted
// window). A trace is accepted in complete mode iff it reaches a settled
// state.
func (r *Relaxed) Settled(s lts.State) bool {
	if int(s) >= r.states.Len() {
		return false
	}
	b := r.states.Get(uint32(s))
	if r.cfg.Mode == Window {
		return b[0] == tagOrig
	}
	_, n := binary.Uvarint(b)
	return b[n] == 0
}

// Describe renders a relaxed state: "s3 [deq.1:1 deq.2:2]" (exact: spec
// state and obligations with their slack) or "s3" / "s3 <- deq.1@0 (window
// at 2)" (window: a spec state, or an open window: the spec state reached,
// the pending events with their positions in the window's spec path, and
// the number of events of the window read).
func (r *Relaxed) Describe(s lts.State) string {
	if int(s) >= r.states.Len() {
		return fmt.Sprintf("unknown state %d", s)
	}
	b := r.states.Get(uint32(s))
	if r.cfg.Mode == Window {
		return r.describeWindow(b)
	}
	sp, obs := r.decodeExact(b, nil)
	out := r.specName(sp)
	if len(obs) > 0 {
		out += " ["
		for i, o := range obs {
			if i > 0 {
				out += " "
			}
			out += fmt.Sprintf("%s:%d", r.table.Name(o.e), o.slack)
		}
		out += "]"
	}
	return out
}

// specName names a spec state: "s3", with the variables of the state when
// the spec (or the system under a TauClosed) can describe them.
func (r *Relaxed) specName(sp lts.State) string {
	var d lts.Describer
	switch s := r.spec.(type) {
	case lts.Describer:
		d = s
	case *lts.TauClosed:
		d, _ = s.Sys.(lts.Describer)
	}
	name := fmt.Sprintf("s%d", sp)
	if d == nil {
		return name
	}
	var parts []string
	for _, b := range d.Describe(sp) {
		parts = append(parts, b.Name+"="+b.Value)
	}
	if len(parts) == 0 {
		return name
	}
	return name + "{" + strings.Join(parts, " ") + "}"
}

// transitions returns the memoised transitions of s, computing them if needed.
func (r *Relaxed) transitions(s lts.State) ([]trans, error) {
	if int(s) >= r.states.Len() {
		return nil, fmt.Errorf("relax: unknown state %d", s)
	}
	if int(s) < len(r.succ) && r.succ[s] != nil {
		return r.succ[s], nil
	}
	window := r.cfg.Mode == Window
	if window && r.cache != nil {
		if ts, ok := r.cache.Get(uint64(s)); ok {
			r.stats.CacheHits++
			return ts, nil
		}
	}
	ts, err := r.compute(s)
	if err != nil {
		return nil, err
	}
	if window {
		if r.memoBudget < int64(len(ts)) {
			// Past the budget: the bounded cache. After an eviction the
			// expansion is recomputed; its targets are interned already, so
			// the ids (and every verdict) are the same.
			r.stats.CacheMisses++
			if r.cache == nil && !r.closed {
				if err := r.startCache(); err != nil {
					return nil, err
				}
			}
			if r.cache != nil {
				r.cache.Set(uint64(s), ts, int64(len(ts))+1)
				r.cache.Wait()
			}
			return ts, nil
		}
		r.memoBudget -= int64(len(ts))
	}
	for int(s) >= len(r.succ) {
		r.succ = append(r.succ, nil)
	}
	r.succ[s] = ts
	return ts, nil
}

// SetInterrupt implements refine.Interruptible: a long expansion polls stop
// every few thousand spec steps and gives up with errInterrupted when it
// reports true (nil: never). The state being expanded is not memoised.
func (r *Relaxed) SetInterrupt(stop func() bool) { r.interrupt = stop }

// Polls reports whether r's steps poll the interrupt SetInterrupt gives:
// in window mode, whose expansions can take long; exact mode never does.
func (r *Relaxed) Polls() bool { return r.cfg.Mode == Window }

var errInterrupted = errors.New("relax: expansion interrupted by a limit of the search")

// interrupted polls the interrupt function once every pollWindows calls.
func (r *Relaxed) interrupted() bool {
	if r.interrupt == nil {
		return false
	}
	if r.polls++; r.polls%pollWindows != 0 {
		return false
	}
	return r.interrupt()
}

const pollWindows = 4096

func (r *Relaxed) compute(s lts.State) ([]trans, error) {
	r.tmp = r.tmp[:0]
	emit := func(st RunStep, t lts.State) { r.tmp = append(r.tmp, trans{st.Event, t}) }
	var err error
	if r.cfg.Mode == Window {
		err = r.expandWindow(s, emit)
	} else {
		err = r.expandExact(s, emit)
	}
	if err != nil {
		return nil, err
	}
	slices.SortFunc(r.tmp, func(a, b trans) int {
		if c := cmpU32(uint32(a.e), uint32(b.e)); c != 0 {
			return c
		}
		return cmpU32(uint32(a.t), uint32(b.t))
	})
	ts := make([]trans, 0, len(r.tmp))
	for i, t := range r.tmp {
		if i == 0 || t != r.tmp[i-1] {
			ts = append(ts, t)
		}
	}
	if r.cfg.Mode == Window {
		ts = r.reduceTargets(ts)
	}
	r.stats.Expanded++
	r.stats.Transitions += int64(len(ts))
	return ts, nil
}

// reduceTargets drops, among the targets of each event, those another
// target subsumes (Reduce): the set of targets accepts the same traces,
// and the subset construction meets smaller sets.
func (r *Relaxed) reduceTargets(ts []trans) []trans {
	out := ts[:0]
	for lo := 0; lo < len(ts); {
		hi := lo + 1
		for hi < len(ts) && ts[hi].e == ts[lo].e {
			hi++
		}
		e := ts[lo].e
		r.tgts = r.tgts[:0]
		for _, t := range ts[lo:hi] {
			r.tgts = append(r.tgts, t.t)
		}
		for _, t := range r.Reduce(r.tgts) {
			out = append(out, trans{e, t})
		}
		lo = hi
	}
	return out
}

// kind classifies e: rigid, barrier, or relaxed class d (kindClass+d).
// Barriers take precedence over classes; the first matching class wins.
func (r *Relaxed) kind(e lts.Event) int32 {
	for int(e) >= len(r.kinds) {
		r.kinds = append(r.kinds, kindUnset)
	}
	if k := r.kinds[e]; k != kindUnset {
		return k
	}
	k := int32(kindRigid)
	if e == lts.Tau || int(e) >= r.table.Len() {
		// Not a visible event of this table: the spec has no edge for it
		// anyway; rigid makes Step simply find nothing.
		r.kinds[e] = k
		return k
	}
	for _, p := range r.cfg.Barriers {
		if p.Match(r.table, e) {
			k = kindBarrier
			break
		}
	}
	if k == kindRigid {
		if r.all {
			k = kindClass
		} else {
		classes:
			for d, cl := range r.cfg.Classes {
				for _, p := range cl.Patterns {
					if p.Match(r.table, e) {
						k = kindClass + int32(d)
						break classes
					}
				}
			}
		}
	}
	r.kinds[e] = k
	return k
}

// scratch returns per-depth buffers (reused across calls).
func (r *Relaxed) scratch(depth int) ([]lts.Event, []lts.State) {
	for depth >= len(r.ebufs) {
		r.ebufs = append(r.ebufs, nil)
		r.sbufs = append(r.sbufs, nil)
	}
	return r.ebufs[depth][:0], r.sbufs[depth][:0]
}

func (r *Relaxed) keep(depth int, es []lts.Event, ss []lts.State) {
	r.ebufs[depth], r.sbufs[depth] = es, ss
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func dedupStates(buf []lts.State, n int) []lts.State {
	tail := buf[n:]
	slices.Sort(tail)
	return append(buf[:n], slices.Compact(tail)...)
}
