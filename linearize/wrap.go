// Package linearize derives, from a sequential specification over
// operation events, the most general linearizable behaviour of an object
// used by several threads, as an automaton over invocation and response
// events. Checking that an implementation's traces refine it is checking
// that every history the implementation produces is linearizable (or,
// with a relaxed specification, quasi-linearizable): no hand-written
// wrapper (SpecIR in the model library) is needed.
//
// # Events
//
// The implementation shows each call of an operation OP by thread T with
// arguments ARGS as the invocation event OP_inv.T.ARGS and its return with
// results RES as the response event OP_res.T.RES; the specification
// performs the operation as the single event OP.ARGS.RES. So enq_inv.1.5 …
// enq_res.1 is enq.5, and deq_inv.0 … deq_res.0.5 is deq.5 (deq_res.0.0,
// an empty queue's answer in the library's models, is deq.0). Naming gives
// other suffixes, or rules that read any event as an invocation or a
// response (Rule: the `map` of a linearizes assertion).
//
// # The automaton
//
// A state is the specification's state and, per thread, one of idle,
// called(OP, ARGS) or done(OP, RES): called before the operation took
// effect, done after it did with results RES. An invocation of an idle
// thread makes it called. A response OP_res.T.RES is possible when T is
// done(OP, RES), or after a sequence of linearization steps: each takes a
// called thread, performs OP.ARGS.R on the specification for some R it
// allows, and makes the thread done(OP, R). Only steps before the response
// are taken, and only those the response needs (T's own, last, and any
// others before it): a step of another thread taken later commutes with
// the response, so the set of traces is the same as with linearization
// steps taken at any moment (Herlihy and Wing's definition: each operation
// takes effect at one point between its call and return). Invocations
// commute with linearization steps of other threads and take none.
//
// A thread that invokes while its previous call is pending, or responds
// while idle or to another operation than it called, does not produce a
// well-formed history: that is a model error, not a violation.
//
// # Symmetry
//
// The automaton does not name threads except through its per-thread
// statuses, so renaming the threads of a state (PermuteState) and of the
// events (PermuteEvent) is an automorphism. refine uses it with an
// implementation whose thread symmetry renames events alike
// (csp.Program.SymmetricEventsProcess) to store one product pair per orbit.
//
// # Reduction
//
// Reduced is a partial-order reduction of the implementation, for models
// whose components show distinct threads (csp.Program.EventThreads). A
// step is local when no other component can enable, disable or alter it
// and it changes only its component's control (lts.Move.Local). Reduced
// takes every step of the implementation except:
//
//   - a local invocation leads to a "forced" state in which only its
//     thread moves (the invocation is taken together with the thread's
//     next step);
//   - in a state where some thread's every step is a local response, only
//     that thread moves.
//
// Its traces are traces of the implementation. Conversely, let w be a
// trace of the implementation whose history is not (quasi-)linearizable
// or not well formed. Move each local invocation later, past the steps of
// other threads, until it is just before its thread's next step (drop it
// if there is none), and each local response that a reduced state would
// take first earlier, to that state (insert it there if its thread never
// moves again in w). Local steps commute with the steps of other threads,
// so the result is a trace of the implementation, and it is one of
// Reduced (by induction on its length: every state it passes either takes
// all steps but forced invocations, and the invocations now come with
// their thread's next step, or is a responding state whose response now
// comes first). Its history has the same operations and per-thread order
// (threads are components), with more precedence: an invocation moved
// later or a response moved earlier past another thread's events only
// adds "returns before is called" pairs; a dropped trailing invocation is
// a pending operation that may always be left out; an inserted response
// completes a pending operation with a result it could take. Every order
// the new history admits the old one admits, so it is not
// (quasi-)linearizable either (linearizability and quasi-linearizability
// both ask for some order that respects precedence, docs/verdicts.md §3);
// a history not well formed stays so, since each thread's events keep
// their order and an invocation's error is met when it is taken. No cycle
// of Reduced consists of reduced states only (every forced or responding
// step needs an invocation, which only a full state takes), so no step is
// postponed forever.
//
// # Compression
//
// Reduced takes two kinds of its own steps as one transition, so that the
// refinement search stores no product pair for the state in between:
//
//   - a local invocation e whose forced state's steps (its thread's next
//     steps) are all internal: e together with each of them, labelled e;
//   - an internal step into a responding state (some thread's every step
//     is a local response, so only its responses are taken there): the
//     internal step together with each of those responses, labelled with
//     the response.
//
// Each compressed transition is a path of two steps of Reduced with one
// visible event, so every trace of the compressed system is a trace of
// Reduced. Conversely, take a path of Reduced from the initial state: a
// step a -> x that the compressed system replaced is followed in the path,
// if at all, by a step x -> y that x offers, and all of x's steps were
// compressed with it, so a -> y is a compressed transition with the
// visible events of the two steps. A path that ends at such an x ends with
// the trace of a, or of a followed by the invocation e, which the
// compressed system has too (x offers at least one step, each compressed
// into an e-transition from a). So the two systems have the same traces,
// and trace refinement, the search's shortest counterexample length and
// its verdict are the same. A step in between is computed when its first
// state is expanded; an error there leaves the step uncompressed, so the
// error is met, with its own trace, when the state in between is. With a
// thread symmetry a compressed step carries the renaming that takes its
// target to its representative and the target's ties (the state in
// between, a forced or a responding one, is not stored, so its ties play
// no part): the state in between is expanded as it comes from the state
// before, its threads named as there, so the responses taken from it name
// threads as the state before does. (When the base can only expand stored
// states, the state in between is stored as its representative; the
// compressed step then composes the two steps' renamings, and a response's
// thread is renamed back into the numbering of the state before.) A counterexample's path is mapped back
// step by step (UnreduceSteps): a step that is no transition of the base
// is replaced by the two-step path through a successor of the state
// before, each candidate checked on the unreduced system.
//
// A state's transitions are computed once and cached (up to a bound; a
// full cache starts afresh): the search asks for them once per product
// pair. When the base can (csp.Proc.Expand, ExpandPending, Store), the
// states in between are never stored: they are expanded from their
// encodings, only the thread that moves there (the forced thread, or the
// responder; the other threads' steps are still evaluated, so a run-time
// error is met as before), and only the targets kept are stored. Whether a
// state is a responding one is read from its threads' controls without
// expanding it (csp.Proc.LocalSteps: a control whose steps are all local
// offers them all, whatever the variables), which is what the expansion
// would tell. The answer is a function of the state: a control that no
// state expanded yet has its templates built when it is read, so the
// reduced system, its transitions and moves, does not depend on the order
// in which its states are asked for, nor on when the program specialises
// its blocks (which drops every template built). A control whose
// templates fail to build counts as not local: the step is not
// compressed, and the state in between, stored, reports the error when it
// is expanded.
//
// # Arguments chosen late
//
// With SetLate, an invocation OP_inv.T without its argument stands for
// OP_inv.T.a for every value a of a family: the implementation (rewritten
// by package pipeline, on unless Options.NoLateArgs) chooses a later, by
// the event choose.T.a (choose: a name no model can write), where it
// first reads it, and before T's next visible step. T's status is then
// "open": called with the argument not fixed, or, after a linearization
// step, done and tagged with the value that step fixed. A response of an
// open thread, or a choice of a thread with none open, is ErrLateOrder
// (another component answers for the thread): pipeline checks the model
// again without the option. A set of states stands for one
// set per vector of values of its open threads, and the search fails when
// one of those is empty (Covered, refine.Tagged); choose.T.a keeps the
// states that agree with a. Reduced.SetChoose compresses a choice with the
// responses after it. docs/linearizes.md has the design,
// docs/linearizes-log.md the figures.
//
// # Sets of states
//
// The refinement search follows sets of the automaton's states (one per
// trace); Wrapper.Reduce drops from each set the states that another state
// of the set simulates (a called operation simulates its own
// linearization; with a relaxed specification, a state simulates the same
// state with smaller slacks), so that sets that differ only in such
// states are one.
package linearize

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/quasar-verify/quasar/internal/intern"
	"github.com/quasar-verify/quasar/lts"
)

