package history

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/quasar-verify/quasar/lts"
)

// containerKind selects the sequential object of a containerModel.
type containerKind uint8

const (
	cQueue containerKind = iota
	cStack
	cPQueue
	cSet
	cBag
)

type containerModel struct{ kind containerKind }

// Queue is a FIFO queue of integers, initially empty: enq(x), deq() -> x,
// deq() -> null when empty. Events: enq.x, deq.x, deq.0 (empty; so 0 must
// not be enqueued when events are used, as in the papers' models).
func Queue() Model { return containerModel{cQueue} }

// Stack is a LIFO stack of integers: push(x), pop() -> x or null (events
// push.x, pop.x, pop.0).
func Stack() Model { return containerModel{cStack} }

// PriorityQueue is a min-priority queue of integers (a multiset):
// insert(x), deleteMin() -> the least element or null (events insert.x,
// deleteMin.x, deleteMin.0).
func PriorityQueue() Model { return containerModel{cPQueue} }

// Set is a set of integers: add(x) -> true if it was absent, remove(x) ->
// true if it was present, contains(x) -> bool. A null result of add or
// remove is not checked. Events add.x.r, remove.x.r, contains.x.r with r 1
// or 0.
func Set() Model { return containerModel{cSet} }

// UnorderedQueue is Knossos's (model/unordered-queue), which Jepsen's
// queue checker recommends: a multiset of integers, enq(x), deq() -> any
// element present, deq() -> null only when empty. It has no event view
// (quasi checks need an order to relax).
func UnorderedQueue() Model { return containerModel{cBag} }

func (m containerModel) Name() string {
	return [...]string{"queue", "stack", "pqueue", "set", "unordered-queue"}[m.kind]
}

// Operation codes: put (enq/push/insert/add), take (deq/pop/deleteMin),
// remove, contains.
const (
	coPut = iota
	coTake
	coRemove
	coContains
)

func (m containerModel) opCode(f string) (int, bool) {
	switch m.kind {
	case cQueue, cBag:
		switch f {
		case "enq", "enqueue", "offer":
			return coPut, true
		case "deq", "dequeue", "poll":
			return coTake, true
		}
	case cStack:
		switch f {
		case "push":
			return coPut, true
		case "pop":
			return coTake, true
		}
	case cPQueue:
		switch f {
		case "insert", "add":
			return coPut, true
		case "deleteMin", "deletemin", "removeMin", "poll":
			return coTake, true
		}
	case cSet:
		switch f {
		case "add", "insert":
			return coPut, true
		case "remove", "delete":
			return coRemove, true
		case "contains", "has":
			return coContains, true
		}
	}
	return 0, false
}

func (m containerModel) wantOps() string {
	return [...]string{"enq or deq", "push or pop", "insert or deleteMin", "add, remove or contains", "enq or deq"}[m.kind]
}

type cOp struct {
	code  uint8
	info  bool
	arg   int64
	res   int64 // take: the value; set: 1/0
	empty bool  // take returned null
	check bool  // set: result known
}

// containerMachine: a state is the content (queue/stack in order; pqueue
// and set sorted) encoded as bytes and interned; steps are cached.
type containerMachine struct {
	kind  containerKind
	ops   []cOp
	ids   map[string]State
	strs  [][]int64
	cache map[uint64]State // (state<<32|op) -> next+1; 0 = disallowed
	tmp   []int64
	key   []byte
	qp    *queuePrune // nil: no pruning
}

// queuePrune holds what Viable needs for a queue, stack or priority queue
// whose inserted values are distinct and removed by at most one completed
// op, without removals of unknown result: for each value, the op that
// removed it (if any; among several pending ones with that result, the
// first invoked) and its call and return times, and the completed
// removals that returned null.
type queuePrune struct {
	deqOf   map[int64]int32 // value -> op index of its dequeue
	call    []int64         // by op index
	ret     []int64
	empties []int32 // completed dequeues that returned null
}

