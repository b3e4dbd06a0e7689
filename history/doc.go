// Package history checks recorded histories of concurrent objects against
// sequential specifications: linearizability and quasi-linearizability
// (docs/verdicts.md §3).
//
// # API (stable; other packages build on it)
//
//	h, err := read.Parse(name, r)             // package history/read: JSON Lines, EDN, Jepsen logs
//	m, err := history.ModelByName("queue")    // or Queue(), Stack(), PriorityQueue(), Set(),
//	                                          // Register(), CASRegister(), KV(), FromAutomaton(a)
//	res, err := history.Check(ctx, h, m, history.Options{})
//	res, err := history.CheckOps(ctx, ops, m, opt) // a sub-history or prefix, any op IDs
//	loc, err := history.Localize(ctx, h, m, opt)    // shortest violating prefix + minimal test case
//	err = view.HTML(w, h, res, loc, view.Options{}) // package history/view: a self-contained page
//
// Subpackages: read (the history file formats: our JSON Lines, Knossos/Jepsen
// EDN, jepsen.util logs), view (the HTML page of a checked history), record (a recorder for instrumented Go code, writing our
// JSON Lines), stress (a Line-Up style harness: run an object from N
// goroutines, record, check, localise; derive the spec from serial runs when
// none is given), examples (correct and buggy segmented queues and Treiber
// stacks, found out by the harness).
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
// Models are interfaces: Model.Compile(ops) (the ops of one partition, in
// invocation order) returns a Machine with dense uint32 states and
// Step(state, opIndex, buf); the built-in machines intern their states and
// cache transitions, so a step rarely allocates.
// Partitioner makes a model P-compositional (kv: per key); Eventer and
// AutomatonModel name ops as events f.args.result for quasi checks and
// automaton specs; a Machine may implement Pruner (drop dead states) and
// Finisher (accepting states, for quasi checks in complete mode).
// MinQuasiFactor finds the least quasi factor of a history.
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
// fixed pseudo-random code per op, xor-ed in and out), so hashing costs
// O(1). The memo is an open-addressing table over an arena of keys;
// equality is decided on the key and the state, never on the hash alone.
// For long histories the key is compact: with m the first completed op not
// yet linearized, all completed ops before m are linearized and none
// invoked after m returns can be, so (m, the bitset words of that window,
// the bits of the Info ops) determines the set; the key's size follows the
// concurrency, not the length of the history.
//
// Info (pending) ops have no return entry: they may be linearized anywhere
// after their call with any result, or never; the search succeeds once
// every completed op is linearized. Identical Info ops (same name, key,
// arguments, and result: an op pending at a prefix's cut in Localize
// carries the result it returned later, which its model gives it) are
// linearized in call order only: the earlier one can go
// wherever the later one can (a symmetry reduction; it divides the states
// stored for etcd_002 and etcd_007 by 5.6 and 11).
//
// Pruning. Machines may implement Pruner to drop dead states: the kv model
// (between two puts a key's string only grows, so each completed get not
// yet linearized needs the current string to be a prefix of its result,
// unless a put that may still come writes such a prefix) and the queue
// with distinct values (a value ahead of v must be dequeued before v, so
// its dequeue may not follow v's in real time; every value must leave
// before a dequeue that returned null). Both rules are exact necessary
// conditions, tested against brute force. On kv/c50-bad they decide the
// keys that Porcupine cannot decide in 160 s in about a millisecond each.
// Because pruning cuts dead branches early, the failure of the reported
// invalid partition is recomputed without pruning for a bounded number of
// steps, so that Failure.Longest is a long linearizable prefix.
//
// Queue patterns. Before searching, a queue history (linearizability, or
// quasi with every bound 0) is refuted without a search when it shows one
// of three bad patterns (queuepatterns.go; after Henzinger et al. and
// Bouajjani et al., used as necessary conditions only): more completed
// dequeues of v than enqueues of v invoked before they return; a dequeue
// of b while a, whose enqueue precedes b's, can only be dequeued by ops
// invoked after it returns; an empty dequeue while a chain of values
// (each enqueued before the previous one can be dequeued, the first before
// it, the last dequeued only after it) keeps the queue non-empty. Each is
// proved from the definition of linearizability and brute-force tested
// with deliberately wrong variants. Pending dequeues whose known result v
// is already removed by as many completed dequeues as v has enqueues take
// effect nowhere and are dropped. A violation planted after 3,000 of
// 12,000 operations, which left the search undecided at 20 s, is refuted
// in 25-55 ms.
//
// Partitions (kv: keys) are independent searches, run in rounds: in round k
// every undecided partition runs firstQuantum·2^k steps, on Workers
// goroutines, in partition order. Once a partition is found invalid, the
// partitions after it in that round are cancelled (not started, or their
// outcome discarded) and so are the undecided ones; since progress is
// counted in steps, not time, which partitions are decided (and the
// reported failure: the lowest invalid in partition order) is
// deterministic whatever the number of workers, and a hard partition
// delays an easy invalid one by at most about a factor two. A partition's
// search is created when it first runs, and a small check allocates
// little (one backing array for the partitions, shared Zobrist codes,
// small fixed buffers), so checks of histories of a few dozen operations
// cost microseconds. Limits (time, stored states, heap) are polled every
// 1024 steps through internal/budget and give Unknown with the statistics
// so far.
//
// Limits (time, cancellation) also raise a flag from a timer and a context
// callback that the search reads at every step, so a limit fires promptly
// even when steps are slow.
//
// Quasi-linearizability runs the same search over the configurations of the
// exact relaxed automaton of docs/verdicts.md §2.2 built from the model's
// automaton view (see quasi.go). For queues, stacks and priority queues
// with distinct values (puts rigid, non-empty removals one relaxed class of
// bound Q, the empty removal a barrier or rigid: the papers' setting) the
// machine prunes dead configurations (quasiprune.go): each value in the
// spec or owed has a window of slots among the class reads still to come
// (an obligation's slack; a queue value's fixed spec rank ± Q; ranks only
// grow for stacks and priority queues), reads follow their real-time
// predecessors, a value nobody removes bounds the reads left, and a
// barrier needs every value removed before it; earliest-deadline-first
// scheduling of the near removals must fill every slot below the horizon.
// Values that no op removes are also renamed into increasing order among
// their positions (the renaming preserves every future run), so the orders
// in which such values were put are one configuration, not many. Rule F
// applies rule B before such a value's put takes effect: with size values
// owed or in the spec and P puts that may still precede it, at most size +
// P + Q class reads may come. For queues, enqueue orders are reduced by a
// dominance (Step and viableAfter in quasiprune.go): with x ▷ y (x removed
// by a completed op that returns before y's removal is invoked, or y
// removed by no op), a configuration with y ahead of x accepts no more
// continuations than the one with the two exchanged, so an enqueue of x
// is refused right after y's, or later when real time lets the two trade
// places whatever the order of the ops between; the lexicographically
// least accepted linearization (by the removal times of the values
// enqueued) is never refused, and the refusal is a function of the
// search's state, so the memo stays exact.
// The rules are necessary conditions, tested against brute force (with
// deliberately wrong variants that the test catches) and against the
// search without them. On the 10,000-operation history of the segmented
// queue (8 goroutines, quasi factor 3) the search backtracks hardly at all
// (about 10,500-11,000 states, 0.1-0.3 s); the starving variant is refuted
// in 20-55 ms (rule F: a stranded value), and Localize, which gives each
// quasi prefix check a state budget (see Localization.Undecided), takes
// 15-500 ms (30-170 ms at the median since the refutations below). The
// relaxed automaton asks the spec only for the events of the relaxed class
// it may pull (relax.PatternEnabler), not for the thousands of enqueues
// enabled everywhere.
//
// Quasi checks without these rules (enqueues relaxed too, as --quasi K
// puts every event in one class) deepen the bound (quasi.go): acceptance
// is monotone in the bounds and a run that pulls at most p events per
// step is a run of a sub-automaton (relax.Relaxed.LimitPulls), so the
// check at K looks for a witness with the searches at bounds 0..K-1, then
// at K with pulls limited to 0..K-1, each for a bounded number of steps,
// before the full search at K, whose fresh events have one successor per
// spec path of up to K pulls. At bound 0 the relaxation is the spec, so a
// container is checked in the papers' configuration, where the rules
// apply. With every event in one class and no barrier, quasiwindow.go
// restricts the spec to rank windows (an op's event may occur in the spec
// run only within K ranks of the places real time leaves the op; an event
// no op performs only in the last K ranks) and drops configurations with
// an obligation that no op left can discharge in time.
// quasistranded.go refutes some queue histories without a search,
// by necessary conditions derived from relax's characterisation (D): a
// value that no op dequeues while later values are dequeued too long
// before the end (every event one class, or puts rigid), or an empty
// dequeue (a barrier) after its enqueue.
package history
