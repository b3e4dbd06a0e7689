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
// thread symmetry a compressed step carries the composed renaming of its
// two steps and the ties of its target (the state in between, a forced or
// a responding one, is not stored, so its ties play no part), and a
// response taken from the state in between has its thread renamed into the
// numbering of the state before. A counterexample's path is mapped back
// step by step (UnreduceSteps): a step that is no transition of the base
// is replaced by the two-step path through a successor of the state
// before, each candidate checked on the unreduced system.
//
// The base's successors are cached per state (up to a bound; a full cache
// starts afresh): the search expands a state once per product pair, and a
// compressed step expands the state in between once per state before it.
package linearize

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/quasar-verify/quasar/lts"
)

// maxThreads bounds thread ids (the first datum of an event).
const maxThreads = 64

// Wrapper is the automaton of the linearizable behaviours of a specification.
// It is not safe for concurrent use (refine.Check uses its specification
// from one goroutine).
type Wrapper struct {
	spec   lts.Automaton
	naming Naming
	table  *lts.EventTable

	// states: id -> state; index: key -> id.
	states []wstate
	index  map[string]lts.State
	kinds  map[lts.Event]evKind // memoised classification of events
	ops    map[string]int       // op name -> its number in state keys
	memo   map[uint64][]lts.State
	perms  map[permKey]lts.State // PermuteState's memo
	perms8 map[uint64]lts.State  // the same for renamings of threads 0..7 (a packed key hashes faster)
	// effectMemo: effects' memo, by specification state, operation and
	// arguments.
	effectMemo map[string][]effect
	key        []byte
	en         []lts.Event
}

// thread statuses
const (
	idle = iota
	called
	done
)

// status is one thread's part of a state.
type status struct {
	kind int8
	op   string
	data []int // called: the arguments; done: the results
}

type wstate struct {
	spec    lts.State
	threads []status // by thread id; missing ids are idle
}

// evKind classifies an event of the implementation.
type evKind struct {
	inv, res bool
	op       string
	thread   int
	data     []int
	err      error
}

// New wraps spec (an automaton over OP.ARGS.RES events; its event table is
// the one the implementation's events are interned in).
func New(spec lts.Automaton, naming Naming) *Wrapper {
	if naming.Rules == nil && (naming.Inv == "" || naming.Res == "") {
		naming = DefaultNaming
	}
	return &Wrapper{
		spec: spec, naming: naming, table: spec.Events(),
		index: map[string]lts.State{}, kinds: map[lts.Event]evKind{},
		ops: map[string]int{}, memo: map[uint64][]lts.State{},
	}
}

// Events is the shared event table.
func (w *Wrapper) Events() *lts.EventTable { return w.table }

// Start appends the initial states: every specification start, all idle.
func (w *Wrapper) Start(buf []lts.State) []lts.State {
	for _, s := range w.spec.Start(nil) {
		buf = append(buf, w.intern(wstate{spec: s}))
	}
	return buf
}

// Step appends the states after the invocation or response e. Results are
// memoised: the refinement search asks for the same step of a state from
// many macrostates.
func (w *Wrapper) Step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	key := uint64(s)<<32 | uint64(e)
	if out, ok := w.memo[key]; ok {
		return append(buf, out...), nil
	}
	n := len(buf)
	buf, err := w.step(s, e, buf)
	if err == nil {
		w.memo[key] = slices.Clone(buf[n:])
	}
	return buf, err
}

func (w *Wrapper) step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	k := w.kind(e)
	if k.err != nil {
		return buf, k.err
	}
	st := w.states[s]
	cur := st.thread(k.thread)
	if k.inv {
		if cur.kind != idle {
			return buf, fmt.Errorf("thread %d invokes %s while its %s is pending: the model's history is not well formed", k.thread, w.table.Name(e), cur.op)
		}
		return append(buf, w.intern(st.with(k.thread, status{kind: called, op: k.op, data: k.data}))), nil
	}
	switch {
	case cur.kind == idle:
		return buf, fmt.Errorf("thread %d responds %s without a pending call", k.thread, w.table.Name(e))
	case cur.op != k.op:
		return buf, fmt.Errorf("thread %d responds %s to a call of %s", k.thread, w.table.Name(e), cur.op)
	}
	n := len(buf)
	var err error
	buf, err = w.respond(st, k, buf)
	if err != nil {
		return buf[:n], err
	}
	tail := buf[n:]
	slices.Sort(tail)
	return append(buf[:n], slices.Compact(tail)...), nil
}

