package history

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/quasar-verify/quasar/lts"
)

// FromAutomaton makes a Model of any specification given as an
// lts.Automaton (a model file's process through lts.NewTauClosed, a
// relaxed automaton, an lts.Explicit): an operation is the event
// f.args.result, e.g. enq.3 (enq(3), no result), deq.3 (deq() -> 3) and,
// as in the papers' models, deq.0 for a dequeue that returned null. Args
// are the op's Input (an integer or a list of integers; null: none); the
// result is the Output (an integer, true/false as 1/0; null: no result
// datum if the event f.args exists, else f.args.0; a result equal to the
// args, as Jepsen's enqueues echo their value: none if the event
// f.args.result does not exist and f.args does). An Info op matches any
// enabled event f.args[.r].
//
// The automaton is used from one goroutine at a time: do not share it
// between concurrent checks.
func FromAutomaton(a lts.Automaton) Model { return &autModel{a: a} }

type autModel struct{ a lts.Automaton }

func (m *autModel) Name() string { return "automaton" }

func intsOf(v Value) ([]int, bool) {
	switch v.Kind() {
	case NilKind:
		return nil, true
	case IntKind:
		n, _ := v.Int()
		return []int{int(n)}, true
	case BoolKind:
		if b, _ := v.Bool(); b {
			return []int{1}, true
		}
		return []int{0}, true
	case ListKind:
		l, _ := v.List()
		var out []int
		for _, x := range l {
			y, ok := intsOf(x)
			if !ok || len(y) != 1 {
				return nil, false
			}
			out = append(out, y...)
		}
		return out, true
	}
	return nil, false
}

func eventName(base string, data []int) string {
	var sb strings.Builder
	sb.WriteString(base)
	for _, d := range data {
		sb.WriteByte('.')
		sb.WriteString(strconv.Itoa(d))
	}
	return sb.String()
}

// Event maps an op to its event name parts (see FromAutomaton).
func (m *autModel) Event(o *Op) (string, []int, bool, error) {
	args, ok := intsOf(o.Input)
	if !ok {
		return "", nil, false, opError(o, "expected integer arguments, found %s", o.Input)
	}
	if o.Status == Info {
		return o.F, args, false, nil
	}
	if o.Output.IsNil() {
		t := m.a.Events()
		if _, ok := t.Lookup(eventName(o.F, args)); ok {
			return o.F, args, true, nil
		}
		return o.F, append(args, 0), true, nil
	}
	res, ok := intsOf(o.Output)
	if !ok {
		return "", nil, false, opError(o, "expected an integer result, found %s", o.Output)
	}
	full := append(args[:len(args):len(args)], res...)
	if o.Output.Equal(o.Input) {
		// A completion that echoes its arguments (Jepsen's enqueue -> 3)
		// is f.args when the model has no event f.args.args.
		t := m.a.Events()
		if _, ok := t.Lookup(eventName(o.F, full)); !ok {
			if _, ok := t.Lookup(eventName(o.F, args)); ok {
				return o.F, args, true, nil
			}
		}
	}
	return o.F, full, true, nil
}

func (m *autModel) Automaton(ops []Op) (lts.Automaton, error) { return m.a, nil }

func (m *autModel) Compile(ops []Op) (Machine, error) {
	return newAutomatonMachine(m, m.a, ops, nil)
}

// automatonMachine runs an lts.Automaton: each op is its event (or, for an
// Info op, a pattern matched against the enabled events).
type automatonMachine struct {
	a        lts.Automaton
	events   []lts.Event   // 0: the op's event is unknown to the automaton (never enabled)
	patterns []lts.Pattern // for Info ops
	info     []bool
	missing  map[int]string // ops whose event the automaton does not know: the event
	// never: completed ops whose (known) event the automaton never
	// enables, with why (a quasi check's take of a value no op puts).
	never    map[int]string
	settled  func(lts.State) bool // complete mode
	describe func(lts.State) string
	en       []lts.Event
	tmp      []lts.State
}

