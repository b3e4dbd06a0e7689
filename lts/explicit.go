package lts

// Explicit is a System (and, if it has no tau edges, an Automaton) given by
// its edges. It is used in tests and for exported graphs.
type Explicit struct {
	Table *EventTable
	Init  State
	Edges [][]Transition // Edges[s] = outgoing transitions of s
	Final []bool         // optional: Final[s] marks successful termination
}

// NewExplicit returns a graph with one state (0, the initial one).
func NewExplicit(t *EventTable) *Explicit {
	if t == nil {
		t = NewEventTable()
	}
	return &Explicit{Table: t, Edges: make([][]Transition, 1)}
}

// AddState adds a state and returns its id.
func (x *Explicit) AddState() State {
	x.Edges = append(x.Edges, nil)
	return State(len(x.Edges) - 1)
}

// Add adds the edge from -name-> to, creating states up to max(from, to) as
// needed. The name "tau" is the invisible event.
func (x *Explicit) Add(from State, name string, to State) {
	for int(max(from, to)) >= len(x.Edges) {
		x.AddState()
	}
	x.Edges[from] = append(x.Edges[from], Transition{Event: x.Table.InternName(name), Target: to})
}

func (x *Explicit) Initial() State          { return x.Init }
func (x *Explicit) Events() *EventTable     { return x.Table }
func (x *Explicit) NumStates() int          { return len(x.Edges) }
func (x *Explicit) Bytes() int64            { return 0 }
func (x *Explicit) Terminated(s State) bool { return int(s) < len(x.Final) && x.Final[s] }

func (x *Explicit) Successors(s State, buf []Transition) ([]Transition, error) {
	return append(buf, x.Edges[s]...), nil
}

// Start, Step and Enabled make an Explicit without tau edges an Automaton.
func (x *Explicit) Start(buf []State) []State { return append(buf, x.Init) }

func (x *Explicit) Step(s State, e Event, buf []State) ([]State, error) {
	for _, t := range x.Edges[s] {
		if t.Event == e {
			buf = append(buf, t.Target)
		}
	}
	return buf, nil
}

func (x *Explicit) Enabled(s State, buf []Event) ([]Event, error) {
	n := len(buf)
	for _, t := range x.Edges[s] {
		if t.Event != Tau {
			buf = append(buf, t.Event)
		}
	}
	return dedup(buf, n), nil
}
