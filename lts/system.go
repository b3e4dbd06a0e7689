package lts

import (
	"errors"
	"fmt"
	"runtime"
	"time"
)

// State identifies a state of a System or an Automaton. Ids are dense,
// assigned by the system that owns the state (it interns the encoded state),
// and meaningful only to that system.
type State uint32

// Transition is one outgoing edge.
type Transition struct {
	Event  Event
	Target State
}

// System is an on-the-fly labelled transition system: the semantics of one
// process of a model, or an explicit graph in tests.
type System interface {
	// Initial is the initial state.
	Initial() State
	// Successors appends the outgoing transitions of s to buf and returns it.
	// The order is deterministic. A run-time error of the model (index out
	// of range, division by zero, a value outside a declared range) is
	// returned as a *RuntimeError.
	Successors(s State, buf []Transition) ([]Transition, error)
	// Events is the event table shared by all systems of a model.
	Events() *EventTable
}

// Terminator is implemented by systems that distinguish successful
// termination (after Skip) from deadlock. A terminated state has no
// transitions.
type Terminator interface {
	Terminated(s State) bool
}

// Describer is implemented by systems that can show a state to a user: the
// variable values (and, where useful, the control state) after each step of
// a counterexample.
type Describer interface {
	Describe(s State) []Binding
}

// Binding is one named value of a described state.
type Binding struct {
	Name, Value string
}

// Changed lists the bindings of cur that are new or differ from prev: what
// a step of a counterexample changed.
func Changed(prev, cur []Binding) []Binding {
	old := make(map[string]string, len(prev))
	for _, b := range prev {
		old[b.Name] = b.Value
	}
	var out []Binding
	for _, b := range cur {
		if v, ok := old[b.Name]; !ok || v != b.Value {
			out = append(out, b)
		}
	}
	return out
}

// Sized is implemented by systems that store their states and can report
// how many they hold and their memory.
type Sized interface {
	NumStates() int
	Bytes() int64
}

// Automaton is the specification side of a refinement check: an automaton
// over visible events only (no tau), possibly nondeterministic. A plain
// model process is turned into one by TauClosed; relax builds relaxed ones.
// States are ids owned by the automaton.
type Automaton interface {
	Events() *EventTable
	// Start appends the initial states to buf.
	Start(buf []State) []State
	// Step appends the states reached from s by the visible event e.
	Step(s State, e Event, buf []State) ([]State, error)
	// Enabled appends the visible events that have a successor from s.
	Enabled(s State, buf []Event) ([]Event, error)
}

// RuntimeError is an error of the model found while exploring it.
type RuntimeError struct {
	Pos string // "file:line:col" of the offending construct
	Msg string
}

func (e *RuntimeError) Error() string {
	if e.Pos == "" {
		return e.Msg
	}
	return e.Pos + ": " + e.Msg
}

// Verdict is the answer of a check.
type Verdict int

const (
	Valid   Verdict = iota // the property holds
	Invalid                // a counterexample was found
	Unknown                // a limit was hit, or the search was cancelled
)

func (v Verdict) String() string {
	switch v {
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// MarshalText renders the verdict as "valid", "invalid" or "unknown".
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText reads "valid", "invalid" or "unknown".
func (v *Verdict) UnmarshalText(b []byte) error {
	for _, w := range []Verdict{Valid, Invalid, Unknown} {
		if string(b) == w.String() {
			*v = w
			return nil
		}
	}
	return fmt.Errorf("unknown verdict %q: want valid, invalid or unknown", b)
}

// Limits bound a search. The zero value means no limit.
type Limits struct {
	Timeout   time.Duration // wall time
	MaxStates int           // states (or product pairs) stored
	MaxBytes  int64         // memory budget, measured on the Go heap
}

// Stats describe a finished (or interrupted) search.
type Stats struct {
	States      int64   `json:"states"`      // states (or product pairs) stored
	Transitions int64   `json:"transitions"` // transitions explored
	Seconds     float64 `json:"seconds"`
	PeakBytes   int64   `json:"peak_bytes"`
	Depth       int     `json:"depth"` // BFS depth reached
	// Symmetry is the number of threads whose renamings the search
	// factored out (States then counts orbits), or 0.
	Symmetry int `json:"symmetry,omitempty"`
}

// ErrLimit is wrapped by errors that report a hit limit.
var ErrLimit = errors.New("limit reached")

// DefaultWorkers is the number of workers that uses every available CPU.
func DefaultWorkers() int { return runtime.GOMAXPROCS(0) }
