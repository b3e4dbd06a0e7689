package history

import "github.com/quasar-verify/quasar/lts"

// State is a model state, a dense id owned by one Machine.
type State = uint32

// Model is a sequential specification. Built-in models: Queue, Stack,
// PriorityQueue, Set, Register, CASRegister, KV; FromAutomaton adapts any
// lts.Automaton.
type Model interface {
	// Name is the model's name ("queue", "cas-register", ...).
	Name() string
	// Compile validates the operations of one partition (names, argument
	// shapes; errors name the op's line) and returns a Machine whose Step
	// takes indices into ops. Fail operations are never passed.
	Compile(ops []Op) (Machine, error)
}

// Machine runs a model over the compiled operations of one partition. Its
// states are dense ids; it need not be safe for concurrent use (the checker
// compiles one per partition and goroutine).
type Machine interface {
	// Init appends the initial states to buf (usually one).
	Init(buf []State) []State
	// Step appends the states reached by applying op i in state s. For an
	// Ok op the op's Output must be the result the model gives; for an Info
	// op any result is allowed. No state appended = not allowed.
	Step(s State, i int, buf []State) []State
	// Describe renders a state for messages.
	Describe(s State) string
}

// Partitioner is implemented by P-compositional models (the key-value
// store): the history is linearizable iff each partition is. Partition
// returns the groups of op indices (each in input order) and their names.
type Partitioner interface {
	Partition(ops []Op) (groups [][]int, names []string)
}

// Eventer is implemented by models that name operations as events of the
// modelling language, f.args.result ("enq.3", "deq.3", "deq.0" for an
// empty dequeue), so that a history can be checked against an lts.Automaton
// and relaxed by quasi classes. Event returns the event's name parts: base
// and integer data (args then result); for an Info op, the data without the
// result, and complete=false.
type Eventer interface {
	Event(op *Op) (base string, data []int, complete bool, err error)
}

// AutomatonModel is implemented by models that have an exact lts.Automaton
// view over the events of Eventer (used by quasi checks).
type AutomatonModel interface {
	Eventer
	Automaton(ops []Op) (lts.Automaton, error)
}

// Pruner is implemented by machines that can tell that a state is dead: no
// completion of the remaining operations can be linearized from it. The
// search calls Viable after each step, with the set of linearized ops
// (bit i of linearized[i/64] is op i) including the op just placed, and
// drops the state if it returns false. It must never return false for a
// live state (a wrong true only costs time).
type Pruner interface {
	Viable(s State, linearized []uint64) bool
}