// maxThreads bounds thread ids (the first datum of an event).
const maxThreads = 64

// Wrapper is the automaton of the linearizable behaviours of a specification.
// It is not safe for concurrent use (refine.Check uses its specification
// from one goroutine).
//
// A state is a vector of 32-bit words: the specification's state, then
// one status id per thread (trailing idle threads dropped, so each state
// has one vector), kept in one arena and interned. A status (idle,
// called(OP, ARGS), done(OP, RES)) is interned too, so that comparing two
// is comparing ids, and a step builds its successors' vectors without
// allocating.
type Wrapper struct {
	spec   lts.Automaton
	naming Naming
	table  *lts.EventTable

	// States: state i is arena[off[i]:off[i+1]]. A state whose vector
	// packs into 64 bits (packVec) is found by that key in small; any
	// other by its bytes in index, whose own ids setIDs maps to states.
	arena  []uint32
	off    []uint32
	small  intern.Memo[uint32]
	index  *intern.Set
	setIDs []uint32
	// Statuses: id -> status (0 is idle); statusIdx: key -> id.
	statuses  []status
	statusIdx map[string]uint32
	ops       map[string]int32 // op name -> its number
	opNames   []string
	// kinds: by event id, the memoised classification (known false: not
	// classified yet).
	kinds []evKind
	// memo: (state, event) -> steps[span]; the step's successors.
	memo  intern.Memo[span]
	steps []lts.State
	// effectMemo: (spec state, called status) -> effects[span].
	effectMemo intern.Memo[span]
	effects    []effect
	drop       []int                  // Reduce's scratch
	masks      []threadMask           // Reduce's scratch
	thash      []uint64               // Reduce's scratch: hashThreads of each state
	addrs      []uintptr              // PrefetchSteps' scratch
	checkAcc   []lts.State            // ReduceCheck's: the steps since the last set was interned
	masksOf    []threadMask           // by state: mask's memo (busy 0: not known, or all idle)
	perms      map[permKey]lts.State  // PermuteState's memo
	perms8     intern.Memo[lts.State] // the same for renamings of threads 0..7 (a packed key hashes faster)

	vec    []uint32 // scratch: a state's vector being built
	rstack []uint32 // respond's: the vectors of the states in between
	key    []byte
	en     []lts.Event

	// Arguments chosen late (SetLate): by op number, the values an open
	// invocation (OP_inv.T without its argument) stands for; choose is
	// the base name of the choice events (choose.T.A).
	late   map[int32][]int
	lateBy map[string][]int
	choose string
	// Covered's scratch: the open threads, their values, a vector.
	open     []int
	openVals [][]int
	odo      []int
}

type span struct{ off, n uint32 }

// thread statuses
const (
	idle = iota
	called
	done
)

// status is one thread's part of a state.
type status struct {
	kind int8
	op   int32 // -1 for idle
	data []int // called: the arguments; done: the results
	// open: the argument was chosen late and the implementation has not
	// chosen it yet (SetLate); tag is then the argument this state
	// stands for (called: data), unless any: a called status whose
	// argument is not fixed either (data nil), which stands for every
	// value until a linearization step fixes it.
	open bool
	any  bool
	tag  int
}

// evKind classifies an event of the implementation.
type evKind struct {
	known    bool
	inv, res bool
	op       int32
	thread   int
	data     []int
	// inv: the status of the thread after it (called); res: the status
	// a done thread must have to give it (done with these results).
	status uint32
	err    error
	// open: an invocation whose argument is chosen late (one status per
	// value in opens); choose: the choice choose.T.A (data: [A]).
	open   bool
	opens  []uint32
	choose bool
	then   lts.Event // a compressed choice's response (Reduced.SetChoose); 0 none
}

// effect is one way a called operation can take effect: the thread's
// status after it (done, with its results) and the specification's state.
type effect struct {
	done uint32
	spec lts.State
}

// New wraps spec (an automaton over OP.ARGS.RES events; its event table is
// the one the implementation's events are interned in).
func New(spec lts.Automaton, naming Naming) *Wrapper {
	if naming.Rules == nil && (naming.Inv == "" || naming.Res == "") {
		naming = DefaultNaming
	}
	w := &Wrapper{
		spec: spec, naming: naming, table: spec.Events(),
		off: []uint32{0}, small: intern.NewMemo[uint32](1024), index: intern.New(1024), statusIdx: map[string]uint32{},
		ops: map[string]int32{}, memo: intern.NewMemo[span](1024), effectMemo: intern.NewMemo[span](1024), perms8: intern.NewMemo[lts.State](64),
	}
	w.statusID(status{kind: idle, op: -1}) // id 0
	return w
}

// Events is the shared event table.
func (w *Wrapper) Events() *lts.EventTable { return w.table }

// Spec returns the automaton w wraps.
func (w *Wrapper) Spec() lts.Automaton { return w.spec }

