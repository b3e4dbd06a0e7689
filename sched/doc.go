// Package sched explores the interleavings of a real Go object
// systematically and replayably, in the spirit of CHESS (Musuvathi et al.,
// OSDI 2008) and Line-Up (Burckhardt et al., PLDI 2010), and checks each
// execution's history for linearizability or quasi-linearizability
// (history.Check) against a model or a specification derived from serial
// runs (stress.SerialModel).
//
// # Marking shared steps
//
// The object under test makes its shared-memory accesses through Int64,
// Uint64, Int32, Pointer[T] (Load, Store, Add, Swap, CompareAndSwap),
// Mutex (Lock, Unlock, TryLock) and Cond (Wait, Signal, Broadcast), and
// calls Yield before any other shared access. Outside a controlled run
// these are sync/atomic and sync: the marking costs one atomic load of a
// package pointer and a predictable branch (see BenchmarkInt64Add). An
// object must be deterministic given the schedule: no time, randomness,
// map iteration order or goroutines of its own; all its shared accesses
// must be marked (unmarked ones are invisible to the search: bugs they
// cause are missed). Only one controlled run exists at a time per
// process; do not use sched types from other goroutines during a run.
//
// Threads switch only at marked steps, so an operation with no marked
// step is never delayed: it runs, call and return, right after its
// thread's previous operation (a thread's first operation: before any
// step), and histories in which it is invoked later are not explored.
// Such an operation reads no shared state, but where it falls still
// matters for precedence; give it a Yield if it should move.
//
// # The scheduler
//
// A test is a list of calls per thread (stress.Test), run on a fresh
// object per execution. Thread g is a real goroutine, but exactly one
// goroutine runs at a time: each marked step first parks the goroutine
// (a channel hand-off to the scheduler, which gives the race detector its
// happens-before edges), and the scheduler picks the thread that runs
// next. The sequence of picks is the schedule; with the thread indices as
// ids it determines the execution. Local code between steps commutes with
// everything, so a step is the only scheduling point. A thread waiting in
// Lock for a held Mutex or in Cond.Wait is not runnable; when no thread is
// runnable and some have not finished, the execution is a deadlock and
// their operations are reported stuck.
//
// Histories use logical time: an operation's invocation is stamped just
// before its first step and its return just after its last, on one clock
// that every step advances. So an operation precedes another iff its last
// step came before the other's first step in the schedule: the most
// precedence any real execution with that schedule can show.
//
// # Strategies
//
// DFS (stateless, by re-execution) enumerates schedules with iterative
// preemption bounding: bound 0, 1, 2, ... as in CHESS. A preemption is a
// switch away from a thread that could continue; a switch from a finished
// or blocked thread is free. Iteration b runs the prefixes whose last
// choice was the b-th preemption, deferred by iteration b-1, and extends
// them without preempting, so each schedule runs exactly once in total.
// "No violation at bound b" (Stats.Bound >= b) means: every execution of
// the test with at most b preemptions was run and its history passed.
// Stats.Exhausted means all schedules of the test were run.
//
// Sleep sets (Godefroid) prune schedules equivalent to explored ones: after
// exploring thread u at a choice point, u sleeps in the siblings explored
// later, and stays asleep down a branch while the steps taken are
// independent of u's pending step. Steps are independent when they touch
// different variables, or both are loads; Mutex steps conflict with steps
// on the same mutex; Yield, Wait and Signal conflict with everything.
// The history is an observation too: it orders an operation's return
// before another's call, so a step whose quantum (the step and the local
// code after it) stamps a return does not commute with one that stamps a
// call, whatever they access. A step that stamps a call wakes every
// sleeping thread (a sleeping step may end its operation: that is known
// only once it ran); one that stamps only a return wakes the threads
// whose pending step is their operation's first, or every thread once an
// operation without marked steps was seen (its call is stamped after the
// previous operation's return, in the same quantum). With this relation
// two schedules of one Mazurkiewicz trace give the same results and the
// same precedence between operations, all that the check looks at, so
// sleep sets alone are sound: every history is still checked. Combined
// with a preemption bound they are not: the representative of a trace
// that the sleep sets keep may need more preemptions than the pruned one,
// so a bug within the bound can be missed (Coons, Musuvathi, McKinley,
// OOPSLA 2013, give a repair). This package therefore allows SleepSets
// only with Bound: Unbounded.
//
// PCT (Burckhardt et al., ASPLOS 2010) gives the threads random priorities
// and d-1 random change points; execution i uses the seed (Seed, i), so a
// run of PCT is reproducible, and any failure replays from its schedule.
//
// # Failures
//
// A failure (not linearizable, deadlock, panic, livelock beyond MaxSteps,
// nondeterministic object) is minimised: a bounded DFS finds the fewest
// preemptions, then calls are dropped one at a time while the search of
// the smaller test still fails the same way (a deadlock is not reduced to
// a test that deadlocks in every serial run). The result is replayed from
// its printed schedule before it is reported. The schedule's text is run
// length encoded ("0x3,1x2,0", see Schedule) and Replay re-runs it
// exactly. In a go test, Check prints the command that replays it:
// -sched.replay (or QUASAR_SCHED_REPLAY) is NAME=SCHEDULE, where NAME is
// the check's name (the test's name, with " #n" for its n-th Check call),
// so only that check replays and the other checks of the binary explore
// as usual.
package sched