func (m containerModel) compileOps(ops []Op) ([]cOp, error) {
	out := make([]cOp, len(ops))
	for i := range ops {
		o := &ops[i]
		code, ok := m.opCode(o.F)
		if !ok {
			return nil, opError(o, "unknown operation for model %s (want %s)", m.Name(), m.wantOps())
		}
		r := cOp{code: uint8(code), info: o.Status == Info}
		if code != coTake {
			n, ok := o.Input.Int()
			if !ok {
				if l, isl := o.Input.List(); isl && len(l) == 1 {
					n, ok = l[0].Int()
				}
			}
			if !ok {
				return nil, opError(o, "expected an integer argument, found %s", o.Input)
			}
			r.arg = n
		}
		if !r.info {
			switch code {
			case coTake:
				if o.Output.IsNil() {
					r.empty = true
				} else if n, ok := o.Output.Int(); ok {
					r.res = n
				} else {
					return nil, opError(o, "expected an integer result or null, found %s", o.Output)
				}
			case coRemove, coContains, coPut:
				if m.kind != cSet {
					break
				}
				if b, ok := o.Output.Bool(); ok {
					r.check = true
					if b {
						r.res = 1
					}
				} else if code == coContains {
					return nil, opError(o, "expected result true or false, found %s", o.Output)
				}
			}
		}
		out[i] = r
	}
	return out, nil
}

func (m containerModel) Compile(ops []Op) (Machine, error) {
	cops, err := m.compileOps(ops)
	if err != nil {
		return nil, err
	}
	mc := newContainerMachine(m.kind)
	mc.ops = cops
	if m.kind != cSet && m.kind != cBag {
		mc.qp = newQueuePrune(ops, cops)
	}
	return mc, nil
}

func newQueuePrune(ops []Op, cops []cOp) *queuePrune {
	qp := &queuePrune{deqOf: map[int64]int32{}, call: make([]int64, len(ops)), ret: make([]int64, len(ops))}
	enq := map[int64]bool{}
	for i := range cops {
		c := &cops[i]
		qp.call[i], qp.ret[i] = ops[i].Call, ops[i].Return
		switch c.code {
		case coPut:
			if enq[c.arg] {
				return nil // a value enqueued twice
			}
			enq[c.arg] = true
		case coTake:
			switch {
			case c.info:
				return nil // could dequeue anything
			case c.empty:
				qp.empties = append(qp.empties, int32(i))
			default:
				// A value with several removals: a completed one is
				// its removal (the others, pending, take effect in no
				// linearization: queueUnusable); among pending ones,
				// the first invoked (the removal comes no earlier).
				j, dup := qp.deqOf[c.res]
				switch {
				case !dup:
				case ops[i].Return != Pending && ops[j].Return != Pending:
					return nil
				case ops[j].Return != Pending || ops[i].Return == Pending && ops[j].Call <= ops[i].Call:
					continue
				}
				qp.deqOf[c.res] = int32(i)
			}
		}
	}
	return qp
}

// Viable (distinct values, see queuePrune): a value x ahead of y in removal
// order (the queue from its head, the priority queue from its least
// element, the stack from its top) must be removed before y, so if y's
// removal is a completed op not yet linearized, x's removal must exist and
// may not follow y's in real time; likewise every value must be removed
// before a completed removal that returned null and is not yet linearized.
// A false answer is exact: the state cannot reach a linearization.
func (mc *containerMachine) Viable(s State, lin []uint64) bool {
	qp := mc.qp
	if qp == nil {
		return true
	}
	c := mc.strs[s]
	if len(c) == 0 {
		return true
	}
	const never = int64(1<<63 - 1)
	maxCall := int64(-1 << 63) // latest call of the removals of the values ahead
	for k := range c {
		x := c[k]
		if mc.kind == cStack {
			x = c[len(c)-1-k]
		}
		d, ok := qp.deqOf[x]
		var dcall int64 = never
		if ok {
			dcall = qp.call[d]
			if lin[d>>6]&(1<<(uint(d)&63)) == 0 && maxCall > qp.ret[d] {
				return false
			}
		}
		maxCall = max(maxCall, dcall)
	}
	for _, e := range qp.empties {
		if lin[e>>6]&(1<<(uint(e)&63)) == 0 && maxCall > qp.ret[e] {
			return false
		}
	}
	return true
}