// SetInterrupt passes the search's interrupt on to the automaton w wraps
// if it polls one (refine.Interruptible: relax in window mode, whose
// expansions can take long), so that a limit of the search ends its
// steps inside a linearizes check too.
func (w *Wrapper) SetInterrupt(stop func() bool) {
	if in, ok := w.spec.(interface{ SetInterrupt(func() bool) }); ok {
		in.SetInterrupt(stop)
	}
}

// Polls reports whether the automaton w wraps polls the interrupt in its
// steps (its own Polls, or, without one, whether it takes an interrupt).
func (w *Wrapper) Polls() bool {
	if p, ok := w.spec.(interface{ Polls() bool }); ok {
		return p.Polls()
	}
	_, ok := w.spec.(interface{ SetInterrupt(func() bool) })
	return ok
}

// Start appends the initial states: every specification start, all idle.
func (w *Wrapper) Start(buf []lts.State) []lts.State {
	for _, s := range w.spec.Start(nil) {
		w.vec = append(w.vec[:0], uint32(s))
		buf = append(buf, w.intern(w.vec))
	}
	return buf
}

// Step appends the states after the invocation or response e. Results are
// memoised: the refinement search asks for the same step of a state from
// many macrostates.
func (w *Wrapper) Step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	n := len(buf)
	buf, err := w.stepMemo(s, e, buf)
	if err == nil && reduceCheck.Load() != nil {
		w.checkAcc = append(w.checkAcc, buf[n:]...)
	}
	return buf, err
}

// stepMemo is Step.
func (w *Wrapper) stepMemo(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	key := uint64(s)<<32 | uint64(e)
	if sp, ok := w.memo.Get(key); ok {
		return append(buf, w.steps[sp.off:sp.off+sp.n]...), nil
	}
	n := len(buf)
	buf, err := w.step(s, e, buf)
	if err == nil {
		w.memo.Put(key, span{uint32(len(w.steps)), uint32(len(buf) - n)})
		w.steps = intern.AppendDoubling(w.steps, buf[n:]...)
	}
	return buf, err
}

// PrefetchSteps asks the CPU to load the memo slots of the steps of
// states on e (refine's normaliser is about to ask them one by one). It
// changes nothing.
func (w *Wrapper) PrefetchSteps(states []lts.State, e lts.Event) {
	w.addrs = w.addrs[:0]
	for _, s := range states {
		w.addrs = w.memo.AppendSlot(w.addrs, uint64(s)<<32|uint64(e))
	}
	intern.Prefetch(w.addrs)
}

func (w *Wrapper) step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	k := w.kind(e)
	if k.err != nil {
		return buf, k.err
	}
	cur := w.statuses[w.thread(s, k.thread)]
	if k.choose && k.then != 0 {
		// The choice, then the response.
		mid, err := w.chooseStep(s, e, &k, cur, nil)
		if err != nil {
			return buf, err
		}
		n := len(buf)
		for _, m := range mid {
			if buf, err = w.Step(m, k.then, buf); err != nil {
				return buf[:n], err
			}
		}
		tail := buf[n:]
		slices.Sort(tail)
		return append(buf[:n], slices.Compact(tail)...), nil
	}
	if k.choose {
		return w.chooseStep(s, e, &k, cur, buf)
	}
	if k.inv {
		if cur.kind != idle {
			return buf, fmt.Errorf("thread %d invokes %s while its %s is pending: the model's history is not well formed", k.thread, w.table.Name(e), w.opNames[cur.op])
		}
		if k.open {
			for _, st := range k.opens {
				buf = append(buf, w.with(s, k.thread, st))
			}
			return buf, nil
		}
		return append(buf, w.with(s, k.thread, k.status)), nil
	}
	switch {
	case cur.open:
		// (A thread chooses before its next visible step: another
		// component answers for it.)
		return buf, fmt.Errorf("%w: thread %d responds %s before it chose its argument", ErrLateOrder, k.thread, w.table.Name(e))
	case cur.kind == idle:
		return buf, fmt.Errorf("thread %d responds %s without a pending call", k.thread, w.table.Name(e))
	case cur.op != k.op:
		return buf, fmt.Errorf("thread %d responds %s to a call of %s", k.thread, w.table.Name(e), w.opNames[cur.op])
	}
	n := len(buf)
	var err error
	buf, err = w.respond(s, &k, buf)
	if err != nil {
		return buf[:n], err
	}
	tail := buf[n:]
	slices.Sort(tail)
	return append(buf[:n], slices.Compact(tail)...), nil
}

// respond appends the states after thread k.thread's response with
// results k.data: after linearization steps of other called threads (any
// subset, any order) and then its own, unless it is done already. The
// states in between (other threads' linearizations) are vectors on
// w.rstack, not interned: only the states after the response are.
func (w *Wrapper) respond(s lts.State, k *evKind, buf []lts.State) ([]lts.State, error) {
	base := len(w.rstack)
	w.rstack = append(w.rstack, w.vector(s)...)
	buf, err := w.respondVec(base, len(w.rstack)-base, k, buf)
	w.rstack = w.rstack[:base]
	return buf, err
}

// respondVec is respond from the state whose vector is
// w.rstack[base:base+n] (k.thread is one of its threads: it is busy).
func (w *Wrapper) respondVec(base, n int, k *evKind, buf []lts.State) ([]lts.State, error) {
	v := w.rstack[base : base+n]
	cur := v[k.thread+1]
	if w.statuses[cur].kind == done {
		if cur == k.status {
			buf = append(buf, w.internWith(v, lts.State(v[0]), k.thread, 0))
		}
		return buf, nil
	}
	// Its own linearization step, now.
	effs, err := w.effectsFor(lts.State(v[0]), cur)
	if err != nil {
		return buf, err
	}
	for _, ef := range effs {
		if ef.done == k.status {
			buf = append(buf, w.internWith(w.rstack[base:base+n], ef.spec, k.thread, 0))
		}
	}
	// Or another called thread's first.
	for i := range n - 1 {
		t := w.rstack[base+1+i]
		if i == k.thread || w.statuses[t].kind != called {
			continue
		}
		effs, err := w.effectsFor(lts.State(w.rstack[base]), t)
		if err != nil {
			return buf, err
		}
		// (Appending to w.effects never changes the entries effs holds.)
		for _, ef := range effs {
			o := len(w.rstack)
			w.rstack = append(w.rstack, w.rstack[base:base+n]...)
			w.rstack[o] = uint32(ef.spec)
			w.rstack[o+1+i] = ef.done
			buf, err = w.respondVec(o, n, k, buf)
			w.rstack = w.rstack[:o]
			if err != nil {
				return buf, err
			}
		}
	}
	return buf, nil
}

