// Package history checks recorded histories of concurrent objects against
// sequential specifications: linearizability and quasi-linearizability
// (SEMANTICS.md §3).
//
// # API (stable; other packages build on it)
//
//	h, err := history.Parse(name, r)          // sniffs JSON Lines, EDN, Jepsen logs
//	h, err := history.ParseJSONL / ParseEDN / ParseJepsenLog(name, r)
//	m, err := history.ModelByName("queue")    // or Queue(), Stack(), PriorityQueue(), Set(),
//	                                          // Register(), CASRegister(), KV(), FromAutomaton(a)
//	res, err := history.Check(ctx, h, m, history.Options{})
//	res, err := history.CheckOps(ctx, ops, m, opt) // a sub-history or prefix, any op IDs
//
// A History is a slice of Op (invocation order): process, operation name F,
// Key (partitions), Input, Output (a Value: nil, int, string, bool, list),
// Status (Ok, Fail: did not happen, Info: indeterminate), Call and Return
// times (Return == Pending for Info ops), source Line.
//
// A Result has a Verdict (lts.Valid/Invalid/Unknown), a Reason, a Witness
// (op IDs in linearization order, replayed on the model and checked against
// real-time order before it is reported), per-partition results, and for
// Invalid a Failure: the longest linearizable prefix the search reached and
// the op whose completion forced it back (Blocked).
//
// Models are interfaces: Model.Compile(ops) returns a Machine with dense
// uint32 states and Step(state, opIndex, buf) (no allocation in steady state
// for the built-in ones: results of Step are cached per (state, op)).
// Partitioner makes a model P-compositional (kv: per key); Eventer and
// AutomatonModel name ops as events f.args.result for quasi checks and
// automaton specs.
//
// # Algorithm
//
// The linearizability search is the memoised depth-first search of Wing &
// Gong as improved by Lowe and Porcupine. Invocations and completions form
// a doubly linked list in time order (calls before returns at equal
// times: equal times are concurrent). Walking the list, at a call entry the
// search tries to linearize that operation now: it steps the model; if the
// pair (set of linearized ops, model state) is new it records it in the memo,
// lifts the op's entries out of the list and restarts from the head. At a
// return entry of an unlinearized op, some op would have to be linearized
// after its completion: the search backtracks (pops the last op, restores
// the state, and tries the next successor / the next entry). The memo makes
// the search visit each (set, state) at most once: the cost is bounded by
// the number of reachable pairs, not of interleavings; it is never an
// enumeration of sequentialisations.
//
// The set of linearized ops is a bitset with an incremental Zobrist hash (a
// fixed pseudo-random code per op, xor-ed in and out), so the memo key
// costs O(1); the memo is an open-addressing table over an arena of
// bitsets, and equality is decided on the bitset words and the state,
// never on the hash alone. Info (pending) ops have no return entry: they may
// be linearized anywhere after their call with any result, or never; the
// search succeeds once every completed op is linearized.
//
// Partitions (kv: keys) are independent searches run on Workers goroutines;
// the first invalid partition in partition order cancels only later
// partitions, so the reported failure is deterministic. Limits (time,
// stored states, heap) are polled every 1024 steps through internal/budget
// and give Unknown with the statistics so far.
//
// Quasi-linearizability runs the same search over the configurations of the
// exact relaxed automaton of SEMANTICS.md §2.2 built from the model's
// automaton view (see quasi.go).
package history