func newContainerMachine(k containerKind) *containerMachine {
	mc := &containerMachine{kind: k, ids: map[string]State{}, cache: map[uint64]State{}}
	mc.intern(nil)
	return mc
}

func (mc *containerMachine) intern(c []int64) State {
	mc.key = mc.key[:0]
	for _, x := range c {
		mc.key = binary.AppendVarint(mc.key, x)
	}
	if id, ok := mc.ids[string(mc.key)]; ok {
		return id
	}
	id := State(len(mc.strs))
	mc.ids[string(mc.key)] = id
	mc.strs = append(mc.strs, append([]int64(nil), c...))
	return id
}

func (mc *containerMachine) Init(buf []State) []State { return append(buf, 0) }

func (mc *containerMachine) Step(s State, i int, buf []State) []State {
	if r := &mc.ops[i]; mc.kind == cBag && r.code == coTake && r.info {
		// A pending dequeue of a multiset may take any element.
		c := mc.strs[s]
		if len(c) == 0 {
			return append(buf, s)
		}
		for k, x := range c {
			if k == 0 || x != c[k-1] {
				t := cOp{code: coTake, res: x}
				n, _ := mc.apply(s, &t)
				buf = append(buf, n)
			}
		}
		return buf
	}
	ck := uint64(s)<<32 | uint64(i)
	if n, ok := mc.cache[ck]; ok {
		if n == 0 {
			return buf
		}
		return append(buf, n-1)
	}
	n, ok := mc.apply(s, &mc.ops[i])
	if !ok {
		mc.cache[ck] = 0
		return buf
	}
	mc.cache[ck] = n + 1
	return append(buf, n)
}

// apply runs one operation; an Info op takes its natural result.
func (mc *containerMachine) apply(s State, r *cOp) (State, bool) {
	c := mc.strs[s]
	switch r.code {
	case coPut:
		switch mc.kind {
		case cQueue, cStack:
			mc.tmp = append(append(mc.tmp[:0], c...), r.arg)
		case cPQueue, cBag:
			j := sort.Search(len(c), func(k int) bool { return c[k] > r.arg })
			mc.tmp = append(append(append(mc.tmp[:0], c[:j]...), r.arg), c[j:]...)
		case cSet:
			j := sort.Search(len(c), func(k int) bool { return c[k] >= r.arg })
			present := j < len(c) && c[j] == r.arg
			if r.check && (r.res == 1) == present {
				return 0, false
			}
			if present {
				return s, true
			}
			mc.tmp = append(append(append(mc.tmp[:0], c[:j]...), r.arg), c[j:]...)
		}
		return mc.intern(mc.tmp), true
	case coTake:
		if len(c) == 0 {
			if r.info || r.empty {
				return s, true
			}
			return 0, false
		}
		var v int64
		var rest []int64
		if mc.kind == cBag && !r.info {
			// Any element: remove one copy of the result.
			if r.empty {
				return 0, false
			}
			j := sort.Search(len(c), func(k int) bool { return c[k] >= r.res })
			if j == len(c) || c[j] != r.res {
				return 0, false
			}
			mc.tmp = append(append(mc.tmp[:0], c[:j]...), c[j+1:]...)
			return mc.intern(mc.tmp), true
		}
		switch mc.kind {
		case cQueue, cPQueue:
			v, rest = c[0], c[1:]
		case cStack:
			v, rest = c[len(c)-1], c[:len(c)-1]
		}
		if !r.info && (r.empty || v != r.res) {
			return 0, false
		}
		return mc.intern(rest), true
	case coRemove, coContains:
		j := sort.Search(len(c), func(k int) bool { return c[k] >= r.arg })
		present := j < len(c) && c[j] == r.arg
		if r.check && (r.res == 1) != present {
			return 0, false
		}
		if r.code == coContains || !present {
			return s, true
		}
		mc.tmp = append(append(mc.tmp[:0], c[:j]...), c[j+1:]...)
		return mc.intern(mc.tmp), true
	}
	return 0, false
}