// effectsFor returns the ways the called operation with status t can take
// effect in specification state sp (memoised: it depends on nothing else,
// and responses ask for the same ones from many states).
func (w *Wrapper) effectsFor(sp lts.State, t uint32) ([]effect, error) {
	key := uint64(sp)<<32 | uint64(t)
	if s, ok := w.effectMemo.Get(key); ok {
		return w.effects[s.off : s.off+s.n], nil
	}
	st := w.statuses[t]
	op := w.opNames[st.op]
	var err error
	w.en, err = w.spec.Enabled(sp, w.en[:0])
	if err != nil {
		return nil, err
	}
	en := slices.Clone(w.en)
	start := len(w.effects)
	for _, e := range en {
		if w.table.Base(e) != op {
			continue
		}
		data := w.table.Data(e)
		if len(data) < len(st.data) || !slices.Equal(data[:len(st.data)], st.data) {
			continue
		}
		if st.any {
			// The argument is fixed by this step: one of the values.
			vals := w.late[st.op]
			if tagMutant == 2 {
				vals = vals[:len(vals)-1] // Mutant: a value is forgotten.
			}
			if len(data) < 1 || !slices.Contains(vals, data[0]) {
				continue
			}
			next, err := w.spec.Step(sp, e, nil)
			if err != nil {
				w.effects = w.effects[:start]
				return nil, err
			}
			d := w.statusID(status{kind: done, op: st.op, data: data[1:], open: tagMutant != 4, tag: data[0]})
			for _, n := range next {
				w.effects = append(w.effects, effect{done: d, spec: n})
			}
			continue
		}
		next, err := w.spec.Step(sp, e, nil)
		if err != nil {
			w.effects = w.effects[:start]
			return nil, err
		}
		d := w.statusID(status{kind: done, op: st.op, data: data[len(st.data):], open: st.open && tagMutant != 4, tag: st.tag})
		for _, n := range next {
			w.effects = append(w.effects, effect{done: d, spec: n})
		}
	}
	sp2 := span{uint32(start), uint32(len(w.effects) - start)}
	w.effectMemo.Put(key, sp2)
	return w.effects[sp2.off : sp2.off+sp2.n], nil
}

// Enabled appends the invocations and responses possible from s: the
// invocations of idle threads among the events interned so far (the
// implementation's), and the responses some linearization allows.
func (w *Wrapper) Enabled(s lts.State, buf []lts.Event) ([]lts.Event, error) {
	n := len(buf)
	for e := lts.Event(1); int(e) < w.table.Len(); e++ {
		k := w.kind(e)
		if k.err != nil || !(k.inv || k.res || k.choose) {
			continue
		}
		cur := w.statuses[w.thread(s, k.thread)]
		if k.choose {
			if k.then == 0 && cur.open && (cur.any || cur.tag == k.data[0]) {
				buf = append(buf, e)
			}
			continue
		}
		if k.inv && cur.kind == idle {
			buf = append(buf, e)
		}
		if k.res && cur.kind != idle && cur.op == k.op && !cur.open {
			// (An open thread chooses before it responds.)
			next, err := w.respond(s, &k, nil)
			if err != nil {
				return buf, err
			}
			if len(next) > 0 {
				buf = append(buf, e)
			}
		}
	}
	tail := buf[n:]
	slices.Sort(tail)
	return append(buf[:n], slices.Compact(tail)...), nil
}

// Describe shows a state: the specification's, and each busy thread.
func (w *Wrapper) Describe(s lts.State) string {
	var parts []string
	if d, ok := w.spec.(interface{ Describe(lts.State) string }); ok {
		parts = append(parts, "spec "+d.Describe(w.spec0(s)))
	}
	for i, t := range w.threads(s) {
		switch st := w.statuses[t]; st.kind {
		case called:
			parts = append(parts, fmt.Sprintf("t%d called %s%s", i, eventName(w.opNames[st.op], st.data), openNote(st)))
		case done:
			parts = append(parts, fmt.Sprintf("t%d done %s%s", i, eventName(w.opNames[st.op], st.data), openNote(st)))
		}
	}
	return strings.Join(parts, ", ")
}

// kind classifies e (memoised).
func (w *Wrapper) kind(e lts.Event) evKind {
	if int(e) < len(w.kinds) && w.kinds[e].known {
		return w.kinds[e]
	}
	k := w.classify(e)
	k.known = true
	for int(e) >= len(w.kinds) {
		w.kinds = append(w.kinds, evKind{})
	}
	w.kinds[e] = k
	return k
}

func (w *Wrapper) classify(e lts.Event) evKind {
	if w.choose != "" && w.table.Base(e) == w.choose {
		d := w.table.Data(e)
		if len(d) == 3 && d[2] > 0 && d[2] < w.table.Len() {
			// A choice compressed with a response (Reduced.SetChoose).
			return evKind{choose: true, thread: d[0], data: d[1:2], then: lts.Event(d[2])}
		}
		if len(d) != 2 || d[0] < 0 || d[0] >= maxThreads {
			return evKind{err: fmt.Errorf("event %s: a choice is %s.THREAD.VALUE", w.table.Name(e), w.choose)}
		}
		return evKind{choose: true, thread: d[0], data: d[1:]}
	}
	w.lateOps()
	c, err := w.naming.Read(w.table.Base(e), w.table.Data(e))
	if err != nil {
		return evKind{err: err}
	}
	if c.Role == RoleOther {
		return evKind{err: fmt.Errorf("event %s is neither %s: hide it, or name it so", w.table.Name(e), w.naming.describe())}
	}
	op, ok := w.ops[c.Op]
	if !ok {
		op = int32(len(w.opNames))
		w.ops[c.Op] = op
		w.opNames = append(w.opNames, c.Op)
	}
	k := evKind{inv: c.Role == RoleInv, res: c.Role == RoleRes, op: op, thread: c.Thread, data: c.Data}
	if vals, ok := w.late[op]; ok && k.inv && len(c.Data) == 0 {
		k.open = true
		if tagMutant == 2 && eagerTags {
			vals = vals[:len(vals)-1] // Mutant: the split forgets a value.
		}
		if eagerTags {
			for _, a := range vals {
				k.opens = append(k.opens, w.statusID(status{kind: called, op: op, data: []int{a}, open: true, tag: a}))
			}
			return k
		}
		k.opens = append(k.opens, w.statusID(status{kind: called, op: op, open: true, any: true}))
		return k
	}
	if k.inv {
		k.status = w.statusID(status{kind: called, op: op, data: c.Data})
	} else {
		k.status = w.statusID(status{kind: done, op: op, data: c.Data})
	}
	return k
}

