// Package ltl checks linear temporal logic properties of CSP# processes,
// `#assert P |= F;`, as PAT does: by the automata-theoretic method on the
// fly, with event-level fairness, and with re-validated lasso-shaped
// counterexamples. docs/ltl.md is the user's reference.
//
// # Syntax (Parse)
//
// PAT's LTL syntax: unary `[]` (G), `<>` (F), `X`, `!`; binary `U`, `R`
// (also `V`), `&&` (`/\`), `||` (`\/`), `->`, `<->`; parentheses; `true`,
// `false`; atoms. PAT's documentation (its "How to write LTL formulae",
// taken from SPIN's) lists the operators and says that all binary
// operators are left-associative, but gives no precedence between them.
// We chose the usual one, loosest first: `<->`, `->`, `||`, `&&`, then
// `U`/`R`/`V`, then the unary operators; every binary operator is
// left-associative, as documented (so `a -> b -> c` is `(a -> b) -> c`:
// write parentheses). Unary operators bind tightest: `[] a -> b` is
// `([] a) -> b`. An atom is a dotted name, `eat.0`, `put.i.-1`: an
// identifier then components that are identifiers or integers. The
// caller resolves each atom to an event name or a proposition (a #define
// over the variables). A parser error names file:line:col of the token
// and says what was expected and what was found; nesting is bounded, and
// no input panics (FuzzParse).
//
// # Semantics of a run
//
// A run of the system is an infinite sequence of steps s0 -e0-> s1 -e1->
// …; position i of the word is the pair (si, ei): the state the step
// leaves and the step's event. An event atom holds at i if ei is that
// event (tau, and so hidden events, satisfy no event atom); a proposition
// atom holds at i if its condition is true in si. A run that cannot go on
// is extended forever by an implicit self-loop, as PAT does for finite
// runs: in a deadlocked state the loop step satisfies no event atom; in a
// terminated state (after Skip, lts.Terminator) it satisfies the event
// atom `terminate` (PAT's name for the termination event). So `<> a` is
// false for `a -> Stop` only if a is never done, and `[]<> a` fails on any
// process that deadlocks after finitely many a.
//
// # Algorithm
//
// The negation of the formula is put in negation normal form and
// translated into a generalized Büchi automaton by the tableau of Gerth,
// Peled, Vardi and Wolper (Translate): states carry labels (atoms that
// must hold or fail at the letter read there) and there is one acceptance
// set per until subformula (a state is in it if it does not promise the
// until or fulfils it now). Acceptance stays generalized; it is checked on
// strongly connected components, which is also where fairness is decided.
//
// The product of the system with the automaton is built on the fly: a
// pair (s, q) moves by a system step s -e-> s' whose letter (the
// propositions of s and the event e) satisfies the label of q, to (s', q')
// for every successor q'. Tarjan's algorithm explores it depth first
// (iteratively; pairs are interned as 8-byte keys in intern.Pairs), with
// Couvreur's root stack beside it: each partial SCC's root carries the
// union of the acceptance sets of its pairs, and an edge back into the
// stack merges the partial SCCs above its target. Without fairness a
// merged partial SCC that meets every acceptance set contains an accepting
// cycle, reported at once: a violation is found as soon as its cycle is
// closed, not when its (possibly huge) SCC is complete (a reachable bad
// state of a 10^6-state model is reported after a few thousand pairs).
// With fairness the decision needs the whole SCC: each completed SCC is
// analysed when Tarjan pops it (analyse). An SCC (or a partial one) is
// accepting if it has an inner edge and meets every acceptance set.
//
// # Fairness
//
// With fairness, an accepting SCC must also allow a fair run that stays in
// it and visits all its pairs and edges:
//
//   - Weak: every visible event enabled (in the system) in all its states
//     is taken by an inner edge. If this fails no sub-SCC can pass.
//   - Strong (PAT's strong local fairness, event level): every visible
//     event enabled in some state is taken by an inner edge. States that
//     enable an event never taken inside are removed and the rest is
//     decomposed again (Emerson–Lei style), recursively.
//   - Global (PAT's strong global fairness): the same with transitions
//     (state, event, target), tau included, instead of events.
//
// These are the standard characterisations: a run that stays in a set and
// visits all of it infinitely often is fair iff the conditions hold.
// The implicit deadlock/termination loop is not an event for fairness.
//
// # Counterexamples
//
// A counterexample is a lasso: a shortest path (breadth first over the
// pairs the search visited) from an initial pair to the fair accepting
// part, and a cycle through it, made of shortest paths, that visits a
// state of every acceptance set and, with fairness, an edge of every event
// (transition) taken inside (under weak fairness more targets are added
// until the cycle itself is weakly fair). The lasso as a whole is not
// necessarily a shortest one.
// Validate re-checks it independently of the search: each step is a
// transition of the system (or the implicit loop), the cycle closes, the
// negation holds on the lasso's word by a direct evaluator of LTL on
// ultimately periodic words (Holds, a fixpoint computation over the
// lasso's positions), and the cycle is fair. A failure is an internal
// error, never a verdict.
//
// # Limits
//
// The search polls internal/budget every 4,096 expansions (time, stored
// pairs, memory, cancellation); a hit limit gives lts.Unknown with the
// stats so far. The search is sequential and every choice is ordered
// (system successors, automaton states, pair ids), so results are
// deterministic.
package ltl