// respond appends the states after thread k.thread's response with
// results k.data: after linearization steps of other called threads (any
// subset, any order) and then its own, unless it is done already.
func (w *Wrapper) respond(st wstate, k evKind, buf []lts.State) ([]lts.State, error) {
	cur := st.thread(k.thread)
	if cur.kind == done {
		if slices.Equal(cur.data, k.data) {
			buf = append(buf, w.intern(st.with(k.thread, status{})))
		}
		return buf, nil
	}
	// Its own linearization step, now.
	outs, err := w.linearize(st, k.thread)
	if err != nil {
		return buf, err
	}
	for _, o := range outs {
		if t := o.thread(k.thread); slices.Equal(t.data, k.data) {
			buf = append(buf, w.intern(o.with(k.thread, status{})))
		}
	}
	// Or another called thread's first.
	for i, t := range st.threads {
		if i == k.thread || t.kind != called {
			continue
		}
		outs, err := w.linearize(st, i)
		if err != nil {
			return buf, err
		}
		for _, o := range outs {
			if buf, err = w.respond(o, k, buf); err != nil {
				return buf, err
			}
		}
	}
	return buf, nil
}

// linearize returns the states after thread i's (called) operation takes
// effect, one per result the specification allows and successor state.
func (w *Wrapper) linearize(st wstate, i int) ([]wstate, error) {
	t := st.thread(i)
	effects, err := w.effects(st.spec, t)
	if err != nil {
		return nil, err
	}
	out := make([]wstate, 0, len(effects))
	for _, ef := range effects {
		o := st.with(i, status{kind: done, op: t.op, data: ef.res})
		o.spec = ef.spec
		out = append(out, o)
	}
	return out, nil
}

// effect is one way a called operation can take effect: the results it
// returns and the specification's state after it.
type effect struct {
	res  []int // shared: not to be modified
	spec lts.State
}

// effects returns the ways the called operation t can take effect in
// specification state sp (memoised: it depends on nothing else, and
// responses ask for the same ones from many states).
func (w *Wrapper) effects(sp lts.State, t status) ([]effect, error) {
	k := binary.AppendUvarint(w.key[:0], uint64(sp))
	k = append(k, t.op...)
	k = append(k, 0)
	for _, d := range t.data {
		k = binary.AppendVarint(k, int64(d))
	}
	w.key = k
	if out, ok := w.effectMemo[string(k)]; ok {
		return out, nil
	}
	key := string(k)
	var err error
	w.en, err = w.spec.Enabled(sp, w.en[:0])
	if err != nil {
		return nil, err
	}
	en := slices.Clone(w.en)
	var out []effect
	for _, e := range en {
		if w.table.Base(e) != t.op {
			continue
		}
		data := w.table.Data(e)
		if len(data) < len(t.data) || !slices.Equal(data[:len(t.data)], t.data) {
			continue
		}
		next, err := w.spec.Step(sp, e, nil)
		if err != nil {
			return nil, err
		}
		res := slices.Clone(data[len(t.data):])
		for _, n := range next {
			out = append(out, effect{res: res, spec: n})
		}
	}
	if w.effectMemo == nil {
		w.effectMemo = map[string][]effect{}
	}
	w.effectMemo[key] = out
	return out, nil
}