// statusID interns a status.
func (w *Wrapper) statusID(t status) uint32 {
	k := append(w.key[:0], byte(t.kind))
	if t.any {
		k = append(k, 2)
	} else if t.open {
		k = append(k, 1)
		k = binary.AppendVarint(k, int64(t.tag))
	} else {
		k = append(k, 0)
	}
	k = binary.AppendVarint(k, int64(t.op))
	for _, d := range t.data {
		k = binary.AppendVarint(k, int64(d))
	}
	w.key = k
	if id, ok := w.statusIdx[string(k)]; ok {
		return id
	}
	id := uint32(len(w.statuses))
	t.data = slices.Clone(t.data)
	w.statuses = append(w.statuses, t)
	w.statusIdx[string(k)] = id
	return id
}

// vector is state s's words: its specification state, then its threads'
// statuses (not to be modified; valid until the next intern).
func (w *Wrapper) vector(s lts.State) []uint32 {
	return w.arena[w.off[s]:w.off[s+1]]
}

// spec0 is the specification state of s.
func (w *Wrapper) spec0(s lts.State) lts.State { return lts.State(w.arena[w.off[s]]) }

// threads is the statuses of s's threads, up to its last busy one.
func (w *Wrapper) threads(s lts.State) []uint32 { return w.vector(s)[1:] }

// thread is the status of thread i in s.
func (w *Wrapper) thread(s lts.State, i int) uint32 {
	if ts := w.threads(s); i < len(ts) {
		return ts[i]
	}
	return 0
}

// with returns the state s with thread i's status replaced by t.
func (w *Wrapper) with(s lts.State, i int, t uint32) lts.State {
	return w.withSpec(s, w.spec0(s), i, t)
}

// withSpec returns the state s with specification state sp and thread
// i's status replaced by t.
func (w *Wrapper) withSpec(s lts.State, sp lts.State, i int, t uint32) lts.State {
	v := append(w.vec[:0], w.vector(s)...)
	v[0] = uint32(sp)
	for len(v) <= i+1 {
		v = append(v, 0)
	}
	v[i+1] = t
	w.vec = v
	return w.intern(v)
}

// internWith returns the id of the state with vector v, but for
// specification state sp and thread i's status t (i < len(v)-1).
func (w *Wrapper) internWith(v []uint32, sp lts.State, i int, t uint32) lts.State {
	u := append(w.vec[:0], v...)
	u[0] = uint32(sp)
	u[i+1] = t
	w.vec = u
	return w.intern(u)
}

// intern returns the id of the state with vector v (trailing idle
// threads are dropped first: one vector per state), adding it if new.
func (w *Wrapper) intern(v []uint32) lts.State {
	for len(v) > 1 && v[len(v)-1] == 0 {
		v = v[:len(v)-1]
	}
	// Ids are assigned in order, as the arena grows, whichever table
	// finds the vector.
	next := uint32(len(w.off) - 1)
	if key, ok := packVec(v); ok {
		if id, ok := w.small.Get(key); ok {
			return lts.State(id)
		}
		w.small.Put(key, next)
	} else {
		k := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
		sid, added := w.index.Intern(k)
		if !added {
			return lts.State(w.setIDs[sid])
		}
		w.setIDs = append(w.setIDs, next)
	}
	w.arena = intern.AppendDoubling(w.arena, v...)
	w.off = intern.AppendDoubling(w.off, uint32(len(w.arena)))
	return lts.State(next)
}

// packVec packs a state's vector (trailing idle threads dropped) into
// one 64-bit key when it has at most 4 threads whose status ids are below
// 256: the specification state in the low 32 bits, thread i's status in
// the 8 bits from 32+8i. A missing thread reads as idle (0), which is
// what a dropped trailing thread is, so two vectors that pack get the
// same key only if they are equal. A 64-bit key is hashed and compared in
// one word, where the byte set hashes the bytes and compares them in its
// arena (a second cache miss).
func packVec(v []uint32) (uint64, bool) {
	if len(v) > 5 || noPack {
		return 0, false
	}
	k := uint64(v[0])
	for i, t := range v[1:] {
		if t >= 256 {
			return 0, false
		}
		if packMutant && i == 3 {
			continue // Mutant: the fourth thread's status is lost.
		}
		k |= uint64(t) << (32 + 8*i)
	}
	return k, true
}

// noPack turns packVec off (every vector goes to the byte set); packMutant
// makes it lose a thread (a hand mutant). The tests compare.
var (
	noPack     bool
	packMutant bool
)

func eventName(op string, data []int) string {
	var sb strings.Builder
	sb.WriteString(op)
	for _, d := range data {
		fmt.Fprintf(&sb, ".%d", d)
	}
	return sb.String()
}

// Role is the role of e in the implementation: RoleInv, RoleRes, or
// RoleOther (tau, and events that are neither, which Step rejects).
func (w *Wrapper) Role(e lts.Event) Role {
	if e == lts.Tau {
		return RoleOther
	}
	switch k := w.kind(e); {
	case k.err != nil, k.choose:
		return RoleOther
	case k.inv:
		return RoleInv
	default:
		return RoleRes
	}
}

// Role is an event's part in a history.
type Role int8

const (
	RoleOther Role = iota
	RoleInv        // an invocation
	RoleRes        // a response
)

// PermuteEvent renames the thread of an invocation or response by p (the
// thread T of OP_inv.T.ARGS becomes p.At(T)), and of a choice (SetLate;
// a choice compressed with a response renames the response too); other
// events are unchanged. The thread must be the first datum
// (Naming.ThreadFirst).
func (w *Wrapper) PermuteEvent(e lts.Event, p lts.Perm) lts.Event {
	if p == 0 || e == lts.Tau {
		return e
	}
	k := w.kind(e)
	if w.Role(e) == RoleOther && !k.choose {
		return e
	}
	data := slices.Clone(w.table.Data(e))
	data[0] = p.At(data[0])
	if k.then != 0 {
		data[2] = int(w.PermuteEvent(k.then, p))
	}
	return w.table.Intern(w.table.Base(e), data...)
}

