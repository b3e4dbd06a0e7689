// Package refine checks trace refinement, traces(Impl) ⊆ traces(Spec), by a
// breadth-first search of the product of the implementation with the
// on-the-fly normalised (determinised) specification. With an
// implementation that shows invocation and response events and a spec that
// performs each operation atomically between them, this is
// linearizability on a bounded model (docs/verdicts.md §1).
//
// # The product
//
// The implementation is an lts.System (tau = event 0); the specification
// is only an lts.Automaton (Start, Step, Enabled over visible events), so
// a plain process (through lts.NewTauClosed) and a relaxed automaton built
// by relax plug in alike. The search is Algorithm 1 of the quasi-refinement
// paper with the subset construction it mentions done lazily, as FDR does:
//
//   - A macrostate is the sorted set of automaton states reached by one
//     trace, encoded as 4 bytes per state and interned: equal sets get one
//     id. Start gives the initial macrostate; the step of macrostate m on
//     event e (the union of Step over its states) is memoised under
//     (m, e). Macrostate 0 is the empty set: "the spec cannot follow".
//   - A specification that is a Reducer (linearize.Wrapper, relax in window mode) names, in each
//     new macrostate, the states another state of it simulates; they are
//     dropped before the set is interned. The set keeps its traces after
//     every event, so the verdict and the shortest counterexample's length
//     are those of the full sets, and sets that differ only in such
//     states are one.
//   - A product pair is (impl state, macrostate id), interned as 8 bytes;
//     its id indexes parent and via arrays from which the counterexample
//     path is rebuilt. An impl tau step keeps the macrostate; a visible
//     step e moves it by the memoised step; an empty result is a violation.
//
// # Shortest counterexamples
//
// Level k of the search holds the pairs first reached by a trace of k
// visible events. Tau successors join the level being expanded (its queue
// grows); visible successors wait in a pending list and are stored only
// when the level is closed under tau, so each pair is stored at the
// smallest trace length that reaches it (a 0-1 breadth-first search: tau
// steps cost nothing). A violation found while expanding level k has
// length k+1, and every pair of a lower level has had all its transitions
// checked, so no shorter violation exists: the counterexample t·e is a
// shortest one in visible events (with the fewest steps not guaranteed).
// Ties are broken by a fixed order: level, then queue order (which is the
// order of the parents and of their transitions), then transition order.
//
// # Antichains
//
// Stepping is monotone in the macrostate: M' ⊆ M implies
// step(M', e) ⊆ step(M, e). So if a pair (s, M') is stored, a pair (s, M)
// with M ⊇ M' adds nothing: any impl path from s whose trace u·e makes M
// fail also makes M' fail, at the same event or earlier. And it keeps
// counterexamples shortest: pairs are stored in non-decreasing level, so
// (s, M') was stored at a level d' no greater than the level d at which
// (s, M) was found, and the failure it inherits is no longer than
// d' + |u·e| <= d + |u·e|; by induction on the remaining length, the
// shortest violation over the stored pairs equals the shortest over all
// reachable pairs. Each impl state keeps the list of its stored
// macrostates (a new pair is skipped if a subset is listed; listed
// supersets of a new macrostate are unlinked). A 64-bit signature per
// macrostate rejects most subset tests with one AND, and a new singleton
// macrostate skips the scan (only an equal set, found by the intern set,
// is below it). (Looking singleton subsets up instead of listing them was
// tried: it saves 8 bytes a pair with deterministic specs but costs two
// hash lookups per state of every new macrostate, 8x slower on
// BenchmarkCounters/nondet.)
//
// A pair is pruned when it arrives after a subset, and also when a subset
// arrives after it but before it is expanded: the unlinked pair stays
// stored but is marked dead, and the queue skips it. The argument above
// covers this too. The subset (s, M') unlinks (s, M) when it is stored,
// and pairs are stored level by level, each level's pairs all expanded
// before the next level's are stored; so a pair still queued when it dies
// (one of the current level) dies by a pair of the same level, which is
// expanded in turn or dies by a still smaller one of that level, and so
// on down to one that is expanded: its violations, at the same or a lower
// length, stand for the dead pair's. Run-time errors are not lost either:
// they belong to the impl state, which the live pair shares. In invocation/
// response models a thread's later operations often narrow the set of
// linearization orders after a pair with the wider set was queued in the
// same level: on the segmented queue's linearizes<quasi 2> check (two
// segments) skipping dead pairs took the pairs stored from 898,791 to
// 112,722 and the transitions from 1.5 million to 184,000; the
// operation-event check of the same queue went from 28,350 to 16,921
// pairs. Pruning is on by default; Options.NoAntichain turns it off. With and without it the verdict and the counterexample
// length agree (tested); the counterexample itself could in principle be
// another one of the same length (none did in 20,000 random cases).
//
// The argument needs only that (s, M') fails whenever (s, M) does: that
// every trace the states of M' accept is accepted by M. A specification
// that can tell more than set inclusion says so through two optional
// interfaces (relax's window mode implements both; docs/quasi.md):
// Reducer drops from each new macrostate the states another state of it
// subsumes (accepts every trace of), which leaves the macrostate's traces
// unchanged and turns sets that differ only in subsumed states into one
// macrostate; Coverer replaces the subset test of the antichain by
// "every state of M' is in M or subsumed by one of M" (memoised per pair
// of macrostates; a singleton macrostate is then scanned too). On the
// segmented queue's refines<quasi 3 window> check (two segments) the
// search stores 2,597,640 pairs without either, 394,383 with Reducer and
// 132,573 with both.
//
// A third optional interface, Tagged (linearize.Wrapper with arguments
// chosen late), changes the failure test: a set of its states stands for
// several sets, one per vector of tags, and the spec fails as soon as one
// of them is empty. The normaliser asks Covered of every set a step makes
// and takes an uncovered one for the empty macrostate. Covering is
// monotone (a superset of a covered set is covered), so (s, M') still
// fails whenever (s, M) does for M inside M', and the antichains are
// unchanged.
//
// # Re-validation
//
// Before a counterexample is reported it is checked independently of the
// search structures: every step of the reported impl path must be a
// transition of the impl; t·e must be a trace of the impl by a fresh set
// simulation with tau closure (bounded at 2^20 states per closure, beyond
// which the path check alone stands); and a fresh set simulation of the
// spec through Start and Step must accept t and reject t·e. The events
// offered after t are the union of Enabled over that fresh set. A
// counterexample that fails is an internal error, never a verdict. An impl
// some of whose transitions are two steps of another system
// (linearize.Reduced's compressed steps) first maps the path to that
// system's (UnreduceSteps), and the checks run there.
//
// # Parallel search
//
// With Options.Workers >= 2 the level is expanded in batches, and one
// goroutine walks each batch in queue order and does everything else
// (automaton calls, interning pairs, the violation check), so the
// sequence of operations on the search structures is the sequential one:
// the verdict, the counterexample and the stats are identical for any
// number of workers, and run-time errors of a pair are reported when the
// walk reaches it, as in the sequential search. The batches are expanded
// in one of two ways:
//
//   - an impl that gives frontier.Rounds (*csp.Proc) expands a batch with
//     its own workers, which store the successors too, in parallel, with
//     the ids a one-worker SuccessorsBatch gives (csp's parallel rounds);
//     the searching goroutine is one of the workers, and with a
//     frontier.Walker it walks the previous batch as its part of the
//     round (levelRounds). A walk in a round must not use the impl, whose
//     store the round holds: a violation it finds is validated, and a
//     failed state of a dead pair skipped, after the round, and the
//     Progress figures of its polls are reported after the round (the
//     walk pausing at a poll where the search must see what the callback
//     did, walkRound). The walk runs in the round only when the spec is
//     known not to use the impl's store (walkSafe: unwrapped through
//     Spec() down to an lts.Explicit or to an lts.TauClosed over a system
//     the rounds say they do not hold, frontier.Sharer); otherwise, a spec
//     over the impl's own Proc for one, each batch is walked after its
//     round. Stable-failures refinement expands its levels the same way,
//     each batch walked after its round (its walk asks the impl whether a
//     deadlocked state has terminated);
//   - any other impl has Successors called (safe for concurrent use by
//     the lts contract) on contiguous chunks of the batch by an Expander,
//     the next batch while this one is walked (levelParallel).
//
// # Pair symmetry
//
// When the implementation's thread symmetry renames events (its events
// name the thread: csp.Program.SymmetricEventsProcess) and the
// specification renames alike (linearize.Wrapper), the search stores one
// pair per orbit of (implementation state, macrostate) under thread
// renamings, and rebuilds a counterexample's concrete trace from the
// renaming stored with each pair (pairsym.go). It walks pairs one at a
// time (no batches, no workers): the macrostates it creates by renaming
// must be numbered in one deterministic order.
//
// # Unknown
//
// The limits (Options.Limits: wall time, stored pairs, heap bytes) and the
// context are polled every 4096 pairs through internal/budget. When one is
// exceeded the verdict is Unknown, with the reason and the statistics so
// far; pairs may overshoot a state limit by at most one poll interval.
// Run-time errors of the models (lts.RuntimeError from Successors or Step)
// are errors, wrapped in a *TraceError with the trace that reached them.
//
// # Failures
//
// CheckFailures decides stable-failures (F) and failures-divergences (FD)
// refinement (docs/refinement.md) with the same level-by-level 0-1
// breadth-first search over (impl state, spec node) pairs, without
// antichains, batching or workers. The specification is normalised from
// the process itself (not through TauClosed): a node is the tau-closed set
// of spec states reached by a trace, interned, with its minimal
// acceptances (the offers of its stable states, Tick for termination,
// minimised under inclusion) and, for FD, whether a state of it lies on a
// tau cycle. At each pair: a divergent node (FD) allows everything below
// it; an impl state on a tau cycle (FD) is a divergence; a stable impl
// state whose offer contains none of the node's minimal acceptances is a
// refusal; a visible event (or Tick) the node cannot follow is a trace
// violation. Tau cycles are found by an on-demand iterative Tarjan over
// the tau edges (diverge.go), remembered per state; the successors of the
// spec, and for FD of the impl, are memoised (cachedSystem) because the
// closures and the cycle search ask for them again.
//
// A refusal or divergence after t has length |t| and a trace violation
// t·e length |t|+1, so a trace violation found while expanding level k is
// held until the level ends, in case a refusal or divergence of the same
// level turns up. Counterexamples are re-validated from the definitions
// by fresh set simulations (fvalidate.go). The random-graph test compares
// every verdict and counterexample length with an oracle that enumerates
// the failures (t, X) for every refusal set X and the divergences of both
// sides explicitly.
//
// # Factors
//
// MinFactor searches K = 0, 1, ... for the smallest factor whose spec
// build(K) the implementation refines. It shares the implementation (its
// interned states) and a memo of its successors between the checks, and
// refutes a factor without a search when the previous counterexample (a
// real impl trace) is still rejected. The check at K-1 is always a full
// search, so its counterexample is shortest.
//
// # Performance
//
// The pair loop allocates nothing in steady state beyond the growth of the
// stores (successor, macrostate and pending buffers are reused). Measured
// on BenchmarkCounters (65536 impl states, 2.4 million pairs, one core):
// about 1.5 million pairs per second; interning dominates the profile.
//
// On large models the search waits on cache misses: the impl's state
// store and the pair set. When the impl has SuccessorsBatch (*csp.Proc
// does), the sequential search expands 256 queued pairs per call, which
// overlaps the store's misses (it interns the batch's successors together,
// in the order Successors would, so state ids are unchanged); it then
// reads the pair-set slots of the batch's tau successors (most pairs are
// reached by tau steps), and of each 256 pending visible successors,
// before adding them one by one (intern.Pairs.Prefetch), so those misses
// overlap too. The walk itself is the sequential one (same order, polls,
// first violation; on a batch error the batch is redone state by state),
// so results and stats are identical (tested on random graphs against the
// unbatched search). On BenchmarkModel cluster-seg4-vals3 (1.59 million
// pairs, one core) this took the search from about 0.8 to 1.1 million
// pairs per CPU second.
//
// With pair symmetry the search expands one pair at a time; when the impl
// has Prepare (linearize.Reduced does), it first hands it the impl states
// of the next 32 live queued pairs (the tau successors queued meanwhile
// join the next batch), whose transitions it computes together (one store
// call for all their targets) and caches, so that the pairs then find
// them. A state's transitions depend on the state alone, so they are
// those it would compute one at a time; only the impl's numbering of its
// states may differ (a pair prepared and then skipped as dead), which no
// result depends on. On the segmented queue's linearizes check this took
// 13% of the CPU time off at three segments (docs/linearizes-log.md, "A
// state's steps independent of the order; the batches merged").
package refine
