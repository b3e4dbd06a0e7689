// Package csp gives a checked CSP# model its operational semantics as
// on-the-fly labelled transition systems, explores them fast, and checks
// single-process properties (deadlock freedom, divergence freedom,
// non-termination, determinism, reachability with min/max).
//
// # Compilation
//
// Compile prepares a lang.Checked model once: every global variable (arrays
// flattened row-major) and every buffered channel (a count and its
// messages) gets slots in a variable vector; every process definition gets
// an environment layout (parameters, then one slot per binder: index
// variables and channel inputs); every expression and event block is
// compiled to a Go closure over (variables, environment, block locals),
// with constants folded and expressions that read only the environment
// marked so they are evaluated when a term is built rather than per state.
// The commonest shapes get one specialised closure instead of a tree of
// them (fast.go): a*x + b over a variable x, an array element at such an
// index (q[seg[i]*S + k] once i and k are known), a comparison of these
// with a constant or of two variables, and an assignment of a constant or
// such a shape to a variable or element, an increment a[i] = a[i] + c (or
// a[i]++) at such an index, and a read or write of an element at a
// parameter index (es[t] in a block not yet specialised to its
// environment); they report run-time errors exactly as the generic
// closures do (tests compare the two on random expressions and blocks).
//
// A process term is hash-consed: a prepared node with its environment (the
// environment restricted to the slots the node reads, so dead bindings do
// not split states), or an operator (sequence, choice, parallel, hiding,
// atomic, interrupt) over term ids. References whose arguments do not read
// variables are unfolded when a term is built; the others are unfolded with
// the variables of the moment they move, as PAT does.
//
// For a term without a parallel composition at an active position, the
// transitions are computed once and memoised as templates: guards still to
// evaluate, a label (fixed, or with data that read variables), an event
// block, and the target term id. A template's expressions are recompiled
// for the term's environment, so parameters and index variables are
// constants (seg[i] with i known reads one slot). Successor generation for
// such a term is a loop over its templates: evaluate the guards, intern the
// label, run the block on a copy of the variables. Terms with a nested
// parallel composition are expanded by the same rules at run time.
//
// Templates are built when a term is first expanded, and built again
// after a system passes 2^15 states (Program.heatBlocks drops them all, so
// that blocks are rebuilt specialised to their environments; the tests
// move the switch with Program.SetHotStates). What a caller reads from
// them without expanding a state (Proc.LocalSteps, PendingLocalSteps:
// whether each component's steps are all local, and which; the moves'
// Local and CompLocal) builds a template set that is missing, so that the
// answer is a function of the state, whatever was expanded before and
// whenever the switch happens (the sets before and after differ only in
// how their blocks run). A reader keeps the set it loaded or built, even
// if another worker drops it meanwhile.
//
// # States
//
// Process builds the system of an assertion operand. Its top level is
// flattened: hiding over one parallel composition (nested compositions with
// the same operator are merged) whose components are terms. A state is the
// byte string [component codes as uvarints][variable slots as zigzag
// varints], a component's code being the index of its term among the
// terms that component has held (codes.go: a few per component, so one
// byte each and small enough to pack), where the slots are only those the system can write (live.go:
// the variables assigned in the blocks of the definitions it reaches and
// the buffers of its buffered channels; the others keep their initial
// values, so an implementation's states do not carry its specification's
// variables), interned in a hash set (store.go) that assigns dense uint32
// ids in discovery order. Nearly every state of a process has the length
// of its initial state (one byte per value), its width; up to 24 bytes,
// those states live inline in the table: slots of [id+1][width bytes],
// linear probing, the home slot (h32*slots)>>32 so that the slots stay
// nearly sorted by hash and doubling the table (at a load of 1/2; 3/4 just
// before the move below) is a
// streaming pass, and an id -> hash index so that Get probes from the home for the
// id. A lookup thus touches one place in memory; with the states in an
// arena it touched two, the slot and then the record, one dependent cache
// miss after the other. That pays only while the table fits the caches:
// at the first batch or round after it holds 2^17 states the store moves
// them all to a side set (two accesses a lookup, but in tables several
// times smaller: at N = 12 philosophers a fifth less CPU time and a
// quarter of the memory). States of other lengths (and every state of a
// wider process: a slot would cost its width at every load) go to a side
// set: a table of fingerprint + location (4-byte slots of a short
// fingerprint + rank while the records are dense: growing the table
// rebuilds it from the records, the old one freed first), and while every side
// record has one length (nearly always) the records alone in a dense
// array indexed by rank (the location is the rank, Get reads the record
// directly); once a second length appears, chunks of [id][length][bytes]
// records (the location an arena offset). Everything starts small, so a
// system of a few hundred states costs kilobytes. The search is bound by the memory
// latency of this set, so the checks expand states in batches
// (Proc.SuccessorsBatch, 256 states) and intern all their successors
// together: prefetch instructions (prefetch_amd64.s; elsewhere none) for
// the home slots of the whole batch (for side states, then for the records
// those slots point to), then the lookups, so that the cache misses
// overlap. While the BFS has marked every state the system holds, a
// target below that count is known seen, so the parent tree is read only
// for new ids, which come in order; otherwise it touches the tree entries
// of the batch's targets in one loop first, as it did before. Every
// per-state array (the id index, the parent tree) grows by fixed blocks,
// never by copying. Almost every code and variable fits one byte, so
// encode and decode take a one-byte path (the same bytes as the varints);
// while every byte of every side state is below 16, the dense records are
// packed at 4 bits a byte, and while every byte is below 4 (records of 17
// to 32 bytes) at 2 bits, ceil(length/4) bytes each, read as one word
// (store_side.go). A big side table
// gives its pages back as it is moved into the doubled one, so that a
// grow does not hold both whole (release_linux.go).
//
// Two other designs of the set were measured and dropped (docs/engine-log.md
// has the figures): bit-packing the states to their widths (packing every
// probe cost more than the misses it saved) and LTSmin's tree compression
// for states above 24 bytes (a table per node of a binary tree over the
// state's words, the root's giving the id: a quarter less memory, but 20
// to 50% more time, since the root's lookup still misses once per
// successor and the node lookups below it cost more than the second miss
// of the side set, which the batch's prefetches overlap).
//
// No per-state Go maps, pointers or interfaces exist; the per-call scratch
// (decoded state, instantiated edges, encodings) is pooled, so successor
// generation does not allocate in steady state. Systems are safe for
// concurrent use: the state set is guarded by a mutex (a parallel round
// holds it while its workers share the set out by partitions), the term
// table is append-only with lock-free reads, and memoised templates are
// published atomically.
//
// The common case of a model's threads, an interleaving whose components
// all have plain templates (prefix-like steps, none atomic or on a
// channel), takes a direct path (Proc.expandPlain): each enabled template
// is one successor; its block runs on the state's own variables while a
// log records the writes, the successor's bytes are the state's bytes with
// the moved component and the written slots patched, and the log undoes
// the writes. It gives the successors, in the same order, and the same
// run-time error as the general path below (a test compares them on every
// library model and on random ones). When every template of a state is a
// fast edge (guards comparing variables with constants or variables,
// blocks of constant stores: bytes.go) and its values fit a nibble, its
// successors are made on the state's two packed words instead (words.go;
// in expandPlain, so for every caller): each template is a mask test and a
// mask-and-value patch, and when the one-worker search's store keeps
// 2-bit records the successors go to it as words, never as bytes (docs/engine-log.md,
// "Successors as packed words"). The parallel rounds do the same in their
// expand phase (store_par.go: expandWords, hashWords): the parents are
// read as their records' words, the successors hashed and routed as
// words and inserted by their fold (docs/engine-log.md, "The parallel rounds
// on packed words").
//
// The transitions of a state: every component's enabled edges are
// instantiated, then combined: ||| never synchronises; || makes every
// component whose alphabet holds a visible event (without a block) take part
// in it; synchronous channel outputs and inputs in different components
// hand over in one transition; an enabled step inside atomic{} has priority
// over every other step (PAT 3.4.2). docs/semantics.md lists every rule and
// decision.
//
// # Probabilistic visited sets
//
// Proc.Compacted (compact.go) gives a system whose visited set is SPIN's
// hash compaction (a 64-bit fingerprint -> dense id table) or bitstate
// hashing (k bits of a fixed array per state, no ids), keeping the bytes
// of the current and next BFS level only. The BFS checks run on it
// (Options.Compact; sequentially): the parent tree then records the index
// of each state's transition in its parent's successors, and a
// counterexample is rebuilt by replaying those indices from the initial
// state, which meets exactly the states the search met. A verdict that
// rests on a complete search is marked Probabilistic, with the estimated
// probability of a miss in Result.Coverage (docs/verdicts.md §5,
// docs/engine.md).
//
// # Checks
//
// Every check is a breadth-first search that records a parent tree, so a
// counterexample is a shortest trace, and the variables after each step
// come from Describe. The tree keeps each state's predecessor (4 bytes a
// state); the event from it is found again by expanding the predecessor
// (the first transition to the state: the one the search took). An exact
// search of a Proc keeps the tree for the first treeKeep ids (2^20) only:
// its ids are dense and given in BFS order (the search checks that every
// state it marks has the next id), so a level is a range of ids, and the
// parent of a state beyond treeKeep is the first state of the level
// above, in id order, with a transition to it; a path is rebuilt by
// scanning those levels (explore.go, "The parent tree beyond treeKeep",
// has the argument). BFS also makes the parallel search exact: with
// Options.Workers > 1, each level is expanded by several goroutines and the
// results are walked in the frontier's order, so the visit order, the state
// count, the verdict and the counterexample are those of the sequential
// search. On a Proc the workers also intern the successors
// (store_par.go): a level goes in rounds of a few thousand states per
// worker; each worker expands its share, the successors are routed by the
// top bits of their hash to partitions of the store's tables (the slots
// where exactly those hashes have their homes), each partition is looked up
// and filled by one worker without a lock, and the new states get dense ids
// in the order of the strings that first met them (the state's position in
// the round, then the successor's), which is the order in which the
// sequential search interns them: the ids, hence the transitions, the
// parent tree and the counterexamples, are the same for any number of
// workers. Other systems (and refinement, on its product) expand in
// parallel and intern under the Proc's lock. Divergence freedom explores first, then looks for a cycle of tau
// steps by a depth-first search of the tau subgraph.
//
// A check answers Unknown when a limit (time, states, memory: Limits, via
// internal/budget) is hit or the context is cancelled, with the statistics
// so far. A run-time error of the model (index out of range, division by
// zero, a value outside a declared range) stops the search: the result is
// Unknown with Result.Err, a *RuntimeError carrying file:line:col, and the
// trace to the state whose step failed.
//
// # Symmetry
//
// SymmetricProcess builds the system of N copies of a thread process,
// ||| t:{0..N-1} @ P(t), that stores one state per orbit of the thread
// renamings, when a typing of the threads' definitions proves that the
// renamings are automorphisms (symmetry.go). Refinement, deadlock and
// termination checks use it (the others look at cycles, nondeterminism or
// conditions that may name a thread); their counterexamples are mapped back
// to the unreduced system (Unreduce) and re-validated there.
// SymmetricEventsProcess does the same for models whose events name the
// thread (invocation/response models): the renaming renames the events'
// thread datum too, SuccessorsMoves reports each target's renaming (and who
// moved, and whether the step is local: linearize's partial-order
// reduction) and UnreduceRenamed maps a path back state by state.
//
// The reachable graph of a small system is written as Graphviz DOT or
// Aldebaran (.aut) by lts.Export (package lts), which refuses graphs above a
// size limit.
package csp
