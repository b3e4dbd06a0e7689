// Package lts is the vocabulary every checker of Quasar shares: labelled
// transition systems explored on the fly, and the automata that stand for
// specifications. It holds no engine and imports nothing of the module, so
// the checkers (refine, relax, history, ltl) never link the modelling
// language.
//
//   - State is a dense id that a System assigns to the states it interns;
//     Transition is an outgoing (Event, State) edge; a System gives its
//     initial state and the successors of a state, and may also tell
//     termination from deadlock (Terminator) and show a state (Describer).
//   - Event is an interned visible event ("deq.1.3"); event 0 is Tau. An
//     EventTable owns the names of a model's events; a Pattern ("deq",
//     "deq.0") matches an event and every event that extends its data.
//   - Automaton is the specification side of a check: a deterministic or
//     nondeterministic automaton over visible events (TauClosed makes one
//     of a System by closing it under tau steps; Explicit is a small
//     explicit graph for tests and built-in specifications).
//   - Verdict (valid, invalid, unknown), Limits (time, states, memory) and
//     Stats are what every check answers with and is bounded by.
//   - Export writes the reachable graph of a System as Graphviz DOT or
//     Aldebaran .aut.
//
// The CSP# engine that implements System for a model is package csp.
package lts