func (mc *containerMachine) Describe(s State) string {
	c := mc.strs[s]
	parts := make([]string, len(c))
	for i, x := range c {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// Event names an operation as an event of the modelling language.
func (m containerModel) Event(o *Op) (string, []int, bool, error) {
	if m.kind == cBag {
		return "", nil, false, opError(o, "model unordered-queue has no event view (quasi checks need an ordered model)")
	}
	cops, err := m.compileOps([]Op{*o})
	if err != nil {
		return "", nil, false, err
	}
	r := cops[0]
	switch r.code {
	case coPut:
		if m.kind == cSet {
			if r.check {
				return o.F, []int{int(r.arg), int(r.res)}, true, nil
			}
			return o.F, []int{int(r.arg)}, !r.info, nil
		}
		if r.arg == 0 {
			return "", nil, false, opError(o, "value 0 is reserved for the empty result in events")
		}
		return o.F, []int{int(r.arg)}, true, nil
	case coTake:
		if r.info {
			return o.F, nil, false, nil
		}
		if r.empty {
			return o.F, []int{0}, true, nil
		}
		if r.res == 0 {
			return "", nil, false, opError(o, "value 0 is reserved for the empty result in events")
		}
		return o.F, []int{int(r.res)}, true, nil
	default:
		if r.check {
			return o.F, []int{int(r.arg), int(r.res)}, true, nil
		}
		return o.F, []int{int(r.arg)}, false, nil
	}
}

// Automaton is the model as an lts.Automaton over the events of Event,
// restricted to the values that occur in ops (their universe).
func (m containerModel) Automaton(ops []Op) (lts.Automaton, error) {
	a := &containerAutomaton{mc: newContainerMachine(m.kind), table: lts.NewEventTable(), kind: m.kind}
	vals := map[int64]bool{}
	for i := range ops {
		base, data, complete, err := m.Event(&ops[i])
		if err != nil {
			return nil, err
		}
		code, _ := m.opCode(ops[i].F)
		if code != coTake {
			vals[int64(data[0])] = true
		}
		if complete {
			a.table.Intern(base, data...)
		}
		a.names[code] = base
	}
	for v := range vals {
		a.universe = append(a.universe, v)
	}
	sort.Slice(a.universe, func(i, j int) bool { return a.universe[i] < a.universe[j] })
	for code, base := range a.names {
		if base == "" {
			continue
		}
		// Intern every event the automaton may enable, so Enabled never
		// grows the table while the checker runs.
		switch code {
		case coPut:
			for _, v := range a.universe {
				if m.kind == cSet {
					a.table.Intern(base, int(v), 0)
					a.table.Intern(base, int(v), 1)
				} else {
					a.table.Intern(base, int(v))
				}
			}
		case coTake:
			a.table.Intern(base, 0)
			for _, v := range a.universe {
				a.table.Intern(base, int(v))
			}
		default:
			for _, v := range a.universe {
				a.table.Intern(base, int(v), 0)
				a.table.Intern(base, int(v), 1)
			}
		}
	}
	return a, nil
}

type containerAutomaton struct {
	mc       *containerMachine
	table    *lts.EventTable
	kind     containerKind
	names    [4]string // event base per op code, as used by the history
	universe []int64
	// Decoded events (built once the table is complete): ops[e], ok[e];
	// puts lists the put events; takeOf maps a taken value (0: empty) to
	// its event.
	ops    []cOp
	ok     []bool
	puts   []lts.Event
	takeOf map[int64]lts.Event
	seen   int // table length when decoded
}

// decode caches the decoded events (again if the table grew).
func (a *containerAutomaton) decode() {
	n := a.table.Len()
	if n == a.seen {
		return
	}
	a.ops, a.ok, a.puts = make([]cOp, n), make([]bool, n), a.puts[:0]
	a.takeOf = map[int64]lts.Event{}
	for e := lts.Event(1); int(e) < n; e++ {
		r, ok := a.opOf(e)
		a.ops[e], a.ok[e] = r, ok
		if !ok {
			continue
		}
		switch {
		case r.code == coPut && !r.check:
			a.puts = append(a.puts, e)
		case r.code == coTake:
			a.takeOf[r.res] = e
		}
	}
	a.seen = n
}

func (a *containerAutomaton) Events() *lts.EventTable           { return a.table }
func (a *containerAutomaton) Start(buf []lts.State) []lts.State { return append(buf, 0) }

func (a *containerAutomaton) opOf(e lts.Event) (cOp, bool) {
	base, data := a.table.Base(e), a.table.Data(e)
	for code, b := range a.names {
		if b != base || b == "" {
			continue
		}
		r := cOp{code: uint8(code)}
		switch code {
		case coTake:
			if len(data) != 1 {
				return r, false
			}
			r.empty = data[0] == 0
			r.res = int64(data[0])
		default:
			if len(data) == 0 {
				return r, false
			}
			r.arg = int64(data[0])
			if len(data) > 1 {
				r.check, r.res = true, int64(data[1])
			}
		}
		return r, true
	}
	return cOp{}, false
}

func (a *containerAutomaton) Step(s lts.State, e lts.Event, buf []lts.State) ([]lts.State, error) {
	a.decode()
	if int(e) >= len(a.ok) || !a.ok[e] {
		return buf, nil
	}
	r := a.ops[e]
	if n, ok := a.mc.apply(State(s), &r); ok {
		buf = append(buf, lts.State(n))
	}
	return buf, nil
}

// Enabled: for the queue, stack and priority queue every put is enabled
// and exactly one take (of the head, top or least value, or the empty
// one), so they are listed directly; the set tries every event. The
// events come in increasing order.
func (a *containerAutomaton) Enabled(s lts.State, buf []lts.Event) ([]lts.Event, error) {
	a.decode()
	if a.kind == cSet {
		for e := lts.Event(1); int(e) < len(a.ok); e++ {
			if !a.ok[e] {
				continue
			}
			r := a.ops[e]
			if _, ok := a.mc.apply(State(s), &r); ok {
				buf = append(buf, e)
			}
		}
		return buf, nil
	}
	start := len(buf)
	buf = append(buf, a.puts...)
	c := a.mc.strs[s]
	var v int64 // 0: empty
	if len(c) > 0 {
		v = c[0]
		if a.kind == cStack {
			v = c[len(c)-1]
		}
	}
	if e, ok := a.takeOf[v]; ok {
		buf = append(buf, e)
	}
	slices.Sort(buf[start:])
	return buf, nil
}

// neverTaken finds the ops (by their events) that take a value no op
// puts: the automaton, whose universe is the values put, never enables
// their event. Each gets the reason.
func (a *containerAutomaton) neverTaken(events []lts.Event) map[int]string {
	if a.kind == cSet {
		return nil
	}
	a.decode()
	var out map[int]string
	for i, e := range events {
		if e == lts.Tau || int(e) >= len(a.ok) || !a.ok[e] {
			continue
		}
		op := a.ops[e]
		if op.code != coTake || op.empty {
			continue
		}
		if _, put := slices.BinarySearch(a.universe, op.res); put { // sorted
			continue
		}
		if out == nil {
			out = map[int]string{}
		}
		out[i] = fmt.Sprintf("the history has no %s(%d), so its event %s is never enabled, whatever the quasi factor", a.names[coPut], op.res, a.table.Name(e))
	}
	return out
}

// EnabledMatching (relax.PatternEnabler): the enabled events matching p,
// without listing the whole alphabet for the take of a queue, stack or
// priority queue (a history over thousands of values enables every put
// everywhere, and exact-mode relaxation asks for the takes at every step).
func (a *containerAutomaton) EnabledMatching(s lts.State, p lts.Pattern, buf []lts.Event) ([]lts.Event, error) {
	a.decode()
	if a.kind == cSet || p.Base != a.names[coTake] || p.Base == "" {
		start := len(buf)
		buf, err := a.Enabled(s, buf)
		out := buf[:start]
		for _, e := range buf[start:] {
			if p.Match(a.table, e) {
				out = append(out, e)
			}
		}
		return out, err
	}
	c := a.mc.strs[s]
	var v int64 // 0: empty
	if len(c) > 0 {
		v = c[0]
		if a.kind == cStack {
			v = c[len(c)-1]
		}
	}
	if e, ok := a.takeOf[v]; ok && p.Match(a.table, e) {
		buf = append(buf, e)
	}
	return buf, nil
}
