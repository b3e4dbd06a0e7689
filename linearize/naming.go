package linearize

import (
	"fmt"
	"slices"
	"strings"
)

// Naming is how invocation and response events are named. Without Rules,
// by suffix: OP+Inv.T.ARGS and OP+Res.T.RES, the thread T the first datum.
// With Rules, the rules alone decide (the `map` clause of a linearizes
// assertion, docs/linearizes.md): an event no rule matches is neither.
type Naming struct {
	Inv, Res string
	Rules    []Rule
}

// DefaultNaming is OP_inv.T.ARGS and OP_res.T.RES.
var DefaultNaming = Naming{Inv: "_inv", Res: "_res"}

// Rule reads the implementation's events named Event whose data match
// Match as invocations (or responses, if Res) of the specification's
// operation Op: `push_call.t.v -> enq_inv.t.v` is {Event: "push_call",
// Match: [t, v], Op: "enq", Thread: t, Data: [v]}.
type Rule struct {
	Event  string
	Match  []Datum // one per datum of the event: a variable binds it, a constant must equal it
	Res    bool    // a response; else an invocation
	Op     string
	Thread int     // the position of the thread in the event's data
	Data   []Datum // the arguments (invocation) or results (response)
}

// Datum is a pattern variable (Var >= 0: the position in the event's data
// that binds it) or, if Var < 0, the constant Value.
type Datum struct {
	Var   int
	Value int
}

// Call is an event read as one half of an operation: a thread's
// invocation of Op with arguments Data, or its response with results Data.
type Call struct {
	Role   Role
	Op     string
	Thread int
	Data   []int
}

// Read classifies the event base.data. An event that is neither an
// invocation nor a response has Role RoleOther (and err nil); err says
// why an event named as one is unusable (its thread out of range).
func (n Naming) Read(base string, data []int) (Call, error) {
	if n.Rules != nil {
		return n.readRules(base, data)
	}
	if n.Inv == "" || n.Res == "" {
		n = DefaultNaming
	}
	var c Call
	switch {
	case strings.HasSuffix(base, n.Inv) && len(base) > len(n.Inv):
		c.Role, c.Op = RoleInv, strings.TrimSuffix(base, n.Inv)
	case strings.HasSuffix(base, n.Res) && len(base) > len(n.Res):
		c.Role, c.Op = RoleRes, strings.TrimSuffix(base, n.Res)
	default:
		return c, nil
	}
	if len(data) == 0 || data[0] < 0 || data[0] >= maxThreads {
		return c, fmt.Errorf("event %s: the first datum must be the thread, 0..%d", eventName(base, data), maxThreads-1)
	}
	c.Thread, c.Data = data[0], slices.Clone(data[1:])
	return c, nil
}

func (n Naming) readRules(base string, data []int) (Call, error) {
	for _, r := range n.Rules {
		if r.Event != base || len(r.Match) != len(data) || !r.matches(data) {
			continue
		}
		c := Call{Role: RoleInv, Op: r.Op}
		if r.Res {
			c.Role = RoleRes
		}
		val := func(d Datum) int {
			if d.Var >= 0 {
				return data[d.Var]
			}
			return d.Value
		}
		c.Thread = data[r.Thread]
		if c.Thread < 0 || c.Thread >= maxThreads {
			return c, fmt.Errorf("event %s: the thread must be 0..%d", eventName(base, data), maxThreads-1)
		}
		c.Data = make([]int, len(r.Data))
		for i, d := range r.Data {
			c.Data[i] = val(d)
		}
		return c, nil
	}
	return Call{}, nil
}

func (r Rule) matches(data []int) bool {
	for i, m := range r.Match {
		if m.Var < 0 && data[i] != m.Value {
			return false
		}
	}
	return true
}

// ThreadFirst reports whether every invocation and response names its
// thread as its first datum, as the thread symmetry and the partial-order
// reduction assume (csp.Program.SymmetricEventsProcess renames the first
// datum of every event). It holds for the suffix naming.
func (n Naming) ThreadFirst() bool {
	for _, r := range n.Rules {
		if r.Thread != 0 {
			return false
		}
	}
	return true
}

// describe completes "event e is neither ...".
func (n Naming) describe() string {
	if n.Rules != nil {
		return "an invocation nor a response of the assertion's map"
	}
	if n.Inv == "" || n.Res == "" {
		n = DefaultNaming
	}
	return fmt.Sprintf("an invocation (OP%s.THREAD.ARGS) nor a response (OP%s.THREAD.RESULTS)", n.Inv, n.Res)
}