// PermuteState renames the threads of s by p: thread i's status becomes
// thread p.At(i)'s. The specification does not name threads, so this maps
// the automaton to itself with events renamed by PermuteEvent (the pair
// symmetry of refine uses it).
func (w *Wrapper) PermuteState(s lts.State, p lts.Perm) lts.State {
	if p == 0 {
		return s
	}
	key := permKey{s, p}
	small := uint64(p)>>32 == 0
	key8 := uint64(s) | uint64(p)<<32
	if small {
		if t, ok := w.perms8.Get(key8); ok {
			return t
		}
	} else if t, ok := w.perms[key]; ok {
		return t
	}
	ts := w.threads(s)
	n := len(ts)
	for i := range ts {
		n = max(n, p.At(i)+1)
	}
	v := append(w.vec[:0], uint32(w.spec0(s)))
	for range n {
		v = append(v, 0)
	}
	for i, t := range w.threads(s) {
		v[p.At(i)+1] = t
	}
	w.vec = v
	t := w.intern(v)
	switch {
	case small:
		w.perms8.Put(key8, t)
	case w.perms == nil:
		w.perms = map[permKey]lts.State{key: t}
	default:
		w.perms[key] = t
	}
	return t
}

type permKey struct {
	s lts.State
	p lts.Perm
}

// Reduce removes from the sorted set states (in place) the states that
// another state of the set simulates, so that the set keeps its traces
// after every event (refine.Reducer). Two rules:
//
//   - linearization: s reaches t by one or more linearization steps (s
//     performs, in some order, the called operations that are done in t,
//     with t's results, and reaches t's specification state). A step of t
//     on another thread's invocation is matched by the same invocation
//     from s, to a state that again reaches t's successor by the same
//     linearizations; a response from t is one of the responses from s,
//     whose own linearization steps may first take t's (respond tries
//     every order).
//   - slack: s and t have the same thread statuses and the specification
//     says its state of s covers its state of t (relax.Relaxed.CoversSlack:
//     the same obligations with slacks at least t's). The automaton's
//     steps are built from the specification's, and every step of the
//     covered state is one of the covering state, to states that are
//     again related, so the same holds here.
//
// Either relation is a strict order (a linearization step makes a called
// thread done; a covering state has more slack in all), and so is their
// union, so every dropped state is simulated by one that is kept.
func (w *Wrapper) Reduce(states []lts.State) []lts.State {
	if c := reduceCheck.Load(); c != nil {
		in := slices.Clone(states)
		out := w.reduce(states)
		w.checkReduce(c, in, out)
		return out
	}
	return w.reduce(states)
}

// reduce is Reduce.
func (w *Wrapper) reduce(states []lts.State) []lts.State {
	// Only a state with a done thread can be reached, only one with a
	// called thread can reach, and both have the same busy threads.
	w.masks = w.masks[:0]
	any := false
	for _, s := range states {
		m := w.mask(s)
		w.masks = append(w.masks, m)
		any = any || m.done != 0
	}
	cov, _ := w.spec.(coverer)
	if !any && cov == nil {
		return states
	}
	if cov != nil {
		// The slack rule compares states with equal thread statuses whose
		// specification states the specification may relate: a key of
		// each state's, read once here, not once per pair.
		sc, _ := cov.(slackClasser)
		w.thash = w.thash[:0]
		for _, s := range states {
			h := hashThreads(w.threads(s))
			if sc != nil {
				h ^= sc.SlackClass(w.spec0(s)) * 0xff51afd7ed558ccd
			}
			if pruneMutant == 6 {
				// Mutant: the key tells specification states apart, so
				// the slack rule never applies (fewer states dropped).
				h ^= uint64(w.spec0(s)) * 0xc4ceb9fe1a85ec53
			}
			w.thash = append(w.thash, h)
		}
	}
	w.drop = w.drop[:0]
	for j, t := range states {
		mt := w.masks[j]
		for i, s := range states {
			if i == j {
				continue
			}
			ms := w.masks[i]
			if pruneMutant == 4 {
				// Mutant: the state reached drops the one that reaches it.
				if mt.called != 0 && ms.busy == mt.busy && mt.called&ms.done != 0 && ms.called&^mt.called == 0 && w.reaches(t, s) {
					w.drop = append(w.drop, j)
					break
				}
				continue
			}
			if mt.done != 0 && ms.busy == mt.busy && ms.called&mt.done != 0 && mt.called&^ms.called == 0 && w.reaches(s, t) ||
				cov != nil && ms == mt && w.thash[i] == w.thash[j] && (pruneMutant == 5 || slices.Equal(w.threads(s), w.threads(t))) && cov.CoversSlack(w.spec0(s), w.spec0(t)) {
				w.drop = append(w.drop, j)
				break
			}
		}
	}
	if len(w.drop) == 0 {
		return states
	}
	out := states[:0]
	k := 0
	for j, t := range states {
		if k < len(w.drop) && w.drop[k] == j {
			k++
			continue
		}
		out = append(out, t)
	}
	return out
}

// KeepsReduced reports whether a step on e keeps a reduced set reduced
// (refine.Keeper): true for a plain or open invocation, and for a plain
// choice of an argument chosen late. Take a set M with
// no two states related by Reduce's rules, and an invocation of thread T
// (idle in each state of M, or the step fails). Each state s goes to the
// states s' that are s with T called (one per value with eager tags, the
// statuses differing in their tags). Two states s' and t' from s and t
// differ where s and t differ, and T's status is the same in both or is
// called in both with other tags; their specification states are s's and
// t's. The linearization rule relates s' and t' only if the threads where
// they differ are called in s' and done in t' (so not T), which are the
// threads where s and t differ, with the same specification states:
// exactly when it relates s and t. The slack rule needs equal thread
// statuses (so T's equal, and s's and t's equal) and compares the same
// specification states. Steps from one s differ only in T, called in
// both: neither rule relates them. So no two states of the union are
// related, and Reduce would leave it as it is.
//
// It is true too for a plain choice choose.T.A (SetLate; not one
// compressed with a response, whose response may relate states). Each
// state s of M whose T is open and matches A (its argument not fixed, or
// tagged A) goes to one state c(s), s with T's status closed (T called
// with A, or done with the same results, untagged); the other states go
// nowhere. Only T's status changes, and closing is one to one on the
// statuses that match A (an unfixed call becomes a call, a tagged done
// becomes a done; with eager tags a call tagged A becomes the call), so
// c(s) and c(t) have equal statuses exactly when s and t have: the slack
// rule relates c(s) and c(t) exactly when it relates s and t. The
// linearization rule compares T only where T's statuses differ, called
// in one and done in the other: before the choice both are open and
// match A (the unfixed call, or the tag A, passes its test), after it
// both are closed (no tag to compare), and the effects of T's call from
// a specification state are the same steps of the specification both
// times (those of OP with argument A, to done with their results, tagged
// A before and untagged after); the other threads are unchanged. So it
// relates c(s) and c(t) exactly when it relates s and t, and the union
// of the steps of a reduced set is again a set with no two states
// related. (docs/linearizes-log.md, "Why a pair costs three times as much".)
func (w *Wrapper) KeepsReduced(e lts.Event) bool {
	k := w.kind(e)
	ok := k.err == nil && (k.inv && !k.choose || k.choose && k.then == 0)
	switch keepMutant {
	case -1:
		ok = false
	case 1:
		ok = k.err == nil // Mutant: responses and choices too.
	case 2:
		ok = k.err == nil && (k.inv || k.choose) // Mutant: compressed choices too.
	}
	if c := reduceCheck.Load(); c != nil {
		if ok {
			w.checkKept(c, k.choose)
		}
		w.checkAcc = w.checkAcc[:0]
	}
	return ok
}