func newAutomatonMachine(ev Eventer, a lts.Automaton, ops []Op, settled func(lts.State) bool) (*automatonMachine, error) {
	mc := &automatonMachine{a: a, settled: settled}
	t := a.Events()
	mc.events = make([]lts.Event, len(ops))
	mc.patterns = make([]lts.Pattern, len(ops))
	mc.info = make([]bool, len(ops))
	for i := range ops {
		base, data, complete, err := ev.Event(&ops[i])
		if err != nil {
			return nil, err
		}
		if !complete {
			mc.info[i] = true
			mc.patterns[i] = lts.Pattern{Base: base, Data: data}
			continue
		}
		name := eventName(base, data)
		if e, ok := t.Lookup(name); ok {
			mc.events[i] = e
		} else {
			if mc.missing == nil {
				mc.missing = map[int]string{}
			}
			mc.missing[i] = name
		}
	}
	if d, ok := a.(interface{ Describe(lts.State) string }); ok {
		mc.describe = d.Describe
	}
	return mc, nil
}

// unknownEvent explains why op i can never take effect when its event is
// not one the automaton performs: the event, and the automaton's events of
// the same name (or a few others). "" if the event is known.
func (mc *automatonMachine) unknownEvent(i int) string {
	if why, ok := mc.never[i]; ok {
		return why
	}
	name, ok := mc.missing[i]
	if !ok {
		return ""
	}
	t := mc.a.Events()
	base, _, _ := strings.Cut(name, ".")
	var same, other []string
	for e := 1; e < t.Len(); e++ {
		n := t.Name(lts.Event(e))
		if t.Base(lts.Event(e)) == base {
			same = append(same, n)
		} else if len(other) < 6 {
			other = append(other, n)
		}
	}
	near := same
	if len(near) == 0 {
		near = other
	}
	if len(near) > 8 {
		near = append(near[:8:8], "...")
	}
	return fmt.Sprintf("its event %s is not one the model performs (the model's events include %s)", name, strings.Join(near, ", "))
}

// automatonError carries an automaton's run-time error out of Step; check
// turns it back into an error.
type automatonError struct{ err error }

func (mc *automatonMachine) Init(buf []State) []State {
	for _, s := range mc.a.Start(nil) {
		buf = append(buf, State(s))
	}
	return buf
}

func (mc *automatonMachine) Step(s State, i int, buf []State) []State {
	var err error
	if !mc.info[i] {
		if mc.events[i] == lts.Tau {
			return buf
		}
		mc.tmp, err = mc.a.Step(lts.State(s), mc.events[i], mc.tmp[:0])
		if err != nil {
			panic(automatonError{err})
		}
		for _, t := range mc.tmp {
			buf = append(buf, State(t))
		}
		return buf
	}
	mc.en, err = mc.a.Enabled(lts.State(s), mc.en[:0])
	if err != nil {
		panic(automatonError{err})
	}
	table := mc.a.Events()
	p := mc.patterns[i]
	en := append([]lts.Event(nil), mc.en...)
	for _, e := range en {
		if !p.Match(table, e) {
			continue
		}
		mc.tmp, err = mc.a.Step(lts.State(s), e, mc.tmp[:0])
		if err != nil {
			panic(automatonError{err})
		}
		for _, t := range mc.tmp {
			buf = append(buf, State(t))
		}
	}
	return dedupSorted(buf)
}

func dedupSorted(buf []State) []State {
	// Small: insertion sort then dedup, keeping the order deterministic.
	for i := 1; i < len(buf); i++ {
		for j := i; j > 0 && buf[j] < buf[j-1]; j-- {
			buf[j], buf[j-1] = buf[j-1], buf[j]
		}
	}
	return dedup(buf)
}

func (mc *automatonMachine) Final(s State) bool {
	return mc.settled == nil || mc.settled(lts.State(s))
}

func (mc *automatonMachine) Describe(s State) string {
	if mc.describe != nil {
		return mc.describe(lts.State(s))
	}
	return fmt.Sprintf("s%d", s)
}

// impossible is the first completed op that can take effect in no state
// (its event is unknown to the automaton, or never enabled), -1 if none.
func (mc *automatonMachine) impossible(ops []Op) int {
	for i := range ops {
		if ops[i].Status == Info {
			continue
		}
		if _, ok := mc.missing[i]; ok {
			return i
		}
		if _, ok := mc.never[i]; ok {
			return i
		}
	}
	return -1
}