// Enabled appends the invocations and responses possible from s: the
// invocations of idle threads among the events interned so far (the
// implementation's), and the responses some linearization allows.
func (w *Wrapper) Enabled(s lts.State, buf []lts.Event) ([]lts.Event, error) {
	n := len(buf)
	st := w.states[s]
	for e := lts.Event(1); int(e) < w.table.Len(); e++ {
		k := w.kind(e)
		if k.err != nil || !(k.inv || k.res) {
			continue
		}
		cur := st.thread(k.thread)
		if k.inv && cur.kind == idle {
			buf = append(buf, e)
		}
		if k.res && cur.kind != idle && cur.op == k.op {
			next, err := w.respond(st, k, nil)
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
	st := w.states[s]
	var parts []string
	if d, ok := w.spec.(interface{ Describe(lts.State) string }); ok {
		parts = append(parts, "spec "+d.Describe(st.spec))
	}
	for i, t := range st.threads {
		switch t.kind {
		case called:
			parts = append(parts, fmt.Sprintf("t%d called %s", i, eventName(t.op, t.data)))
		case done:
			parts = append(parts, fmt.Sprintf("t%d done %s", i, eventName(t.op, t.data)))
		}
	}
	return strings.Join(parts, ", ")
}

// kind classifies e (memoised).
func (w *Wrapper) kind(e lts.Event) evKind {
	if k, ok := w.kinds[e]; ok {
		return k
	}
	k := w.classify(e)
	w.kinds[e] = k
	return k
}

func (w *Wrapper) classify(e lts.Event) evKind {
	c, err := w.naming.Read(w.table.Base(e), w.table.Data(e))
	if err != nil {
		return evKind{err: err}
	}
	if c.Role == RoleOther {
		return evKind{err: fmt.Errorf("event %s is neither %s: hide it, or name it so", w.table.Name(e), w.naming.describe())}
	}
	return evKind{inv: c.Role == RoleInv, res: c.Role == RoleRes, op: c.Op, thread: c.Thread, data: c.Data}
}

func (st wstate) thread(i int) status {
	if i < len(st.threads) {
		return st.threads[i]
	}
	return status{}
}

// with returns st with thread i's status replaced (st is not modified).
func (st wstate) with(i int, t status) wstate {
	n := max(len(st.threads), i+1)
	ts := make([]status, n)
	copy(ts, st.threads)
	ts[i] = t
	// Trailing idle threads are dropped: one key per state.
	for len(ts) > 0 && ts[len(ts)-1].kind == idle {
		ts = ts[:len(ts)-1]
	}
	return wstate{spec: st.spec, threads: ts}
}

// intern returns the id of st, adding it if new.
func (w *Wrapper) intern(st wstate) lts.State {
	k := binary.AppendUvarint(w.key[:0], uint64(st.spec))
	for _, t := range st.threads {
		op, ok := w.ops[t.op]
		if !ok {
			op = len(w.ops)
			w.ops[t.op] = op
		}
		k = append(k, byte(t.kind))
		k = binary.AppendUvarint(k, uint64(op))
		k = binary.AppendUvarint(k, uint64(len(t.data)))
		for _, d := range t.data {
			k = binary.AppendVarint(k, int64(d))
		}
	}
	w.key = k
	if id, ok := w.index[string(k)]; ok {
		return id
	}
	id := lts.State(len(w.states))
	w.states = append(w.states, st)
	w.index[string(k)] = id
	return id
}

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
	case k.err != nil:
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
// thread T of OP_inv.T.ARGS becomes p.At(T)); other events are unchanged.
// The thread must be the first datum (Naming.ThreadFirst).
func (w *Wrapper) PermuteEvent(e lts.Event, p lts.Perm) lts.Event {
	if p == 0 || w.Role(e) == RoleOther {
		return e
	}
	data := slices.Clone(w.table.Data(e))
	data[0] = p.At(data[0])
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
		if t, ok := w.perms8[key8]; ok {
			return t
		}
	} else if t, ok := w.perms[key]; ok {
		return t
	}
	st := w.states[s]
	n := len(st.threads)
	for i := range st.threads {
		n = max(n, p.At(i)+1)
	}
	ts := make([]status, n)
	for i, t := range st.threads {
		ts[p.At(i)] = t
	}
	for len(ts) > 0 && ts[len(ts)-1].kind == idle {
		ts = ts[:len(ts)-1]
	}
	t := w.intern(wstate{spec: st.spec, threads: ts})
	switch {
	case small && w.perms8 == nil:
		w.perms8 = map[uint64]lts.State{key8: t}
	case small:
		w.perms8[key8] = t
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