// referenceReduce is Reduce's two rules applied to every ordered pair of
// the sorted set states as their definitions state them (no masks, keys
// or classes first): t is dropped when some other s reaches it by
// linearization steps, or has its thread statuses and a specification
// state that covers t's. It is the oracle of Reduce's shortcuts and of
// KeepsReduced (the tests, and ReduceCheck); slack counts the states only
// the slack rule drops.
func (w *Wrapper) referenceReduce(states []lts.State) (out []lts.State, slack int) {
	cov, _ := w.spec.(coverer)
	for j, t := range states {
		lin, sl := false, false
		for i, s := range states {
			if i == j {
				continue
			}
			lin = lin || w.reaches(s, t)
			sl = sl || cov != nil && slices.Equal(w.threads(s), w.threads(t)) && cov.CoversSlack(w.spec0(s), w.spec0(t))
		}
		if sl && !lin {
			slack++
		}
		if !lin && !sl {
			out = append(out, t)
		}
	}
	return out, slack
}

// ReduceCheck counts, while installed (SetReduceCheck), the sets the
// Wrappers reduced and those a search interned unreduced because
// KeepsReduced said so, and how many of each referenceReduce would have
// made otherwise (Bad, BadKept; Slack: states only the slack rule
// dropped, so that a test can tell it applied). Tests only: it costs a
// reference reduction per set.
type ReduceCheck struct {
	Reduced, Kept, Slack, Bad, BadKept atomic.Int64
	// KeptChoices counts the kept sets that a plain choice made (of
	// Kept), BadChoices those of them unlike the reference (of BadKept).
	KeptChoices, BadChoices atomic.Int64
}

var reduceCheck atomic.Pointer[ReduceCheck]

// SetReduceCheck installs c (nil: none) and returns a function that
// restores the previous one.
func SetReduceCheck(c *ReduceCheck) func() {
	old := reduceCheck.Swap(c)
	return func() { reduceCheck.Store(old) }
}

// checkReduce compares Reduce's result out for the set in (a copy) with
// the reference, under ReduceCheck.
func (w *Wrapper) checkReduce(c *ReduceCheck, in, out []lts.State) {
	w.checkAcc = w.checkAcc[:0]
	want, slack := w.referenceReduce(in)
	c.Reduced.Add(1)
	c.Slack.Add(int64(slack))
	if !slices.Equal(out, want) {
		c.Bad.Add(1)
	}
}

// checkKept checks, under ReduceCheck, that the union of the steps since
// the last set was interned is a set Reduce leaves as it is.
func (w *Wrapper) checkKept(c *ReduceCheck, choice bool) {
	u := slices.Clone(w.checkAcc)
	w.checkAcc = w.checkAcc[:0]
	slices.Sort(u)
	u = slices.Compact(u)
	c.Kept.Add(1)
	if choice {
		c.KeptChoices.Add(1)
	}
	if want, _ := w.referenceReduce(u); !slices.Equal(want, u) {
		c.BadKept.Add(1)
		if choice {
			c.BadChoices.Add(1)
		}
	}
}

// keepMutant: -1 turns KeepsReduced off (the tests compare the two), 1
// makes it claim every event, 2 every choice, also one compressed with
// its response (hand mutants).
var keepMutant int

// hashThreads hashes a state's thread statuses (equal statuses, equal
// hashes: Reduce's slack rule reads it before comparing them).
func hashThreads(ts []uint32) uint64 {
	if pruneMutant == 5 {
		// Mutant: only the number of threads, and Reduce trusts the key
		// without comparing the statuses.
		return uint64(len(ts))
	}
	h := uint64(len(ts))
	for _, t := range ts {
		h = (h ^ uint64(t)) * 0x9e3779b97f4a7c15
	}
	return h
}

// pruneMutant, when not 0, makes Reduce drop states it must keep (a hand
// mutant; the tests show the oracle notices each).
var pruneMutant int

// coverer is a specification that knows states whose traces include
// another's (relax.Relaxed: the same obligations with larger slacks).
type coverer interface {
	CoversSlack(a, b lts.State) bool
}

// slackClasser is a coverer with a key that CoversSlack(a, b) implies
// equal for a and b (relax.Relaxed.SlackClass).
type slackClasser interface {
	SlackClass(a lts.State) uint64
}

// threadMask tells a state's busy, called and done threads (the first 64).
type threadMask struct{ busy, called, done uint64 }

// mask returns s's threadMask (memoised).
func (w *Wrapper) mask(s lts.State) threadMask {
	if int(s) < len(w.masksOf) && w.masksOf[s].busy != 0 {
		return w.masksOf[s]
	}
	var m threadMask
	for i, t := range w.threads(s) {
		if i >= 64 {
			break
		}
		switch w.statuses[t].kind {
		case called:
			m.called |= 1 << i
		case done:
			m.done |= 1 << i
		}
	}
	m.busy = m.called | m.done
	if m.busy != 0 {
		if int(s) >= len(w.masksOf) {
			w.masksOf = intern.AppendDoubling(w.masksOf, make([]threadMask, int(s)+1-len(w.masksOf))...)
		}
		w.masksOf[s] = m
	}
	return m
}

// reaches reports whether s reaches t by one or more linearization steps.
func (w *Wrapper) reaches(s, t lts.State) bool {
	vs, vt := w.threads(s), w.threads(t)
	if len(vt) > len(vs) {
		return false // t has a busy thread that is idle in s
	}
	var diff uint64 // the threads called in s and done in t
	for i, a := range vs {
		var b uint32
		if i < len(vt) {
			b = vt[i]
		}
		if a == b {
			continue
		}
		sa, sb := &w.statuses[a], &w.statuses[b]
		// (A linearization step keeps the tag of an argument chosen late.)
		if sa.kind != called || sb.kind != done || sa.op != sb.op || sa.open != sb.open || !sa.any && sa.tag != sb.tag || i >= 64 {
			return false
		}
		diff |= 1 << i
	}
	if diff == 0 {
		return false
	}
	return w.reachesSpec(s, w.spec0(s), diff, t)
}

// reachesSpec reports whether the called operations of s's threads in
// diff, performed from specification state sp in some order with the
// results they have in t, can lead to t's specification state.
func (w *Wrapper) reachesSpec(s lts.State, sp lts.State, diff uint64, t lts.State) bool {
	if diff == 0 {
		return sp == w.spec0(t) || pruneMutant == 2
	}
	for i := range w.threads(s) {
		if diff&(1<<i) == 0 {
			continue
		}
		effs, err := w.effectsFor(sp, w.thread(s, i))
		if err != nil {
			continue
		}
		want := w.thread(t, i)
		for _, ef := range effs {
			if ef.done == want && w.reachesSpec(s, ef.spec, diff&^(1<<i), t) {
				return true
			}
		}
	}
	return false
}

// ErrLateOrder: with arguments chosen late, a thread responded before it
// chose its open argument, or chose with none open. The rewrite of the
// implementation (package pipeline) makes a thread choose before its
// next visible step; another component that answers for the thread (or
// shows its choice) breaks that, and the check must be made without the
// option.
var ErrLateOrder = errors.New("arguments chosen late: a thread's choice is not before its next visible step")

// SetLate makes w read an invocation OP_inv.T without its argument, for
// an op of values, as one invocation per value a in values[OP] with the
// argument chosen late: each of its states is "open", tagged with a, until
// the choice event CHOOSE.T.A keeps the states tagged A (and closes them).
// A set of states then stands for one set per vector of values of its
// open threads (the states tagged so), and the search must ask Covered,
// not whether the set is empty (docs/linearizes.md, "Arguments chosen
// late"). Call it before the first step.
func (w *Wrapper) SetLate(values map[string][]int, choose string) {
	w.lateBy, w.choose = values, choose
	w.late = map[int32][]int{}
	w.lateOps()
}

// lateOps numbers the ops of SetLate's values (in the order of their
// names: the numbers, and so the states' ids, do not depend on a map's
// order).
func (w *Wrapper) lateOps() {
	for _, name := range slices.Sorted(maps.Keys(w.lateBy)) {
		vals := w.lateBy[name]
		op, ok := w.ops[name]
		if !ok {
			op = int32(len(w.opNames))
			w.ops[name] = op
			w.opNames = append(w.opNames, name)
		}
		w.late[op] = vals
	}
	w.lateBy = nil
}

// chooseStep is the step of a choice choose.T.A: the states in which T's
// open argument is A, with T's status closed; the others have none.
func (w *Wrapper) chooseStep(s lts.State, e lts.Event, k *evKind, cur status, buf []lts.State) ([]lts.State, error) {
	if !cur.open {
		if tagMutant == 4 && cur.kind != idle {
			return append(buf, s), nil
		}
		return buf, fmt.Errorf("%w: thread %d chooses %s with no argument open", ErrLateOrder, k.thread, w.table.Name(e))
	}
	if !cur.any && cur.tag != k.data[0] && !(tagMutant == 5 && k.then != 0) {
		return buf, nil
	}
	cl := cur
	if cur.any {
		cl.data = []int{k.data[0]}
	}
	cl.open, cl.any, cl.tag = false, false, 0
	return append(buf, w.with(s, k.thread, w.statusID(cl))), nil
}

// Covered reports whether the set of states covers every vector of values
// of its open threads: each vector has a state tagged with it (a status
// whose argument is not fixed matches every value). A set without open
// threads is covered when it is not empty. Covering is monotone: a
// superset of a covered set is covered.
func (w *Wrapper) Covered(states []lts.State) bool {
	if len(states) == 0 {
		return false
	}
	if tagMutant == 1 {
		return true // Mutant: only "not empty".
	}
	// The open threads (all states of a set have followed one trace, so
	// they have the same; the union is taken all the same).
	w.open = w.open[:0]
	w.openVals = w.openVals[:0]
	for _, s := range states {
		for i, t := range w.threads(s) {
			if st := w.statuses[t]; st.open && !slices.Contains(w.open, i) {
				w.open = append(w.open, i)
				w.openVals = append(w.openVals, w.late[st.op])
			}
		}
	}
	if len(w.open) == 0 {
		return true
	}
	// Every vector, in turn (an odometer over the open threads' values).
	w.odo = append(w.odo[:0], make([]int, len(w.open))...)
	for {
		if !w.matched(states) {
			return false
		}
		j := len(w.odo) - 1
		for j >= 0 {
			w.odo[j]++
			if w.odo[j] < len(w.openVals[j]) {
				break
			}
			w.odo[j] = 0
			j--
		}
		if j < 0 {
			return true
		}
	}
}

// matched reports whether some state matches the vector w.odo of values
// of the open threads w.open.
func (w *Wrapper) matched(states []lts.State) bool {
	for _, s := range states {
		ok := true
		for j, i := range w.open {
			st := &w.statuses[w.thread(s, i)]
			if !st.open || !st.any && st.tag != w.openVals[j][w.odo[j]] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// Late reports whether SetLate was called.
func (w *Wrapper) Late() bool { return w.late != nil }

func openNote(st status) string {
	switch {
	case st.any:
		return " (argument open)"
	case st.open:
		return fmt.Sprintf(" (argument open, tagged %d)", st.tag)
	}
	return ""
}

// eagerTags makes an open invocation one state per value at once (the
// design as first written) instead of one state whose argument a
// linearization step fixes (tests compare the two).
var eagerTags bool

// tagMutant, when not 0, breaks the late arguments on purpose (a hand
// mutant; the tests show the oracle notices each): 1 Covered only asks
// for a state, 2 an open invocation forgets a value, 4 a linearization
// step loses the tag, 5 a choice compressed with a response keeps every
// tag.
var tagMutant int
